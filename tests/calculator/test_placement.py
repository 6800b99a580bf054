"""Every priced split holds its share on every GPU (calculator/estimation/plan/placement.py, fit.plan_on_instance).

vLLM and SGLang keep the whole MLA latent on every tensor-parallel rank: DeepSeek-V3 at 128K × 16 once showed
8 × H200 "run as TP 8", where each rank would hold the full 147 GB latent beside its eighth of the weights."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import call_command

from calculator.estimation import Mode, Workload
from calculator.estimation.memory.estimate import estimate
from calculator.estimation.memory.fit import (
    budget_bytes,
    fits_per_gpu,
    gpus_needed,
    per_gpu_overhead_bytes,
    plan_on_instance,
)
from calculator.estimation.plan.placement import rank_fit
from calculator.validation.kv import HUB
from models_catalog import services
from models_catalog.specs import spec_from_recorded_folder
from pricing.gpus import gpu_by_slug
from tests.calculator.estimate_cli import run
from tests.models_catalog.html import parse

DEEPSEEK = "deepseek-ai/DeepSeek-V3"
LONG = Workload(precision="fp8", context=131072, concurrency=16)


def _gpu(slug: str):
    gpu = gpu_by_slug(slug)
    assert gpu is not None
    return gpu


def test_tp8_would_overflow_each_h200_so_the_plan_runs_fewer_ranks_and_more_stages():
    spec, h200 = spec_from_recorded_folder(HUB / DEEPSEEK), _gpu("h200-sxm")
    assert gpus_needed(estimate(spec, LONG).total_bytes, h200) == 7  # the count on the whole need (918 GB)
    at_tp8 = estimate(spec, Workload(precision="fp8", context=131072, concurrency=16, tensor_parallel=8))
    assert not fits_per_gpu(at_tp8.total_bytes, 8, budget_bytes(h200))
    fits = rank_fit(spec, LONG, h200)
    plan = plan_on_instance(8, 8, spec.num_attention_heads, spec.num_kv_heads, fits)
    assert plan.tensor_parallel < 8 and plan.gpus_run == 8 and fits is not None
    assert fits(plan.tensor_parallel, plan.gpus_run)
    # without the per-rank check the old answer comes back
    assert plan_on_instance(8, 8, spec.num_attention_heads, spec.num_kv_heads).tensor_parallel == 8


@pytest.mark.parametrize(
    ("hub_id", "workload"),
    [
        (DEEPSEEK, LONG),
        (DEEPSEEK, Workload(precision="fp8")),
        ("zai-org/GLM-5.3-Flash", Workload(precision="fp16")),
        ("meta-llama/Llama-3.1-8B-Instruct", Workload(context=131072, concurrency=32)),
        ("Qwen/Qwen3-30B-A3B", Workload(context=32768, concurrency=64)),
    ],
)
@pytest.mark.parametrize("slug", ["h100-sxm", "h200-sxm", "mi300x", "b200"])
def test_every_split_on_every_instance_size_fits_each_gpu(hub_id, workload, slug):
    spec, gpu = spec_from_recorded_folder(HUB / hub_id), _gpu(slug)
    breakdown = estimate(spec, workload)
    need = gpus_needed(breakdown.total_bytes, gpu, workload.engine, per_gpu_overhead_bytes(breakdown))
    if need > 8:
        return
    fits = rank_fit(spec, workload, gpu)
    assert fits is not None
    for instance in range(need, 9):
        plan = plan_on_instance(instance, need, spec.num_attention_heads, spec.num_kv_heads, fits)
        assert plan.gpus_run <= instance and fits(plan.tensor_parallel, plan.gpus_run), (instance, plan)


def test_layer_split_engines_and_fine_tuning_repeat_nothing_per_gpu():
    spec, h200 = spec_from_recorded_folder(HUB / DEEPSEEK), _gpu("h200-sxm")
    assert rank_fit(spec, Workload(precision="q4_k_m", engine="llama.cpp"), h200) is None
    assert rank_fit(spec, Workload(mode=Mode.LORA, precision="fp16"), h200) is None


@pytest.mark.django_db
def test_the_page_prices_runs_and_launches_the_split_that_fits(client):
    """DeepSeek-V3 at 128K × 16 on 8 × H200: TP 8 overflows each rank; the engine runs data-parallel attention over
    the 8 GPUs instead (each caches its own requests), and the row, its command and its speed say so."""
    services.model_import_offline(Path(services.__file__).resolve().parent / "data" / "hub", only=[DEEPSEEK])
    call_command("loaddata", "seed_offers_2026-11-13", verbosity=0)
    page = parse(client.get(f"/en/models/{DEEPSEEK}/?context=131072&concurrency=16").content)
    h200 = page.one("table", id="ranking").one("tr", data_gpu_family="h200-nvl-141gb")
    assert h200.one("span", data_plan=True).attrs["data-plan"] == "dp8"
    assert "data-parallel attention" in h200.text
    cheapest = page.one("tr", data_cheapest="true").one("span", data_plan=True).attrs["data-plan"]
    command = page.one("pre", id="cmd-cloud").text
    if cheapest.startswith("dp"):
        ranks = int(cheapest[2:])
        assert f"--data-parallel-size {ranks} --enable-expert-parallel" in command
        assert "--tensor-parallel-size" not in command and "--pipeline-parallel-size" not in command
        assert f"--max-num-seqs {-(-16 // ranks)}" in command  # per engine: vLLM runs one per rank
    else:
        tp, pp = (int(part[2:]) for part in cheapest.split("-"))
        assert (f"--tensor-parallel-size {tp}" in command) == (tp > 1)
        assert f"--pipeline-parallel-size {pp}" in command


def test_the_command_line_runs_the_split_of_exactly_the_gpus_it_counts():
    """DeepSeek-V3 at 128K × 16 on H200: 7 hold the 918 GB; 7 split no heads evenly, so the command line (which names no
    instance) runs them as 7 pipeline stages, as a page row on an instance of 7 would, and its vLLM command says so.
    An instance of 8 runs data-parallel attention instead (the ranking's rows, tested above)."""
    data = run(DEEPSEEK, "--context", "128K", "--concurrency", "16", "--gpu", "h200-sxm", "--launch", "vllm")
    row = data["gpus"][0]
    assert (row["count"], row["tensor_parallel"], row["pipeline_parallel"]) == (7, 1, 7)
    assert row["attention_data_parallel"] == 1 and row["engine_gpus"] == 7
    command = data["launch"]["command"]
    assert "--pipeline-parallel-size 7" in command and "--tensor-parallel-size" not in command
