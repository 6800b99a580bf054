"""The home page answers the common questions directly, from the same estimates and prices as the model pages."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.cache import cache
from django.core.management import call_command

from models_catalog import services
from tests.models_catalog.html import parse
from tests.support import module_rows

SHIPPED = Path(services.__file__).resolve().parent / "data" / "hub"

pytestmark = [pytest.mark.django_db, pytest.mark.xdist_group("home-answers")]


def _write_site() -> None:
    services.model_import_offline(SHIPPED)
    call_command("loaddata", "seed_offers_2026-11-13", verbosity=0)


_site_rows = module_rows(_write_site)


@pytest.fixture
def site(_site_rows, db):
    """The shipped catalog and the seed offers (written once for the module), and an empty cache."""
    cache.clear()


@pytest.mark.parametrize("lang", ["en", "de"])
def test_home_lists_the_most_downloaded_models_with_need_and_cheapest_configuration(client, site, lang):
    page = parse(client.get(f"/{lang}/").content)
    table = page.one("table", id="popular")
    names = [row.attrs["data-model"] for row in table.select("tr", data_model=True)]
    # the Hub's download counts as recorded (models_catalog/data/hub_downloads.json), most first, not the largest
    assert names[:3] == ["Qwen3-0.6B", "Qwen2.5-7B-Instruct", "DeepSeek-V3.2"] and len(names) == 8
    assert "Kimi-K2-Instruct" not in names  # among the largest, far down by downloads
    caption = page.one("caption", id="popular-caption").text
    assert ("May 12, 2026" if lang == "en" else "12. Mai 2026") in caption

    deepseek = table.one("tr", data_model="DeepSeek-V3.2")
    cells = [c.text.replace("\xa0", " ") for c in deepseek.select("td")]
    # as released (FP8), the figure its own page leads with; its sparse attention starts in vLLM on Hopper and
    # data-centre Blackwell only (docs/methodology.md §4.14), so no MI300X
    assert cells[0].endswith("FP8") and "× H200 NVL 141GB" in cells[2] and "MI300X" not in cells[2]


def test_the_home_no_longer_lists_the_largest_models_twice(client, site):
    page = parse(client.get("/en/").content)
    popular = {row.attrs["data-model"] for row in page.one("table", id="popular").select("tr", data_model=True)}
    largest = {
        a.text
        for a in page.one("section", aria_labelledby="models-heading").select("a")
        if "/models/" in a.attrs["href"]
    }
    assert len(popular & largest) <= 2


def test_home_answers_what_runs_on_a_24_gb_card_and_a_64_gb_mac(client, site):
    page = parse(client.get("/en/").content)

    card = {a.text: a.attrs["href"] for a in page.one("ul", id="on-card").select("a")}
    # the twelve largest that one RTX 4090 holds under llama.cpp (25.4 GB as CUDA reports it, all of it usable)
    assert card["Qwen3-30B-A3B"] == "/en/models/Qwen/Qwen3-30B-A3B/runs-on/rtx-4090/"
    assert len(card) == 12
    assert "GLM-5.3-Flash" not in card
    mac = {a.text: a.attrs["href"] for a in page.one("ul", id="on-mac").select("a")}
    assert len(mac) >= 5
    href = next(iter(mac.values()))
    assert href.endswith("/runs-on/mac-64/") and client.get(href).status_code == 200


def test_home_answers_follow_a_price_change(client, site):
    from pricing.models import Offer
    from web.generations import PRICES_GENERATION

    row = "DeepSeek-V3.2"
    before = parse(client.get("/en/").content).one("table", id="popular").one("tr", data_model=row).text
    Offer.objects.filter(provider__slug="runpod", gpu__slug__startswith="h200").update(price_per_gpu_hour_usd="1.01")
    PRICES_GENERATION.bump()  # what a price refresh does when it stores new prices
    after = parse(client.get("/en/").content).one("table", id="popular").one("tr", data_model=row).text
    assert before != after and "$8.08" in after  # the 8-GPU instance at the new $1.01 per GPU


def test_home_answers_for_the_remembered_mac_on_its_macos(client, site):
    client.cookies["gpufit_rig"] = "mac-128,1,64,26"
    response = client.get("/en/")
    assert "Cookie" in response["Vary"]
    page = parse(response.content)
    mac = page.one("section", data_machine="mac-128")
    assert mac.attrs.get("data-remembered") == "true" and "macOS 26" in mac.text
    links = [a.attrs["href"] for a in mac.select("a")]
    assert links and all(href.endswith("/runs-on/mac-128/") for href in links)
    assert "GLM-5.3-Flash" in {a.text for a in mac.select("a")}  # 2bit-lite fits 128 GB on macOS 26 without raising
    assert page.one("section", data_machine="rtx-4090")  # the default card question stays beside it


def test_home_answers_for_the_remembered_card(client, site):
    client.cookies["gpufit_rig"] = "rtx-5090,1,64,15"
    page = parse(client.get("/en/").content)
    card = page.one("section", data_machine="rtx-5090")
    assert card.one("h2").text == "What runs on my RTX 5090 32GB?"
    links = [a.attrs["href"] for a in card.select("a")]
    assert links and all(href.endswith("/runs-on/rtx-5090/") for href in links)
    assert page.one("section", data_machine="mac-64")
    client.cookies["gpufit_rig"] = "h100-sxm,1,64,15"  # a datacenter card is sized for vLLM, as its own page does
    h100 = parse(client.get("/en/").content).one("section", data_machine="h100-sxm")
    assert "with vLLM at 8K tokens" in h100.text
    client.cookies["gpufit_rig"] = "no-such-gpu,1,64,15"  # an unknown machine: the default questions
    page = parse(client.get("/en/").content)
    assert page.one("section", data_machine="rtx-4090") and page.one("section", data_machine="mac-64")


def test_german_home_links_to_german_model_pages_after_an_english_one_was_rendered(client, site, settings):
    settings.PAGE_CACHE_SECONDS = 0  # the kept home answers alone, not the page cache
    english = parse(client.get("/en/").content)
    german = parse(client.get("/de/").content)

    for page, prefix in ((english, "/en/"), (german, "/de/")):
        for answers in (page.one("table", id="popular"), page.one("ul", id="on-card"), page.one("ul", id="on-mac")):
            links = {a.attrs["href"][:4] for a in answers.select("a")}
            assert links == {prefix}
