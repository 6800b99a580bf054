"""The model page's state: the fragment and permalinks, bad values, context units, fine-tuning settings, formats,
Macs and the hardware pickers (the site: tests/calculator/model_page_site.py)."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.calculator.model_page_site import GLM, GLM_DE, write_seed_site
from tests.calculator.model_page_site import cells as _cells
from tests.calculator.model_page_site import get_page as _get
from tests.support import module_rows

pytestmark = [pytest.mark.django_db, pytest.mark.xdist_group("model-page")]

_site_rows = module_rows(write_seed_site)


@pytest.fixture
def seed_site(_site_rows, db):
    """The shipped catalog, the seed offers and the API prices: written once for the module, rolled back to after
    each test."""


def test_a_128_gb_mac_runs_the_smallest_build_and_a_raised_limit_never_falls_short(client, seed_site):
    _, page = _get(client, GLM + "?show=local-cards-body,local-macs-body")

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


@pytest.mark.parametrize("path", [GLM, GLM_DE, GLM + "?context=lots"])
def test_token_counts_are_written_one_way_with_a_capital_k(client, seed_site, path):
    """The picker, the help under the field and the notice for a value not understood all write "128K"
    (calculator.state.tokens_label), never "128k" beside it."""
    response, page = _get(client, path)
    text = re.sub(r"<[^>]+>", " ", response.content.decode())
    assert "128K" in page.one(id="f-context-help").text
    assert re.findall(r"\b\d+k\b", text) == []


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
    _, page = _get(client, (GLM if lang == "en" else GLM_DE) + "?mode=lora&show=precision-body")
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


@pytest.mark.parametrize("precision", ["w8a8", "gptq", "q6_k", "q5_k_m", "iq4_xs", "q2_k", "mlx-8bit", "mlx-3bit"])
def test_every_format_an_engine_loads_is_a_choice_on_the_page_and_in_the_api(client, seed_site, precision):
    page = _get(client, GLM)[1]
    offered = {o.attrs["value"] for o in page.one("select", name="precision").select("option")}
    assert precision in offered
    response = client.get("/api/v1/estimate", {"model": "zai-org/GLM-5.3-Flash", "precision": precision})
    assert response.status_code == 200 and response.json()["setting"]["precision"] == precision


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_macos_version_sets_the_gpus_default_share_and_so_whether_the_sysctl_is_needed(client, seed_site, lang):
    base, macs = GLM if lang == "en" else GLM_DE, "show=local-macs-body"
    _, page = _get(client, f"{base}?{macs}")
    options = [o.attrs["value"] for o in page.one("select", id="f-macos").select("option")]
    assert options == ["15", "26"]
    assert page.one("select", id="f-macos").one("option", selected=True).attrs["value"] == "15"
    assert page.one("tr", data_mac_gib="128").attrs["data-verdict"] == "raise"
    _, newer = _get(client, f"{base}?macos=26&{macs}")
    row = newer.one("tr", data_mac_gib="128")
    assert row.attrs["data-verdict"] == "fits" and not row.select("code", data_sysctl=True)
    assert newer.one("a", id="permalink").attrs["href"].endswith("macos=26")
    _, runs_on = _get(client, base + "runs-on/mac-128/")
    assert runs_on.one(data_sysctl=True) and runs_on.one("span", data_macos_26=True)
