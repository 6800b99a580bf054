"""The model page's prices: the ranking cheapest first, what each row bills, the cost per cloud, the cheapest per
precision, hosted APIs and the break-even, in both languages (the site: tests/calculator/model_page_site.py)."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command

from tests.calculator.model_page_site import GLM, GLM_DE, GLM_DE_FP16, GLM_FP16, write_seed_site
from tests.calculator.model_page_site import cells as _cells
from tests.calculator.model_page_site import get_page as _get
from tests.support import module_rows

pytestmark = [pytest.mark.django_db, pytest.mark.xdist_group("model-page")]

_site_rows = module_rows(write_seed_site)


@pytest.fixture
def seed_site(_site_rows, db):
    """The shipped catalog, the seed offers and the API prices: written once for the module, rolled back to after
    each test."""


def test_ranking_reproduces_the_seed_rows_cheapest_first(client, seed_site):
    _, page = _get(client, GLM_FP16)

    rows = page.one("table", id="ranking").select("tr", data_gpu_family=True)
    # the seed's rows less its "5 × MI300X" ($19.12, 8 billed): vLLM has no sparse-attention kernels for it; the
    # seed's "H200 141GB" row was RunPod's H200 NVL, and the H200 SXM (Nebius) is priced in a row of its own
    assert [(r.select("th")[0].text.replace(" cheapest", ""), _cells(r)[0]) for r in rows] == [
        ("8 × H200 NVL 141GB", "$30.32"),
        ("4 × B300 288GB", "$35.96"),
        ("8 × H200 SXM 141GB", "$43.20"),
        ("8 × B200 180GB", "$61.52"),
    ]
    note = page.one(id="kernels-note")
    assert note.attrs["data-engine"] == "vllm" and "only on Hopper and data-centre Blackwell GPUs" in note.text
    first = rows[0]
    assert first.attrs["data-cheapest"] == "true"
    # the row bills the GPUs it names: total = GPUs × price per GPU; the memory needs 5, the instance has 8
    assert _cells(first)[2] == "$3.79" and first.one(data_gpus_needed="5").text.startswith("5")
    assert _cells(first)[1] == "$22,134"
    # 633 GB: 90 % of the nameplate would need 4 MI300X too, so no count differs from that rule here
    assert not page.select(id="counted-on-capacity")
    assert first.one(data_captured=True).attrs["data-captured"] == "2026-11-13"
    several = page.one(id="several-nodes").text
    # every catalog GPU type that needs more than one node of 8, offered or not, as the seed lists them
    # 633 GB over 0.9 × 85.0 GB an H100 reports: 9, run on two whole nodes of 8; the reference page's 708 GB on 90 % of
    # 80 GB was 10
    assert "16 × H100 SXM 80GB (2 nodes)" in several and "16 × H100 PCIe 80GB (2 nodes)" in several
    assert "A100" not in several  # an A100 cannot start its sparse attention


def test_a_row_whose_offer_does_not_name_the_form_factor_says_so(client, seed_site):
    """Nebius lists "8x H200 141GB": the row counts it as the SXM part but does not claim the offer says so."""
    _, page = _get(client, GLM_FP16)
    rows = {r.attrs["data-gpu-family"]: r for r in page.one("table", id="ranking").select("tr", data_gpu_family=True)}
    assert "Nebius" in rows["h200-sxm-141gb"].text
    assert rows["h200-sxm-141gb"].select("span", data_form_factor_unstated=True)
    assert not rows["h200-nvl-141gb"].select("span", data_form_factor_unstated=True)  # "8x H200 NVL" names it


def test_every_price_row_bills_the_gpus_it_names_and_stale_prices_are_said_once_per_table(client, seed_site):
    from decimal import Decimal

    _, page = _get(client, GLM_FP16 + "&show=providers")
    for table in ("ranking", "by-provider"):
        for row in page.one("table", id=table).select("tr", data_gpu_family=True) + page.one("table", id=table).select(
            "tr", data_provider=True
        ):
            count = int(row.select("th")[0].text.split(" × ")[0])
            per_gpu = Decimal(row.one(data_price_per_gpu=True).attrs["data-price-per-gpu"])
            total = Decimal(row.one(data_per_hour=True).attrs["data-per-hour"])
            assert abs(count * per_gpu - total) <= Decimal("0.01") * count, row.text
            assert [span for span in row.select("span") if "stale" in span.attrs.get("class", "")] == []
    gpus = page.one(id="gpus")
    notes = gpus.select("p", data_stale_count=True)
    assert len(notes) == 2  # one above each table, with the capture day
    assert "prices are stale: seen Nov 13, 2026" in notes[0].text


def test_cost_per_cloud_lists_the_six_seed_providers(client, seed_site):
    _, page = _get(client, GLM_FP16 + "&section=providers", HX_Request="true")  # the block, loaded when in view

    rows = page.one("table", id="by-provider").select("tr", data_provider=True)
    # the seed's six less Vultr, whose MI300X cannot start the model's sparse attention in vLLM
    assert [(r.attrs["data-provider"], _cells(r)[0], _cells(r)[1]) for r in rows] == [
        ("runpod", "$30.32", "$22,134"),
        ("nebius", "$43.20", "$31,536"),
        ("coreweave", "$50.44", "$36,821"),
        ("lambda", "$61.52", "$44,910"),
        ("aws", "$63.30", "$46,206"),
    ]


def test_cheapest_gpu_per_precision_matches_the_seed_cards(client, seed_site):
    _, page = _get(client, GLM + "?show=precision-body")

    int8 = page.one("li", data_precision_card="int8").text
    # 335 GB: 3 H200 hold it; RunPod sells 8 (an A40 or an MI300X cannot start its sparse attention in vLLM)
    assert "about 335 GB" in int8 and "8 × H200 NVL 141GB" in int8 and "the memory needs 3 of them" in int8
    assert "$30.32 per hour" in int8 and "$22,134 per month" in int8
    int4 = page.one("li", data_precision_card="int4").text
    assert "about 170 GB" in int4
    assert "8 × H200 NVL 141GB" in int4 and "the memory needs 2 of them" in int4 and "$30.32 per hour" in int4


def test_api_prices_and_break_even(client, seed_site):
    _, page = _get(client, GLM)

    row = page.one("table", id="api-prices").one("tr", data_route="z-ai/glm-5.3-flash")
    assert _cells(row) == ["$0.150", "$0.030", "$0.500"]
    assert row.one("code").text == "z-ai/glm-5.3-flash"  # the name the API knows it by, where it is not the Hub id
    assert row.one(data_intro_expired="true")
    assert page.one(id="break-even").attrs["data-break-even"] != ""


def test_a_popular_dense_model_is_compared_with_its_hosted_price(client, seed_site):
    """Llama-3.1-8B had no hosted price, so self-hosting was the cheapest by default: OpenRouter's top provider
    (Groq) served it for $0.05 / $0.025 / $0.08 per million tokens on 2026-08-08 (pricing/data/api-prices.json)."""
    _, page = _get(client, "/en/models/meta-llama/Llama-3.1-8B-Instruct/")
    row = page.one("table", id="api-prices").one("tr", data_route="meta-llama/llama-3.1-8b-instruct")
    assert _cells(row) == ["$0.050", "$0.025", "$0.080"]
    assert page.one(id="break-even").attrs["data-break-even"] != ""


def test_an_openrouter_discount_past_its_day_shows_the_undiscounted_price(client, seed_site):
    """MiniMax-M2's top provider was 15 % off on 2026-08-08 with no end date: the page, on a later day, shows the
    undiscounted $0.30 / $1.20 and says the offer ended."""
    _, page = _get(client, "/en/models/MiniMaxAI/MiniMax-M2/")
    row = page.one("table", id="api-prices").one("tr", data_route="minimax/minimax-m2")
    assert _cells(row)[0] == "$0.300" and _cells(row)[-1] == "$1.200"
    assert row.one(data_intro_expired="true")


def test_an_api_route_named_like_the_model_is_not_repeated_on_every_row(client, seed_site):
    _, page = _get(client, "/en/models/openai/gpt-oss-120b/")
    rows = page.one("table", id="api-prices").select("tr", data_route=True)
    assert rows and all(r.attrs["data-route"] == "openai/gpt-oss-120b" for r in rows)
    assert not [r for r in rows if r.select("code")]


def test_a_marketplace_instance_of_five_gpus_runs_as_five_pipeline_stages(client, seed_site):
    """With the shipped snapshot a marketplace sells MI300X in any count, and SGLang runs the model's sparse attention
    on it: at 1M tokens × 16 requests the cheapest configuration is 5 GPUs. The page prices 5, says the engine runs
    them as TP 1 × 5 stages, and the command runs exactly that."""
    from io import StringIO

    call_command("load_prices", stdout=StringIO())
    _, page = _get(client, GLM_FP16 + "&engine=sglang&context=1048576&concurrency=16")
    assert page.one(data_card="per-hour").text == "$11.95"  # 5 × $2.39
    cheapest = page.one("tr", data_cheapest="true")
    assert cheapest.one("span", data_plan="tp1-pp5").text.endswith("1 × 5 (tensor × pipeline parallel)")
    # the reference page's FP16 figures of a model released in FP8: no 16-bit build to start, said so
    commands = page.one(id="commands").text
    assert "5 × MI300X 192GB" in commands and "vllm serve" not in commands
    assert "no 16-bit build of it is published" in commands


def test_the_faq_answers_the_same_cheapest_configuration_whatever_the_page_is_set_to(client, seed_site):
    """In LoRA mode the FAQ once priced the fine-tuning need while saying "with 8K tokens and 1 request"."""
    answers = [
        _get(client, GLM + query)[1].one("dd", data_faq="cheapest").text
        for query in ("?show=faq", "?mode=lora&show=faq", "?precision=int4&show=faq")
    ]
    assert answers[0].startswith("At FP8 as released:") and answers[0] == answers[1] == answers[2]


def test_hosted_api_providers_and_sources_speak_german_on_german_pages(client, seed_site):
    german = _get(client, GLM_DE)[1].one(id="api").text
    assert "Z.ai (Listenpreis des Herstellers)" in german and "deutschsprachiger Community-Artikel" in german
    assert "vendor list price" not in german and "German community article" not in german
    english = _get(client, GLM)[1].one(id="api").text
    assert "Z.ai (vendor list price)" in english


def test_offer_names_and_regions_speak_german_on_german_pages(client, seed_site):
    """Price adapters write "(marketplace, on-demand) · global marketplace" around an offer; German pages say it in
    German, the providers' own product names stay."""
    from django.utils import translation

    from calculator.labels import OFFER_PHRASES, offer_text

    with translation.override("de"):
        assert offer_text("B200 (marketplace, on-demand)") == "B200 (Marktplatz, auf Abruf)"
        assert offer_text("global marketplace") == "weltweiter Marktplatz"
        assert all(str(text) != phrase for phrase, text in OFFER_PHRASES.items())
        assert offer_text("RTX 3090 (NVIDIA GeForce RTX 3090) - spot (interruptible) pod").endswith("(unterbrechbar)")
        assert "ohne" in offer_text("GPU SKU (A100 without '80GB' = 40GB): \"Nvidia Tesla A100 GPU\"")
        assert offer_text("EC2 p5.48xlarge (instance $55.04/h)") == "EC2 p5.48xlarge (Instanz 55,04\u00a0$ pro Stunde)"
    assert offer_text("8x H100 Secure Cloud pod") == "8x H100 Secure Cloud pod"
    # a provider's machine ids, as a reader names the machine
    assert offer_text("H100_SXM x8") == "8 × H100 SXM" and offer_text("H200 x1") == "1 × H200"
    assert offer_text("A100_SXM_80GB") == "A100 SXM 80GB"
    assert offer_text("B98415 Oracle Cloud Infrastructure - Compute - GPU - H100").startswith("Oracle Cloud")
    # Google's SKU descriptions: the GPU, its terms and the region, in the reader's words
    assert offer_text('GPU SKU: "Nvidia L4 GPU running in Americas"') == "Nvidia L4 GPU, Americas"
    spot = 'GPU SKU: "Nvidia H100 80GB GPU attached to Spot Preemptible VMs running in Americas"'
    committed = 'GPU SKU: "Commitment v1: A4 Nvidia B200 (1 gpu slice) in Americas for 3 Year"'
    assert offer_text(spot) == "Nvidia H100 80GB GPU, spot (preemptible), Americas"
    assert offer_text(committed) == "A4 Nvidia B200 (one GPU), 3-year commitment, Americas"
    with translation.override("de"):
        assert offer_text(spot) == "Nvidia H100 80GB GPU, Spot (unterbrechbar), Amerika"
        assert offer_text(committed) == "A4 Nvidia B200 (eine GPU), 3 Jahre Bindung, Amerika"
    gpus = _get(client, GLM_DE_FP16)[1].one(id="gpus").text
    assert "marketplace" not in gpus and "global (" not in gpus


def test_a_long_ranking_shows_its_cheapest_rows_and_loads_the_rest_when_scrolled_to(client, seed_site, monkeypatch):
    """A ranking longer than the page shows (ten rows; two here, on the seed's few offers): the first rows are on the
    page, the rest load as a second table (or join the first with show=more-gpus); together they are the API's
    ranking, in order."""
    from calculator.page import view

    monkeypatch.setattr(view, "RANKING_SHOWN", 2)
    path = "/en/models/meta-llama/Llama-3.1-8B-Instruct/"
    _, page = _get(client, path)
    shown = [r.attrs["data-gpu-family"] for r in page.one("table", id="ranking").select("tr", data_gpu_family=True)]
    more = page.one("div", data_deferred="more-gpus")
    assert len(shown) == 2 and more.one("a").attrs["href"].endswith("show=more-gpus#ranking")
    _, rest = _get(client, more.attrs["hx-get"], HX_Request="true")
    table = rest.one("table", id="ranking-more")
    later = [r.attrs["data-gpu-family"] for r in table.select("tr", data_gpu_family=True)]
    api = json.loads(client.get("/api/v1/estimate", {"model": "meta-llama/Llama-3.1-8B-Instruct"}).content)
    families = [row["gpu"] for row in api["gpus"]["by_gpu"]]
    assert len(shown) + len(later) == len(families) > 2
    _, whole = _get(client, path + "?show=more-gpus")
    rows = whole.one("table", id="ranking").select("tr", data_gpu_family=True)
    assert [r.attrs["data-gpu-family"] for r in rows] == shown + later
