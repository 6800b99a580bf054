"""The model page: every section from the catalog, the estimation core and the seed's offers, judged on the HTML.

The seed state (GLM-5.3-Flash, 8K context, one request, vLLM, FP16 KV) and its offers come from ReviewRamble's German
page "GLM-5.3-Flash GPU-Anforderungen: VRAM und günstigste GPU", prices captured 2026-11-13
(`pricing/fixtures/seed_offers_2026-11-13.json`). The page's need is what vLLM allocates, not the reference page's rule
(its 708 / 372 / 187 GB are reproduced in test_estimation_seed.py): at FP16 the 313,867,932,384 parameters vLLM loads
(the MTP layer left out) × 2 B = 627.7 GB, the 11 MLA layers' latent and indexer keys and the 34 linear-attention states
(0.25 GB) and vLLM 0.34's start-up budget (5.32 GB: profiled peak 3.28, CUDA graphs 1.12, non-torch 0.27, CUDA context
0.66) = 633 GB; at FP8 (8.036 bits) 321 GB, INT8 335 GB, INT4 170 GB.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from django.core.management import call_command

from models_catalog import services
from pricing.api_price_services import api_prices_load
from tests.models_catalog.html import parse
from tests.support import module_rows

SHIPPED = Path(services.__file__).resolve().parent / "data" / "hub"
GLM = "/en/models/zai-org/GLM-5.3-Flash/"
GLM_DE = "/de/models/zai-org/GLM-5.3-Flash/"
# The reference page's figures are GLM-5.3-Flash's BF16 ones; the page's default is the FP8 it is released in.
GLM_FP16 = GLM + "?precision=fp16"
GLM_DE_FP16 = GLM_DE + "?precision=fp16"

pytestmark = [pytest.mark.django_db, pytest.mark.xdist_group("model-page")]


def _write_site() -> None:
    services.model_import_offline(SHIPPED)
    call_command("loaddata", "seed_offers_2026-11-13", verbosity=0)
    api_prices_load()


_site_rows = module_rows(_write_site)


@pytest.fixture
def seed_site(_site_rows, db):
    """The shipped catalog, the seed offers and the API prices: written once for the module, rolled back to after
    each test."""


def _get(client, path, **headers):
    response = client.get(path, headers=headers)
    assert response.status_code == 200, response.content[:500]
    return response, parse(response.content)


def _cells(row):
    return [c.text for c in row.select("td")]


def test_seed_model_headline_is_what_vllm_allocates(client, seed_site):
    _, page = _get(client, GLM_FP16)

    assert page.one(id="summary-heading").text == "GLM-5.3-Flash needs about 633 GB of GPU memory"
    assert page.one(data_card="need").text == "633 GB"
    # the reference page: 708 GB on 5 MI300X → the 8-GPU instance, $19.12 / $13,958. Its sparse attention does not
    # start in vLLM on an MI300X (docs/methodology.md §4.14): 5 H200 hold 633 GB, RunPod sells 8 at $3.79
    assert page.one(data_card="per-hour").text == "$30.32"
    assert page.one(data_card="per-month").text == "$22,134"
    assert page.one(data_card="one-gpu").text == "no"
    assert "Inference (vLLM 0.34), FP16 / BF16, 8K tokens of context, 1 concurrent request" in page.one(
        "p", data_setting=True
    ).text.replace("1 request at a time", "1 concurrent request")


def test_breakdown_prints_each_term_with_its_formula(client, seed_site):
    _, page = _get(client, GLM_FP16)

    table = page.one("table", **{"class": "breakdown"})
    weights = table.one("tr", data_term="weights")
    assert "628 GB" in weights.text
    assert "313,867,932,384 parameters × 16 bits ÷ 8" in weights.text
    overhead = table.one("tr", data_term="overhead")
    assert "5.3 GB" in overhead.text and "start-up budget" in overhead.text and "10 %" not in overhead.text
    assert table.one("td", data_total_bytes=True).text == "633 GB"
    # the stacked bar draws one segment per term held on the GPUs
    assert len(page.one("svg", **{"class": "stacked-bar"}).select("rect")) == len(
        [r for r in table.select("tr", data_term=True) if "data-host" not in r.attrs]
    )


def test_ranking_reproduces_the_seed_rows_cheapest_first(client, seed_site):
    _, page = _get(client, GLM_FP16)

    rows = page.one("table", id="ranking").select("tr", data_gpu_family=True)
    # the seed's rows less its "5 × MI300X" ($19.12, 8 billed): vLLM has no sparse-attention kernels for it
    assert [(r.select("th")[0].text.replace(" cheapest", ""), _cells(r)[0]) for r in rows] == [
        ("8 × H200 141GB", "$30.32"),
        ("4 × B300 288GB", "$35.96"),
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
    # 633 GB over 0.9 × 85.0 GB an H100 reports: 9; the reference page's 708 GB on 90 % of 80 GB was 10
    assert "9 × H100 80GB" in several and "A100" not in several  # an A100 cannot start its sparse attention


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
    _, page = _get(client, GLM)

    int8 = page.one("li", data_precision_card="int8").text
    # 335 GB: 3 H200 hold it; RunPod sells 8 (an A40 or an MI300X cannot start its sparse attention in vLLM)
    assert "about 335 GB" in int8 and "8 × H200 141GB" in int8 and "the memory needs 3 of them" in int8
    assert "$30.32 per hour" in int8 and "$22,134 per month" in int8
    int4 = page.one("li", data_precision_card="int4").text
    assert "about 170 GB" in int4
    assert "8 × H200 141GB" in int4 and "the memory needs 2 of them" in int4 and "$30.32 per hour" in int4


def test_matrix_fills_only_the_combinations_that_apply(client, seed_site):
    _, page = _get(client, GLM)

    matrix = page.one("table", id="matrix")
    by_row = {r.attrs["data-precision"]: _cells(r) for r in matrix.select("tr", data_precision=True)}
    assert by_row["fp16"][0] == "633 GB" and by_row["fp16"][2] == "–"
    assert by_row["int8"] == ["335 GB", "–", "–", "–"]
    assert by_row["int4"][0] == "170 GB" and by_row["int4"][1] == "–" and by_row["int4"][3] == "–"
    assert by_row["int4"][2] != "–"


def test_german_page_formats_money_and_numbers_for_german_readers(client, seed_site):
    _, page = _get(client, GLM_DE_FP16)

    assert page.one(data_card="per-hour").text.replace("\xa0", " ") == "30,32 $"
    assert page.one(data_card="per-month").text.replace("\xa0", " ") == "22.134 $"
    assert page.one(id="summary-heading").text == "GLM-5.3-Flash braucht etwa 633 GB GPU-Speicher"
    assert page.one(data_fact="max_context").text.startswith("1.048.576")


def test_real_builds_use_their_published_sizes(client, seed_site):
    _, page = _get(client, GLM + "?show=builds")

    rows = page.one("table", id="quantized-builds").select("tr", data_build=True)
    assert [r.attrs["data-build"] for r in rows] == ["FP8 reference", "6-bit", "4-bit", "3-bit", "2-bit", "2bit-lite"]
    lite = rows[-1]
    assert lite.one(data_weights_bytes=True).attrs["data-weights-bytes"] == "102000000000"
    need = int(lite.one(data_need_bytes=True).attrs["data-need-bytes"])
    assert 102_000_000_000 < need < 125_000_000_000  # weights as published + KV cache + runtime overhead
    assert "+141 %" in lite.text


def test_a_128_gb_mac_runs_the_smallest_build_and_a_raised_limit_never_falls_short(client, seed_site):
    _, page = _get(client, GLM)

    mac = page.one("tr", data_mac_gib="128")
    # both reference documents: the 2bit-lite build needs the raised wired limit on a 128 GB Mac (macOS 15's 96 GiB)
    assert mac.attrs["data-verdict"] == "raise"
    assert "2bit-lite" in mac.text
    assert page.one("tr", data_mac_gib="96").attrs["data-verdict"] == "no"
    for row in page.select("tr", data_verdict="raise"):
        limit_mb = int(row.one("code", data_sysctl=True).text.rsplit("=", 1)[1])
        assert limit_mb * 2**20 >= int(row.attrs["data-need-bytes"])  # never below what is needed
        assert limit_mb * 2**20 < int(row.attrs["data-mac-gib"]) * 2**30  # and leaves memory to macOS
    assert page.one("tr", data_local_gpu="rtx-4090").attrs["data-fits"] == "false"


def test_api_prices_and_break_even(client, seed_site):
    _, page = _get(client, GLM)

    row = page.one("table", id="api-prices").one("tr", data_route="z-ai/glm-5.3-flash")
    assert _cells(row) == ["$0.150", "$0.030", "$0.500"]
    assert row.one("code").text == "z-ai/glm-5.3-flash"  # the name the API knows it by, where it is not the Hub id
    assert row.one(data_intro_expired="true")
    assert page.one(id="break-even").attrs["data-break-even"] != ""


def test_an_api_route_named_like_the_model_is_not_repeated_on_every_row(client, seed_site):
    _, page = _get(client, "/en/models/openai/gpt-oss-120b/")
    rows = page.one("table", id="api-prices").select("tr", data_route=True)
    assert rows and all(r.attrs["data-route"] == "openai/gpt-oss-120b" for r in rows)
    assert not [r for r in rows if r.select("code")]


def test_htmx_request_gets_the_results_fragment_with_a_clean_permalink(client, seed_site):
    response, page = _get(client, GLM + "?precision=int4&mode=inference&context=8192&concurrency=1", HX_Request="true")

    assert b"<html" not in response.content
    assert page.one(id="results")
    assert page.one(id="summary").attrs["hx-swap-oob"] == "true"
    assert response["HX-Push-Url"] == GLM + "?precision=int4"
    assert "HX-Request" in response["Vary"]
    assert page.one(data_card="need").text == "170 GB"


def test_permalink_round_trip(client, seed_site):
    query = "?precision=int8&mode=inference&engine=sglang&concurrency=4&context=32k&kv=fp8"
    _, page = _get(client, GLM + query)
    permalink = page.one("a", id="permalink").attrs["href"]
    assert parse_qs(urlsplit(permalink).query) == {
        "precision": ["int8"],
        "engine": ["sglang"],
        "concurrency": ["4"],
        "context": ["32K"],
        "kv": ["fp8"],
    }
    _, again = _get(client, permalink)
    assert again.one(id="summary-heading").text == page.one(id="summary-heading").text
    assert again.one("select", name="engine").one("option", selected=True).attrs["value"] == "sglang"


def test_canonical_points_at_the_default_state(client, seed_site):
    _, page = _get(client, GLM + "?precision=int4")
    assert page.one("link", rel="canonical").attrs["href"] == "http://testserver" + GLM


@pytest.mark.parametrize(
    ("query", "name"),
    [
        ("context=-1", "context"),
        ("context=1e99", "context"),
        ("concurrency=0", "concurrency"),
        ("precision=%3Cscript%3Ealert(1)%3C/script%3E", "precision"),
        ("engine=warp-drive", "engine"),
        ("concurrency=2&concurrency=3", "concurrency"),
        ("context=" + "9" * 10_000, "context"),
        ("kv=fp3", "kv"),
        ("mode=pretraining", "mode"),
        ("gpus=NaN", "gpus"),
        ("ratio=inf", "ratio"),
        ("rank=1.5", "rank"),
    ],
)
def test_bad_query_values_fall_back_to_defaults_with_a_notice(client, seed_site, query, name):
    response, page = _get(client, GLM + "?" + query)

    item = page.one("li", data_ignored=name)
    assert "; the page uses " in item.text  # what it used instead, named
    assert b"<script>alert" not in response.content
    assert len(response.content) < 150_000
    if name != "concurrency":
        assert page.one(data_card="need").text == "321 GB"  # the default: FP8, as released


def test_context_accepts_the_units_readers_type(client, seed_site):
    for text, tokens in [("8K", "8K"), ("128k", "128K"), ("1M", "1M"), ("32768", "32K")]:
        _, page = _get(client, GLM + f"?context={text}")
        assert not page.select("li", data_ignored="context")
        assert page.one("input", name="context").attrs["value"] == tokens


def test_longer_context_than_the_model_takes_is_capped_with_a_notice(client, seed_site):
    _, page = _get(client, "/en/models/Qwen/Qwen3-8B/?context=10M")

    item = page.one("li", data_ignored="context").text
    assert page.one("input", name="context").attrs["value"] == "40K"
    # one statement of what happened: the limit is used, not "the default" as the heading once said for every value
    assert item.endswith("longer than this model's 40960-token limit; the page uses 40960.")
    assert page.one(id="ignored-notice").select("p")[0].text == "Some settings could not be used as given:"
    assert "address" not in page.one(id="ignored-notice").text and "default" not in page.one(id="ignored-notice").text


def test_lora_on_a_4_bit_base_is_computed_as_qlora(client, seed_site):
    _, page = _get(client, GLM + "?mode=lora&precision=int4")

    assert page.one(data_mode_changed="lora_on_4bit_is_qlora")
    assert "QLoRA fine-tuning" in page.one("p", data_setting=True).text


def test_every_section_is_on_a_dense_model_page_in_both_languages(client, seed_site):
    for path in ("/en/models/meta-llama/Llama-3.1-8B-Instruct/", "/de/models/meta-llama/Llama-3.1-8B-Instruct/"):
        response, page = _get(client, path)
        for section in (
            "summary",
            "model-facts",
            "breakdown",
            "gpus",
            "by-precision",
            "context",
            "inverse",
            "local",
            "api",
            "similar",
            "faq",
        ):
            assert page.one(id=section), section
        assert not page.select(data_fact="params_active")  # dense: one parameter count
        # no published build: neither section nor placeholder; the download count with the day it was read
        assert not page.select(id="builds") and "quantized builds" not in page.text.lower()
        assert page.one(data_fact="downloads").text.startswith(("9,393,633 (as read on May", "9.393.633 (erfasst am"))
        assert len(response.content) < 100_000
    # no download count recorded (the scrape lacks the model): no fact, no placeholder
    _, page = _get(client, "/en/models/Qwen/Qwen3-32B/")
    assert not page.select(data_fact="downloads") and not page.select(data_fact="likes")


def test_moe_page_explains_that_all_experts_stay_in_memory(client, seed_site):
    _, page = _get(client, GLM)

    # our own count from the config (docs/methodology.md §4.14); the review page's 25.4 B stays among the sources
    assert page.one(data_fact="params_active").text == "16.7 B"
    assert "All experts must still sit in GPU memory" in page.one("p", data_explain="moe").text


def test_conflicting_parameter_counts_are_shown_side_by_side(client, seed_site):
    _, page = _get(client, GLM)

    sources = page.one("details", id="fact-sources")
    assert "open" in sources.attrs and "the sources disagree" in sources.one("summary").text
    # the table loads when the disclosure shows (htmx), or with the page that asks for it (no JavaScript)
    placeholder = sources.one("div", data_deferred="param-table")
    assert placeholder.attrs["hx-trigger"] == "intersect once"
    assert placeholder.attrs["hx-get"].endswith("/GLM-5.3-Flash/?section=param-table")
    assert placeholder.one("a").attrs["href"].endswith("?show=param-table#fact-sources")
    block = _get(client, placeholder.attrs["hx-get"], HX_Request="true")[1]
    shown = _get(client, GLM + "?show=param-table")[1].one("details", id="fact-sources")
    assert block.one("div", id="param-table").text == shown.one("div", id="param-table").text
    totals = block.select("tr", data_kind="params_total")
    assert {r.attrs["data-source"] for r in totals} >= {"reference", "computed"}
    assert any("321.30" in r.text and "used" in r.text for r in totals)
    assert any("320.00" in r.text for r in totals)
    assert page.one(data_fact="licence").text == "MIT"  # the reader's name of the Hub's licence id
    assert page.one(data_fact="modality").text == "Vision"


def test_no_reader_facing_text_describes_how_the_site_was_built(client, seed_site):
    for path in (GLM, GLM_DE, "/en/models/Qwen/Qwen3-30B-A3B/"):
        text = client.get(path).content.decode()
        for leak in ("Reference document", "specified from", "from_hf_config", "code-index", "meta.json", "seed"):
            assert leak not in text, (path, leak)


def test_inverse_question_on_a_mac_uses_its_raised_gpu_limit(client, seed_site):
    _, page = _get(client, "/en/models/meta-llama/Llama-3.1-8B-Instruct/?gpu=mac-64")

    assert "Mac with 64 GB" in page.one(id="inverse-caption").text
    fp16 = page.one("table", id="inverse-table").one("tr", data_precision="fp16")
    assert int(fp16.one(data_max_context=True).attrs["data-max-context"]) == 131072  # the model's own limit
    _, on_gpu = _get(client, "/en/models/meta-llama/Llama-3.1-8B-Instruct/?gpu=rtx-4090")
    row = on_gpu.one("table", id="inverse-table").one("tr", data_precision="fp16")
    assert int(row.one(data_max_context=True).attrs["data-max-context"]) < 131072


def test_hardware_pickers_offer_gpus_and_macs_apart_and_a_machine_only_gpus(client, seed_site):
    _, page = _get(client, "/en/models/meta-llama/Llama-3.1-8B-Instruct/?gpu=mac-64")

    gpus, macs = page.one("select", id="f-gpu").select("optgroup")
    assert gpus.attrs["label"] == "GPUs" and macs.attrs["label"] == "Macs by unified memory"
    on_gpus = [o.attrs["value"] for o in gpus.select("option")]
    on_macs = [o.attrs["value"] for o in macs.select("option")]
    assert "h200-sxm" in on_gpus and not any(v.startswith("mac-") for v in on_gpus)
    assert "mac-64" in on_macs and all(v.startswith("mac-") for v in on_macs)
    assert macs.one("option", selected=True).attrs["value"] == "mac-64"
    assert [o.attrs["value"] for o in page.one("select", id="f-rig").select("option")] == on_gpus


def test_our_own_count_from_the_config_is_shown_but_never_makes_a_conflict(client, seed_site):
    # Qwen3-30B-A3B: the card says 3.3 B active, counting the config layer by layer gives 3.04 B (conventions
    # differ on what counts as active); only published sources that disagree make a conflict.
    _, page = _get(client, "/en/models/Qwen/Qwen3-30B-A3B/")
    assert "open" not in page.one("details", id="fact-sources").attrs
    assert not page.select("tr", data_kind="params_active")  # the table loads when the disclosure opens

    _, page = _get(client, "/en/models/Qwen/Qwen3-30B-A3B/?show=param-table")
    sources = page.one("details", id="fact-sources")
    assert "open" in sources.attrs
    assert any(r.attrs["data-source"] == "computed" for r in sources.select("tr", data_kind="params_active"))


def test_german_page_cites_our_own_source_notes_in_german(client, seed_site):
    _, page = _get(client, "/de/models/Qwen/Qwen3-30B-A3B/?show=param-table")

    text = page.one("details", id="fact-sources").text
    assert "Schicht für Schicht aus der config.json des Modells gezählt" in text
    assert "Hugging-Face-Hub-Seite von Qwen/Qwen3-30B-A3B" in text
    assert "counted layer by layer" not in text


def test_a_dense_checkpoint_that_stores_its_tied_head_twice_says_so(client, seed_site):
    _, page = _get(client, "/en/models/Qwen/Qwen3-0.6B/")

    assert not page.select(data_fact="params_active")
    assert "holds that table twice" in page.one("ul", id="spec-notes").text


def test_fine_tuning_framework_is_a_setting_with_a_stated_default(client, seed_site):
    _, default = _get(client, "/en/models/meta-llama/Llama-3.1-8B-Instruct/?mode=qlora&precision=int4")
    assert default.one("select", name="framework").one("option", selected=True).attrs["value"] == "transformers"
    assert "Hugging Face Transformers + PEFT" in default.one("p", data_setting=True).text
    _, unsloth = _get(
        client, "/en/models/meta-llama/Llama-3.1-8B-Instruct/?mode=qlora&precision=int4&framework=unsloth"
    )
    assert "Unsloth" in unsloth.one("p", data_setting=True).text
    assert default.one(data_card="need").text != unsloth.one(data_card="need").text
    assert unsloth.one("a", id="permalink").attrs["href"].endswith("framework=unsloth")


def test_german_page_says_our_build_notes_and_source_citations_in_german(client, seed_site):
    """The quality notes and document citations we wrote in reference_facts.json are extracted into the message
    catalog, so the German page reads them in German; the English page keeps them as written."""
    _, page = _get(client, GLM_DE + "?show=builds")
    builds = page.one(id="builds").text
    assert "Perplexität +2,96 % gegenüber FP8" in builds
    assert "Bezugspunkt für die Perplexitätsänderungen darunter" in builds
    assert "deutschsprachiger Community-Artikel" in builds
    assert "perplexity" not in builds and "community article" not in builds
    assert "FP8-Referenz" in builds and "FP8 reference" not in builds

    _, page = _get(client, GLM + "?show=builds")
    assert "perplexity +2.96 % vs FP8; the card's everyday default" in page.one(id="builds").text


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


@pytest.mark.parametrize("lang", ["en", "de"])
def test_fine_tuning_summary_names_what_training_uses_not_the_inference_engine_or_requests(client, seed_site, lang):
    path = (GLM if lang == "en" else GLM_DE) + "?mode=lora&engine=sglang&concurrency=16&rank=16&batch=2&seq=4096"
    setting = _get(client, path)[1].one("p", data_setting=True).text.replace("\xa0", " ")

    assert "SGLang" not in setting and "16 requests" not in setting and "16 Anfragen" not in setting, setting
    if lang == "en":
        assert setting.startswith("LoRA fine-tuning (Hugging Face Transformers + PEFT), base weights FP16 / BF16")
        assert "4K tokens per sample, batch 2, rank 16" in setting and "gradient checkpointing on" in setting
    else:
        assert "Basisgewichte FP16 / BF16" in setting and "Batch 2, Rang 16" in setting
        assert "requests" not in setting and "Anfragen" not in setting


@pytest.mark.parametrize("lang", ["en", "de"])
def test_a_fine_tuning_page_shows_the_smallest_fine_tuning_need_and_the_precision_it_computes(client, seed_site, lang):
    """LoRA on GLM-5.3-Flash (released in FP8) trains on 16-bit base weights: the precision box says FP16 / BF16, not
    the FP8 default, and the smallest-need card is the smallest way to fine-tune (QLoRA on a 4-bit base), not the
    2-bit inference build."""
    _, page = _get(client, (GLM if lang == "en" else GLM_DE) + "?mode=lora")
    selected = [o.attrs["value"] for o in page.one("select", name="precision").select("option", selected=True)]
    assert selected == ["fp16"]
    smallest = page.one(data_card="smallest").text.replace("\xa0", " ")
    qlora = page.one("table", id="matrix").one("tr", data_precision="int4")
    assert smallest == _cells(qlora)[2]  # the matrix's QLoRA cell at INT4
    label = page.one(id="summary").text
    assert (
        "Smallest need (QLoRA fine-tuning, INT4)" if lang == "en" else "Kleinster Bedarf (QLoRA-Feintuning"
    ) in label
    assert "2bit-lite" not in label


def test_the_faq_answers_the_same_cheapest_configuration_whatever_the_page_is_set_to(client, seed_site):
    """In LoRA mode the FAQ once priced the fine-tuning need while saying "with 8K tokens and 1 request"."""
    answers = [
        _get(client, GLM + query)[1].one("dd", data_faq="cheapest").text
        for query in ("?show=faq", "?mode=lora&show=faq", "?precision=int4&show=faq")
    ]
    assert answers[0].startswith("At FP8 as released:") and answers[0] == answers[1] == answers[2]


def test_long_blocks_few_readers_open_load_when_scrolled_to_and_link_to_the_page_without_javascript(client, seed_site):
    _, page = _get(client, GLM)
    placeholders = {d.attrs["id"]: d for d in page.select("div", data_deferred=True)}
    # GLM-5.3-Flash's ranking has no more rows than shown; its facts' tables wait in their disclosures
    assert set(placeholders) == {"providers", "builds", "faq", "param-table", "fact-table"}
    assert not page.select("table", id="by-provider") and not page.select("dd", data_faq=True)
    assert not page.select("table", id="quantized-builds")
    builds = _get(client, placeholders["builds"].attrs["hx-get"], HX_Request="true")[1]
    assert len(builds.one("table", id="quantized-builds").select("tr", data_build=True)) == 6
    # a model without published builds has no builds section, and no placeholder for one
    _, llama = _get(client, "/en/models/meta-llama/Llama-3.1-8B-Instruct/")
    assert "builds" not in {d.attrs["id"] for d in llama.select("div", data_deferred=True)}
    faq = placeholders["faq"]
    assert faq.attrs["hx-trigger"] == "revealed" and faq.attrs["hx-get"].endswith("?section=faq")
    link = faq.one("a").attrs["href"]
    assert link.endswith("?show=faq#faq")
    shown = _get(client, link.split("#")[0])[1]
    assert shown.select("dd", data_faq=True)
    assert "faq" not in {d.attrs["id"] for d in shown.select("div", data_deferred=True)}
    block = _get(client, faq.attrs["hx-get"], HX_Request="true")[1]
    assert block.one("section", id="faq").select("dd", data_faq=True)
    # a state's placeholders load that state's block
    _, lora = _get(client, GLM + "?mode=lora&context=32K")
    url = next(d for d in lora.select("div", data_deferred=True) if d.attrs["id"] == "providers").attrs["hx-get"]
    assert "mode=lora" in url and "context=32K" in url and url.endswith("section=providers")


@pytest.mark.parametrize("precision", ["w8a8", "gptq", "q6_k", "q5_k_m", "iq4_xs", "q2_k", "mlx-8bit", "mlx-3bit"])
def test_every_format_an_engine_loads_is_a_choice_on_the_page_and_in_the_api(client, seed_site, precision):
    page = _get(client, GLM)[1]
    offered = {o.attrs["value"] for o in page.one("select", name="precision").select("option")}
    assert precision in offered
    response = client.get("/api/v1/estimate", {"model": "zai-org/GLM-5.3-Flash", "precision": precision})
    assert response.status_code == 200 and response.json()["setting"]["precision"] == precision


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
    assert offer_text("8x H100 Secure Cloud pod") == "8x H100 Secure Cloud pod"
    gpus = _get(client, GLM_DE_FP16)[1].one(id="gpus").text
    assert "marketplace" not in gpus and "global (" not in gpus


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_macos_version_sets_the_gpus_default_share_and_so_whether_the_sysctl_is_needed(client, seed_site, lang):
    base = GLM if lang == "en" else GLM_DE
    _, page = _get(client, base)
    options = [o.attrs["value"] for o in page.one("select", id="f-macos").select("option")]
    assert options == ["15", "26"]
    assert page.one("select", id="f-macos").one("option", selected=True).attrs["value"] == "15"
    assert page.one("tr", data_mac_gib="128").attrs["data-verdict"] == "raise"
    _, newer = _get(client, base + "?macos=26")
    row = newer.one("tr", data_mac_gib="128")
    assert row.attrs["data-verdict"] == "fits" and not row.select("code", data_sysctl=True)
    assert newer.one("a", id="permalink").attrs["href"].endswith("macos=26")
    _, runs_on = _get(client, base + "runs-on/mac-128/")
    assert runs_on.one(data_sysctl=True) and runs_on.one("span", data_macos_26=True)


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
