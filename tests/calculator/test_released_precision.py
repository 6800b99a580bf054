"""The precision a model ships in is the default everywhere: the model page's headline, the API, the CLI, the GPU
page's first column and the comparison name the same precision and the same need.

gpt-oss-120b ships MXFP4 experts (config.json's quantization_config), DeepSeek-V3 FP8 (config.json), GLM-5.3-Flash
FP8 (the recorded config is partial; the reference page names the FP8 repository), Llama-3.1-8B and Qwen3-30B-A3B
BF16. Their BF16 figures stay one choice away (``?precision=fp16``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import call_command

from calculator.estimation import Workload, estimate
from calculator.estimation.engines.builds import released_precision
from calculator.estimation.plan.ranking import rank
from calculator.formatting import format_gb
from calculator.views_hardware import MAX_COMPARED as COMPARED
from models_catalog import services
from models_catalog.specs import spec_from_recorded_folder
from pricing.gpus import load_gpus
from pricing.offers import OfferRecord
from tests.calculator.estimate_cli import run
from tests.models_catalog.html import parse
from tests.support import module_rows

SHIPPED = Path(services.__file__).resolve().parent / "data" / "hub"

pytestmark = [pytest.mark.django_db, pytest.mark.xdist_group("released-precision")]

RELEASED = {
    "openai/gpt-oss-120b": "mxfp4",
    "deepseek-ai/DeepSeek-V3": "fp8",
    "zai-org/GLM-5.3-Flash": "fp8",
    "meta-llama/Llama-3.1-8B-Instruct": "fp16",
    "Qwen/Qwen3-30B-A3B": "fp16",
}


def _write_site() -> None:
    services.model_import_offline(SHIPPED, only=list(RELEASED))
    call_command("loaddata", "seed_offers_2026-11-13", verbosity=0)


_site_rows = module_rows(_write_site)


@pytest.fixture
def site(_site_rows, db):
    """Five models and the seed offers: written once for the module, rolled back to after each test."""


@pytest.mark.parametrize(
    ("native", "precision"),
    [("bf16", "fp16"), ("fp16", "fp16"), ("fp32", "fp16"), ("", "fp16"), ("fp8", "fp8"), ("MXFP4", "mxfp4")],
)
def test_released_precision_of_each_native_dtype(native, precision):
    assert released_precision(native) == precision


@pytest.mark.parametrize("hub_id", RELEASED)
def test_page_api_and_cli_default_to_the_released_precision_with_one_need(client, site, hub_id):
    precision = RELEASED[hub_id]
    api = client.get(f"/api/v1/estimate?model={hub_id}").json()
    cli = run(hub_id)
    page = parse(client.get(f"/en/models/{hub_id}/").content)

    assert api["setting"]["precision"] == cli["workload"]["precision"] == precision
    assert api["breakdown"]["total_bytes"] == cli["total_bytes"]
    assert page.one(data_card="need").text.replace("\xa0", " ") == format_gb(cli["total_bytes"]).replace("\xa0", " ")
    assert page.one("select", name="precision").one("option", selected=True).attrs["value"] == precision
    # the BF16 figures stay one choice away, and differ where the release is narrower
    fp16 = client.get(f"/api/v1/estimate?model={hub_id}&precision=fp16").json()["breakdown"]["total_bytes"]
    assert (fp16 > 1.8 * cli["total_bytes"]) is (precision != "fp16")


def test_gpu_page_and_comparison_lead_with_the_released_precision(client, site):
    gpu = parse(client.get("/en/gpus/h100-sxm/").content)
    rows = {r.attrs["data-model"]: r for r in gpu.one("table", id="models-on-gpu").select("tr", data_model=True)}
    for hub_id, precision in RELEASED.items():
        name = hub_id.split("/")[1]
        assert rows[name].select("td")[0].attrs["data-precision"] == precision

    compared = list(RELEASED)[:COMPARED]
    compare = parse(client.get(f"/en/compare/?models={','.join(compared)}").content)
    cells = compare.one("tr", data_row="released").select("td")
    for cell, hub_id in zip(cells, compared, strict=True):
        need = format_gb(run(hub_id)["total_bytes"]).replace("\xa0", " ")
        assert cell.text.replace("\xa0", " ").startswith(need), (hub_id, cell.text)


@pytest.mark.parametrize("engine", ["llama.cpp", "ollama", "vllm", "sglang", "mlx"])
def test_every_engine_that_loads_gpt_oss_as_released_says_nothing_against_it(engine):
    # llama.cpp has had an MXFP4 type since "llama : add gpt-oss" (ggml-org/llama.cpp#15091), Ollama runs llama.cpp
    spec = spec_from_recorded_folder(SHIPPED / "openai" / "gpt-oss-120b")
    breakdown = estimate(spec, Workload(precision="mxfp4", engine=engine))
    assert not [w for w in breakdown.warnings if "does not load" in w]
    assert 60e9 < breakdown.total_bytes < 80e9


def test_comparison_without_a_precision_puts_each_model_at_its_own_release(client, site):
    """gpt-oss first must not put Llama (dense, BF16) and GLM (FP8) at MXFP4: each column is its model's headline."""
    ids = ["openai/gpt-oss-120b", "zai-org/GLM-5.3-Flash", "meta-llama/Llama-3.1-8B-Instruct"]
    compare = parse(client.get(f"/en/compare/?models={','.join(ids)}").content)

    needs = [int(cell.attrs["data-bytes"]) for cell in compare.one("tr", data_row="need").select("td")]
    assert needs == [run(hub_id)["total_bytes"] for hub_id in ids]
    assert compare.one("caption").text.startswith("Each model as released")
    # the permalinks to each model's page carry no precision: there, too, the model's own release is the default
    links = [a.attrs["href"] for a in compare.one("thead").select("a")]
    assert links == [f"/en/models/{hub_id}/" for hub_id in ids]
    int4 = parse(client.get(f"/en/compare/?models={','.join(ids)}&precision=int4").content)
    assert int4.one("caption").text.startswith("At INT4")
    assert [int(c.attrs["data-bytes"]) for c in int4.one("tr", data_row="need").select("td")] == [
        run(hub_id, "--precision", "int4")["total_bytes"] for hub_id in ids
    ]


def test_faq_counts_gpus_at_the_released_precision(client, site):
    answers = {
        dd.attrs["data-faq"]: dd.text.replace("\xa0", " ")
        for dd in parse(client.get("/en/models/openai/gpt-oss-120b/faq/").content).select("dd", data_faq=True)
    }
    released = format_gb(run("openai/gpt-oss-120b")["total_bytes"]).replace("\xa0", " ")
    assert answers["count"].startswith("At MXFP4 as released, with 8K tokens of context and 1 concurrent request:")
    assert "259 GB" not in answers["count"] and "259 GB" not in answers["h100"]
    # 75 GB fits the 76.5 GB vLLM fills of the 85.0 GB CUDA reports for an H100 (it did not fit 90 % of 80 GB)
    assert answers["h100"] == f"Yes, at MXFP4 as released (about {released})."
    llama = parse(client.get("/en/models/meta-llama/Llama-3.1-8B-Instruct/faq/").content)
    assert llama.one("dd", data_faq="count").text.startswith("At FP16 with 8K tokens")  # a 16-bit release


def test_can_it_run_never_answers_wider_than_the_release(client, site):
    """gpt-oss on a 128 GB Mac: MXFP4 as released fits as it is; FP16 is listed only, FP8 not at all (llama.cpp, the
    engine sized for a Mac, has no FP8 weights)."""
    page = parse(client.get("/en/models/openai/gpt-oss-120b/runs-on/mac-128/").content)
    verdict = page.one(id="verdict")
    assert verdict.attrs["data-fits"] == "true" and verdict.text.startswith("Yes, at MXFP4")
    assert "sysctl" not in verdict.text
    assert page.one("tr", data_option="fp16")  # still in the table
    assert page.select("tr", data_option="fp8") == []


def test_gpt_oss_at_32k_by_8_under_llama_cpp_fits_one_h100_as_cuda_reports_it(site):
    """75 GB: more than 90 % of the 80 GB on the box (72 GB), which counted 2 × H100, but llama.cpp fills what it
    needs of the 85.0 GB CUDA reports (its 1 GiB margin is in the need). The command line and the API say 1."""
    args = ("--context", "32K", "--concurrency", "8", "--engine", "llama.cpp", "--gpu", "h100-sxm")
    data = run("openai/gpt-oss-120b", *args)
    assert 72e9 < data["total_bytes"] < 80e9
    assert data["gpus"][0]["count"] == 1
    sold = OfferRecord("p", "P", "h100-sxm", "1-8x H100", (1, 2, 4, 8), 2.0)
    ranked = rank(data["total_bytes"], [sold], load_gpus(), engine="llama.cpp").cheapest
    assert ranked is not None and (ranked.gpus_needed, ranked.instance_gpus) == (1, 1)
