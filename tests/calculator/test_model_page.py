"""The model page, judged on its HTML: the headline, the breakdown, the matrix and cards, the model's facts and
sections in both languages (the site and the seed figures: tests/calculator/model_page_site.py)."""

from __future__ import annotations

import pytest

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


def test_breakdown_prints_each_term_with_its_share_and_its_formula_behind_show_the_math(client, seed_site):
    _, page = _get(client, GLM_FP16)

    table = page.one("table", **{"class": "breakdown"})
    weights = table.one("tr", data_term="weights")
    assert "628 GB" in weights.text and "99 %" in weights.text.replace("\xa0", " ")
    math = page.one("details", id="breakdown-math")
    assert "open" not in math.attrs and math.one("summary").text == "Show the math"
    assert math.one("dd", data_term="weights").text.startswith("313,867,932,384 parameters × 16 bits ÷ 8")
    overhead = math.one("dd", data_term="overhead").text
    assert "5.3 GB" in table.one("tr", data_term="overhead").text
    assert "start-up budget" in overhead and "10 %" not in overhead
    assert table.one("td", data_total_bytes=True).text == "633 GB"
    # the stacked bar draws one segment per term held on the GPUs
    assert len(page.one("svg", **{"class": "stacked-bar"}).select("rect")) == len(
        [r for r in table.select("tr", data_term=True) if "data-host" not in r.attrs]
    )


def test_matrix_fills_only_the_combinations_that_apply(client, seed_site):
    _, page = _get(client, GLM + "?show=precision-body")

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
        assert len(response.content) < 60_000  # the default page: closed chapters load their bodies when opened
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


def test_long_blocks_few_readers_open_load_when_scrolled_to_and_link_to_the_page_without_javascript(client, seed_site):
    _, page = _get(client, GLM)
    placeholders = {d.attrs["id"]: d for d in page.select("div", data_deferred=True)}
    # GLM-5.3-Flash's ranking has no more rows than shown; its facts' tables wait in their disclosures
    chapters = {"precision-body", "context-body", "local-cards-body", "local-macs-body"}  # in their closed chapters
    assert set(placeholders) == {"providers", "builds", "faq", "param-table", "fact-table"} | chapters
    assert not page.select("table", id="matrix") and not page.select("table", id="local-macs")
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
    # a chapter's body loads when the chapter is opened, in the page's state; shown, the chapter is open
    chapter = next(d for d in lora.select("div", data_deferred=True) if d.attrs["id"] == "precision-body")
    assert chapter.attrs["hx-trigger"] == "intersect once" and "mode=lora" in chapter.attrs["hx-get"]
    body = _get(client, chapter.attrs["hx-get"], HX_Request="true")[1]
    assert body.one("div", id="precision-body").one("table", id="matrix")
    link = chapter.one("a").attrs["href"]
    assert link.endswith("show=precision-body#precision-body") and "mode=lora" in link
    opened = _get(client, link.split("#")[0])[1]
    assert "open" in opened.one("details", id="by-precision-more").attrs and opened.one("table", id="matrix")
    assert "open" not in opened.one("details", id="context-more").attrs


def test_the_page_leads_with_a_verdict_and_the_need_on_cards_the_api_and_markdown_say_the_same(client, seed_site):
    _, page = _get(client, GLM_FP16)

    assert page.one(data_glance_verdict="split").text == "Needs 8 GPUs: 8 × H200 NVL 141GB is the cheapest setup"
    cards = {li.attrs["data-gpu"]: (li.attrs["data-fit"], li.text) for li in page.select("li", data_fit=True)}
    # 633 GB: five H200 hold it; an H100 node of 8 does not; its sparse attention does not start on an MI300X
    assert cards["h200-sxm"] == ("split", "141 GB 5 cards H200 SXM")
    assert cards["h100-sxm"][0] == "no" and cards["mi300x"][0] == "no"
    assert list(cards) == ["rtx-4090", "l40s", "h100-sxm", "h200-sxm", "mi300x"]

    api = client.get("/api/v1/estimate", {"model": "zai-org/GLM-5.3-Flash", "precision": "fp16"}).json()
    glance = api["summary"]["glance"]
    assert (glance["verdict"], glance["verdict_gpu_name"], glance["verdict_gpus"]) == ("split", "H200 NVL 141GB", 8)
    assert {card["gpu"]: (card["fit"], card["cards"]) for card in glance["cards"]}["h200-sxm"] == ("split", 5)

    markdown = client.get("/en/models/zai-org/GLM-5.3-Flash.md", {"precision": "fp16"}).content.decode()
    assert "**Needs 8 GPUs: 8 × H200 NVL 141GB is the cheapest setup.**" in markdown
    assert "141 GB (H200 SXM): 5 cards" in markdown


def test_a_readers_own_machine_joins_the_cards(client, seed_site):
    _, page = _get(client, "/en/models/meta-llama/Llama-3.1-8B-Instruct/?rig=rtx-3090&rig_gpus=2")
    own = page.one("li", data_gpu="rtx-3090")
    assert "fit-own" in own.attrs["class"] and own.attrs["data-fit"] == "runs"
    assert own.text.endswith("yours: 2 × RTX 3090")
