"""What crawlers and link previews read: sitemap index and sections, robots.txt, llms.txt, canonical, symmetric
hreflang, Open Graph meta and the model's card image, and titles that state the answer."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from django.core.management import call_command
from PIL import Image

from models_catalog import services
from models_catalog.models import Model
from tests.models_catalog.html import parse
from tests.support import rows_for_the_module

SHIPPED = Path(services.__file__).resolve().parent / "data" / "hub"
SM = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
XHTML = "{http://www.w3.org/1999/xhtml}"

# Under pytest-xdist one worker runs the whole module in a row, so its rows are written once.
pytestmark = [pytest.mark.django_db, pytest.mark.xdist_group("seo")]


def _write_site() -> None:
    services.model_import_offline(SHIPPED)
    call_command("loaddata", "seed_offers_2026-11-13", verbosity=0)


@pytest.fixture(scope="module")
def _site_rows(django_db_setup, django_db_blocker):
    with rows_for_the_module(django_db_blocker, _write_site):
        yield


@pytest.fixture
def site(_site_rows, db):
    """The shipped catalog and the seed offers: written once for the module, rolled back to after each test."""


def _xml(client, path):
    response = client.get(path)
    assert response.status_code == 200, path
    return ET.fromstring(response.content)


def test_sitemap_index_lists_sections_that_list_every_model_in_both_languages(client, site):
    index = _xml(client, "/sitemap.xml")
    assert index.tag == f"{SM}sitemapindex"
    sections = [loc.text for loc in index.iter(f"{SM}loc")]
    assert any(s.endswith("/sitemap-models.xml") for s in sections)
    urls = set()
    for section in sections:
        tree = _xml(client, section.replace("http://testserver", ""))
        assert tree.tag == f"{SM}urlset"
        for url in tree.iter(f"{SM}url"):
            loc = url.find(f"{SM}loc").text
            urls.add(loc)
            alternates = {a.get("hreflang"): a.get("href") for a in url.iter(f"{XHTML}link")}
            assert {"en", "de"} <= set(alternates), loc
            assert loc in alternates.values()
    for model in Model.objects.all():
        for lang in ("en", "de"):
            assert f"http://testserver/{lang}{model.get_absolute_url()[3:]}" in urls
            assert f"http://testserver/{lang}{model.get_absolute_url()[3:]}faq/" in urls


@pytest.mark.slow
def test_every_sitemap_url_answers(client, site):
    index = _xml(client, "/sitemap.xml")
    checked = 0
    for section in [loc.text for loc in index.iter(f"{SM}loc")]:
        for loc in list(_xml(client, section.replace("http://testserver", "")).iter(f"{SM}loc"))[:40]:
            assert client.get(loc.text.replace("http://testserver", "")).status_code == 200, loc.text
            checked += 1
    assert checked > 40


def test_robots_names_the_sitemap(client):
    text = client.get("/robots.txt").content.decode()
    assert "Sitemap: http://testserver/sitemap.xml" in text


def test_favicon_ico_answers_with_the_sites_icon(client):
    """Browsers, feed readers and crawlers ask for /favicon.ico whatever the page's <link rel="icon"> says."""
    response = client.get("/favicon.ico")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/vnd.microsoft.icon"
    assert "max-age=" in response["Cache-Control"]
    icon = Image.open(io.BytesIO(response.content))
    assert icon.format == "ICO" and {(16, 16), (32, 32)} <= icon.info["sizes"]
    assert icon.convert("RGB").getpixel((3, 24)) == (0x1F, 0x5F, 0xBF)  # static/img/favicon.svg's blue


def test_llms_txt_points_at_the_markdown_twins(client, site):
    text = client.get("/llms.txt").content.decode()
    assert text.startswith("# gpufit")
    assert "http://testserver/en/models/zai-org/GLM-5.3-Flash.md" in text


@pytest.mark.parametrize("path", ["/en/", "/de/models/", "/en/methodology/", "/de/models/zai-org/GLM-5.3-Flash/"])
def test_hreflang_pairs_are_symmetric_and_canonical_is_set(client, site, path):
    page = parse(client.get(path).content)
    alternates = {link.attrs["hreflang"]: link.attrs["href"] for link in page.select("link", rel="alternate")}
    assert set(alternates) == {"en", "de"}
    for lang, href in alternates.items():
        other = parse(client.get(href.replace("http://testserver", "")).content)
        back = {link.attrs["hreflang"]: link.attrs["href"] for link in other.select("link", rel="alternate")}
        assert back == alternates, (path, lang)
    assert page.one("link", rel="canonical").attrs["href"].startswith("http://testserver/")


def test_model_page_states_the_answer_in_title_and_meta_and_has_a_card(client, site):
    response = client.get("/en/models/zai-org/GLM-5.3-Flash/")
    page = parse(response.content)
    title = page.select("title")[0].text  # the document title (SVG charts hold their own <title>s)
    # the precision its repository ships (FP8), not the BF16 the reference page headlines
    assert title.startswith("GLM-5.3-Flash needs about 321 GB at FP8 — cheapest: 8 × H200 NVL 141GB, $30.32/h")
    description = page.one("meta", name="description").attrs["content"].replace("\xa0", " ")
    assert "321 GB" in description and "170 GB" in description, description
    assert page.one("meta", property="og:title").attrs["content"].startswith("GLM-5.3-Flash needs about 321 GB")
    image = page.one("meta", property="og:image").attrs["content"]
    assert image == "http://testserver/en/models/zai-org/GLM-5.3-Flash/og.png"
    assert page.one("meta", name="twitter:card").attrs["content"] == "summary_large_image"
    card = client.get("/en/models/zai-org/GLM-5.3-Flash/og.png")
    assert card.status_code == 200 and card["Content-Type"] == "image/png"
    assert card.content[:8] == b"\x89PNG\r\n\x1a\n"
    assert int.from_bytes(card.content[16:20], "big") == 1200 and int.from_bytes(card.content[20:24], "big") == 630
