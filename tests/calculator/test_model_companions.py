"""The model page's companions: the FAQ at its own URL with FAQPage JSON-LD, and the Markdown twin."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.core.management import call_command

from models_catalog import services
from tests.models_catalog.html import parse

SHIPPED = Path(services.__file__).resolve().parent / "data" / "hub"
GLM = "/en/models/zai-org/GLM-5.3-Flash/"

pytestmark = pytest.mark.django_db


@pytest.fixture
def seed_site():
    services.model_import_offline(SHIPPED, only=["zai-org/GLM-5.3-Flash", "meta-llama/Llama-3.1-8B-Instruct"])
    call_command("loaddata", "seed_offers_2026-11-13", verbosity=0)


def _json_ld(html: bytes) -> dict:
    block = re.search(rb'<script type="application/ld\+json">(.*?)</script>', html, re.S)
    assert block, "no JSON-LD"
    return json.loads(block.group(1))


def test_faq_page_answers_from_the_estimate_with_faqpage_json_ld(client, seed_site):
    response = client.get(GLM + "faq/")

    assert response.status_code == 200
    data = _json_ld(response.content)
    assert data["@context"] == "https://schema.org" and data["@type"] == "FAQPage"
    questions = data["mainEntity"]
    assert len(questions) == 9  # with "how much does it cost to serve it at 1B output tokens a month"
    for question in questions:
        assert question["@type"] == "Question" and question["name"].endswith("?")
        assert question["acceptedAnswer"]["@type"] == "Answer" and question["acceptedAnswer"]["text"]
    vram = questions[0]["acceptedAnswer"]["text"]
    # the FP8 it is released in first, then the generic precisions (what vLLM allocates: 633 GB at FP16)
    assert vram.startswith("About 321 GB at FP8, the precision it is released in.")
    assert "633 GB at FP16" in vram and "170 GB at INT4" in vram
    page = parse(response.content)
    assert page.one("dd", data_faq="cheapest").text.startswith(
        "At FP8 as released: 8 × H200 NVL 141GB at RunPod, for about $30.32 per hour"
    )
    serve = page.one("dd", data_faq="serve").text
    api = json.loads(client.get("/api/v1/plan", {"model": "zai-org/GLM-5.3-Flash", "out": "1B"}).content)
    cheapest_rented = next(o for o in api["options"] if o["kind"] == "rented")
    assert f"{cheapest_rented['replicas']} × {cheapest_rented['instance_gpus']} × {cheapest_rented['gpu']}" in serve
    cheapest_owned = next(o for o in api["options"] if o["kind"] == "owned")
    assert f"Owning {cheapest_owned['servers']} × {cheapest_owned['server']} costs about" in serve
    assert "(server price estimated)" in serve


def test_faq_answer_changes_when_prices_change(client, seed_site):
    from pricing.models import Offer
    from web.generations import PRICES_GENERATION

    before = parse(client.get(GLM + "faq/").content).one("dd", data_faq="cheapest").text
    Offer.objects.filter(provider__slug="runpod", gpu__slug__startswith="h200").update(price_per_gpu_hour_usd="1.99")
    PRICES_GENERATION.bump()  # what a price refresh does when it stores new prices
    after = parse(client.get(GLM + "faq/").content).one("dd", data_faq="cheapest").text
    assert before != after and "$15.92" in after  # the 8-GPU H200 instance at the new $1.99 per GPU


def test_faq_json_ld_in_german(client, seed_site):
    data = _json_ld(client.get("/de/models/zai-org/GLM-5.3-Flash/faq/").content)
    assert data["inLanguage"] == "de"
    assert data["mainEntity"][0]["name"] == "Wie viel VRAM braucht GLM-5.3-Flash?"


def test_markdown_twin_carries_the_same_numbers_as_the_html(client, seed_site):
    html = parse(client.get(GLM + "?precision=int4").content)
    for response in (
        client.get("/en/models/zai-org/GLM-5.3-Flash.md?precision=int4"),
        client.get(GLM + "?precision=int4", headers={"Accept": "text/markdown"}),
    ):
        assert response.status_code == 200
        assert response["Content-Type"].startswith("text/markdown")
        text = response.content.decode()
        assert text.startswith("# GLM-5.3-Flash GPU requirements")
        assert html.one(data_card="need").text.replace("\xa0", " ") in text.replace("\xa0", " ")
        assert "| INT4 | 170 GB | – |" in text.replace("\xa0", " ")
        for row in html.one("table", id="ranking").select("tr", data_gpu_family=True):
            assert row.one(data_per_hour=True).text in text
        assert "<" not in text.split("\n", 1)[1].replace("<https", "")  # Markdown, not HTML


def test_markdown_and_faq_urls_follow_the_catalog_spelling(client, seed_site):
    assert client.get("/en/models/zai-org/glm-5.3-flash.md")["Location"] == "/en/models/zai-org/GLM-5.3-Flash.md"
    assert client.get("/en/models/zai-org/glm-5.3-flash/faq/")["Location"] == GLM + "faq/"
    assert client.get("/en/models/acme/Nothing-7B.md").status_code == 404


def test_share_card_is_drawn_anew_after_a_rename(client, seed_site):
    from models_catalog.models import Model
    from web.generations import CATALOG_GENERATION

    before = client.get(GLM + "og.png").content
    assert client.get(GLM + "og.png").content == before  # kept
    Model.objects.filter(hub_id="zai-org/GLM-5.3-Flash").update(display_name="GLM-5.3-Flash (renamed)")
    CATALOG_GENERATION.bump()  # what an import or an admin edit does
    after = client.get(GLM + "og.png")
    assert after.status_code == 200 and after["Content-Type"] == "image/png"
    assert after.content != before


@pytest.mark.parametrize("path", [GLM, GLM + "faq/", GLM.replace("/en/", "/de/"), GLM.replace("/en/", "/de/") + "faq/"])
def test_how_we_calculate_is_linked_once_in_the_footer(client, seed_site, path):
    page = parse(client.get(path).content)
    footer_link = page.one("footer").select("a")[0]
    assert footer_link.attrs["href"].endswith("/methodology/")
    same_text = [a for a in page.select("a") if a.text == footer_link.text]
    assert len(same_text) == 1, f"{footer_link.text!r} {len(same_text)} times"
