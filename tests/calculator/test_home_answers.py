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
def test_home_lists_popular_models_with_need_and_cheapest_configuration(client, site, lang):
    page = parse(client.get(f"/{lang}/").content)

    glm = page.one("table", id="popular").one("tr", data_model="GLM-5.3-Flash")
    cells = [c.text.replace("\xa0", " ") for c in glm.select("td")]
    # as released (FP8), the figure its own page leads with
    assert cells[0] == "356 GB FP8" and cells[1] == "187 GB"
    assert "4 × MI300X 192GB" in cells[2]  # the instance as sold and billed; the memory needs 3


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

    before = parse(client.get("/en/").content).one("table", id="popular").one("tr", data_model="GLM-5.3-Flash").text
    Offer.objects.filter(provider__slug="runpod", gpu__slug="mi300x").update(price_per_gpu_hour_usd="1.99")
    PRICES_GENERATION.bump()  # what a price refresh does when it stores new prices
    after = parse(client.get("/en/").content).one("table", id="popular").one("tr", data_model="GLM-5.3-Flash").text
    assert before != after and "$7.96" in after  # 4 GPUs' price for the 3 × MI300X needed at FP8


def test_german_home_links_to_german_model_pages_after_an_english_one_was_rendered(client, site, settings):
    settings.PAGE_CACHE_SECONDS = 0  # the kept home answers alone, not the page cache
    english = parse(client.get("/en/").content)
    german = parse(client.get("/de/").content)

    for page, prefix in ((english, "/en/"), (german, "/de/")):
        for answers in (page.one("table", id="popular"), page.one("ul", id="on-card"), page.one("ul", id="on-mac")):
            links = {a.attrs["href"][:4] for a in answers.select("a")}
            assert links == {prefix}
