"""Deployment plans (calculator/estimation/plan/deployment.py): one object per workload and hardware that every surface
reads."""

from __future__ import annotations

from dataclasses import replace

import pytest

from calculator.estimation import GIB, Workload, apple_fit, budget_bytes, estimate, gpus_needed, speed
from calculator.estimation.engines.sourcing import weights_source
from calculator.estimation.memory.fit import per_gpu_overhead_bytes, plan_on_instance
from calculator.estimation.plan.deployment import Serving, cloud_launch, gpu_plan, mac_launch, mac_plan
from calculator.estimation.plan.placement import engine_plan, rank_fit
from pricing.gpus import gpu_by_slug
from tests.calculator.estimation_specs import hub_spec

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
DEEPSEEK = "deepseek-ai/DeepSeek-V3"


def _gpu(slug: str):
    gpu = gpu_by_slug(slug)
    assert gpu is not None
    return gpu


def test_a_plan_without_an_instance_runs_exactly_the_split_the_engine_needs():
    spec, h100 = hub_spec(DEEPSEEK), _gpu("h100-sxm")
    workload = Workload(precision="fp8")
    plan = gpu_plan(spec, workload, h100)
    breakdown = estimate(spec, workload)
    need = breakdown.total_bytes
    assert plan.need_bytes == need and plan.budget_bytes == budget_bytes(h100)
    # every GPU of the split holds vLLM's start-up budget for itself
    assert plan.gpus_needed == gpus_needed(need, h100, "vllm", per_gpu_overhead_bytes(breakdown)) > 8
    assert plan.gpus_needed >= gpus_needed(need, h100)
    assert plan.layout == engine_plan(spec, workload, h100, plan.gpus_needed)
    assert plan.instance_gpus == plan.gpus_run and plan.idle_gpus == 0
    assert plan.nodes == -(-plan.gpus_run // 8) and not plan.fits_one_node


def test_a_plan_on_an_instance_as_sold_bills_all_its_gpus_and_says_how_many_idle():
    spec, h200 = hub_spec(LLAMA), _gpu("h200-sxm")
    workload = Workload(context=131072, concurrency=64)
    needed = gpus_needed(estimate(spec, workload).total_bytes, h200)
    plan = gpu_plan(spec, workload, h200, instance_gpus=needed + 1)
    fits = rank_fit(spec, workload, h200)
    expected = plan_on_instance(needed + 1, needed, spec.num_attention_heads, spec.num_kv_heads, fits)
    assert plan.layout == expected and plan.instance_gpus == needed + 1
    assert plan.idle_gpus == needed + 1 - expected.gpus_run


def test_a_plans_speed_is_the_speed_at_its_tensor_parallel_degree():
    spec, h100 = hub_spec(LLAMA), _gpu("h100-sxm")
    workload = Workload(concurrency=8)
    plan = gpu_plan(spec, workload, h100, instance_gpus=2)
    found = speed(spec, workload, h100, plan.tensor_parallel)
    assert (plan.tokens_per_s_low, plan.tokens_per_s_high, plan.throughput_low) == (
        found.per_request_tokens_per_s_low,
        found.per_request_tokens_per_s_high,
        found.decode_tokens_per_s_low,
    )
    assert gpu_plan(spec, workload, replace(h100, memory_bandwidth_gbps=None)).tokens_per_s_low is None


@pytest.mark.parametrize(("macos", "verdict"), [("15", "raise"), ("26", "fits")])
def test_a_mac_plan_gives_the_verdict_and_the_sysctl_value_of_its_macos(macos, verdict):
    spec = hub_spec("Qwen/Qwen3-32B")
    workload = Workload(context=32768, concurrency=5, engine="mlx")
    plan = mac_plan(spec, workload, 128 * GIB, macos)
    assert plan.need_bytes == estimate(spec, workload).total_bytes
    assert plan.fit == apple_fit(plan.need_bytes, 128 * GIB, macos)
    # Qwen3-32B at BF16, 5 requests of 32K under MLX: 102 GiB, above macOS 15's 96 GiB, below macOS 26's 107.5 GiB
    assert plan.verdict == verdict
    assert (plan.wired_limit_mb is not None) == (verdict == "raise")


def test_commands_run_the_plans_split_and_say_nothing_without_a_build():
    spec, mi300x = hub_spec(LLAMA), _gpu("mi300x")
    plan = gpu_plan(spec, Workload(context=131072, concurrency=64), mi300x, instance_gpus=8)
    source = weights_source("vllm", LLAMA, "fp16", "fp16")
    command = cloud_launch(plan, source, Serving(131072, 64), "vllm")
    assert f"--tensor-parallel-size {plan.tensor_parallel}" in command or plan.tensor_parallel == 1
    assert "--gpu-memory-utilization 0.9" in command and "--max-num-seqs 64" in command
    assert cloud_launch(plan, weights_source("vllm", LLAMA, "fp16", "q4_k_m"), Serving(8192, 1), "vllm") == ""
    released = weights_source("mlx", LLAMA, "fp16", "fp16")
    fits = mac_plan(spec, Workload(engine="mlx"), 32 * GIB)
    assert fits.verdict == "fits" and mac_launch(fits, released, Serving(8192, 1)).startswith("mlx_lm.server")
    assert mac_launch(mac_plan(spec, Workload(engine="mlx"), 16 * GIB), released, Serving(8192, 1)) == ""
