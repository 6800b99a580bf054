"""GPU counts, Apple-Silicon fit, tensor-parallel sizes and the inverse questions."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import pytest

from calculator.estimation import (
    GB,
    GIB,
    ApiPrice,
    TrafficMix,
    Workload,
    api_cost_per_million_output,
    apple_fit,
    break_even,
    cost_per_hour,
    cost_per_million_tokens,
    cost_per_month,
    estimate,
    gpus_needed,
    max_concurrency,
    max_context,
    reference_gpus_needed,
    run_count,
    speed,
    units_needed,
    usable_bytes,
)
from calculator.estimation.memory.fit import gpus_to_run, per_gpu_overhead_bytes, tensor_parallel_degrees
from calculator.estimation.plan.deployment import PlannedGpu
from pricing.gpus import PrefillRun
from tests.calculator.estimation_specs import hub_spec, llama_31_8b


@dataclass(frozen=True)
class Gpu:
    """A GPU record with only the figures these tests set; the rest as a catalog row without them reads."""

    slug: str
    name: str
    memory_bytes: int
    memory_bandwidth_gbps: float | None = None
    bf16_dense_tflops: float | None = None
    fp8_dense_tflops: float | None = None
    capacity_bytes: int = 0  # what the runtime reports; tests give round figures
    vendor: str = ""
    segment: str = ""
    form_factor: str | None = None
    fp16_tensor_dense_tflops: float | None = None
    fp4_dense_tflops: float | None = None
    prefill_run: PrefillRun | None = None


# gpus.json h100-sxm; CUDA reports 85,045,477,376 bytes (gpu-capacity.json), here rounded to 85 GB
H100: PlannedGpu = Gpu("h100-sxm", "NVIDIA H100 SXM 80GB", 80 * GB, 3350, 989, 1979, capacity_bytes=85 * GB)
H100_BUDGET = 85 * GB * 9 // 10  # vLLM at --gpu-memory-utilization 0.9


def test_gpus_needed_fills_each_gpu_to_90_percent_of_what_the_runtime_reports():
    assert usable_bytes(85 * GB) == H100_BUDGET == 76_500_000_000
    assert gpus_needed(H100_BUDGET, H100) == 1
    assert gpus_needed(H100_BUDGET + 1, H100) == 2
    assert gpus_needed(0, H100) == 1
    assert units_needed(3 * H100_BUDGET, H100_BUDGET) == 3


def test_llama_cpp_fills_the_whole_gpu_because_its_need_carries_the_fit_margin():
    # overhead.py counts llama.cpp's 1 GiB auto-fit margin in the need; vLLM leaves 10 % for CUDA graphs and peaks
    assert usable_bytes(85 * GB, "llama.cpp") == 85 * GB
    assert gpus_needed(80 * GB, H100, "llama.cpp") == 1
    assert gpus_needed(80 * GB, H100, "vllm") == 2


def test_the_reference_rule_counts_90_percent_of_the_nameplate():
    assert reference_gpus_needed(72 * GB, 80 * GB) == 1
    assert reference_gpus_needed(72 * GB + 1, 80 * GB) == 2
    assert reference_gpus_needed(0, 80 * GB) == 1


def test_a_need_beyond_one_node_runs_on_whole_nodes():
    # 700 GB on H100: the memory needs 10, an engine runs two nodes of 8
    assert gpus_needed(700 * GB, H100) == 10
    assert run_count(700 * GB, H100) == 16
    assert run_count(500 * GB, H100) == gpus_needed(500 * GB, H100) == 7


def test_tensor_parallel_degrees_split_the_heads_evenly_within_a_node():
    # 64 heads, 8 KV heads: 1, 2, 4, 8; 64 heads with 4 KV heads replicate them at 8; 40 heads: 1, 2, 4, 5, 8
    assert tensor_parallel_degrees(64, 8) == (1, 2, 4, 8)
    assert tensor_parallel_degrees(64, 4) == (1, 2, 4, 8)
    assert tensor_parallel_degrees(40, 8) == (1, 2, 4, 8)
    assert tensor_parallel_degrees(40, 40) == (1, 2, 4, 5, 8)


def test_a_count_within_a_node_runs_as_counted_and_beyond_on_whole_nodes():
    # docs/methodology.md §4.9: clouds rent multi-node GPUs by the node of 8
    assert [gpus_to_run(n) for n in (1, 5, 8, 9, 10, 16, 17)] == [1, 5, 8, 16, 16, 16, 24]


def test_apple_fit_gives_the_wired_limit_to_set_when_the_default_is_too_small():
    ram = 128 * GIB
    # above the default working set (~84 % of 128 GiB, docs/methodology.md §4.5), below RAM minus macOS's share
    need = 117 * GB
    result = apple_fit(need, ram)
    assert not result.fits_default and result.fits_after_raise
    assert result.wired_limit_mb is not None and result.wired_limit_mb * 2**20 >= need
    assert result.command == f"sudo sysctl iogpu.wired_limit_mb={result.wired_limit_mb}"


def test_apple_fit_does_not_suggest_raising_when_nothing_would_fit():
    result = apple_fit(300 * GB, 128 * GIB)
    assert not result.fits_after_raise and result.command is None


@pytest.mark.parametrize(
    ("ram_gib", "raised_gib"),
    # the settings people report: 12288 on 16 GiB (instructlab), 57344 on 64, 114688 on 128 (antirez/ds4#893),
    # about 180000 on 192; no tool leaves more than 16 GiB (docs/methodology.md §4.5)
    [(16, 12), (24, 20), (32, 28), (64, 56), (96, 84), (128, 112), (192, 176), (512, 496)],
)
def test_raising_the_limit_leaves_macos_an_eighth_between_4_and_16_gib(ram_gib, raised_gib):
    assert apple_fit(0, ram_gib * GIB).max_raised_limit_bytes == raised_gib * GIB


def test_a_16_gb_mac_can_raise_its_limit_past_the_default():
    """Before, the reserve was at least 8 GiB: 16 GiB − 8 was below macOS's own 10.67 GiB, so nothing above the
    default could ever be raised into."""
    result = apple_fit(11 * GIB + GIB // 2, 16 * GIB)
    assert not result.fits_default and result.fits_after_raise and result.wired_limit_mb == 12288


def test_max_context_is_the_largest_that_fits_and_one_more_does_not():
    spec = llama_31_8b()
    workload = Workload()
    best = max_context(spec, workload, H100)
    assert 0 < best < 131_072 or best == 131_072
    budget = H100_BUDGET
    assert estimate(spec, Workload(context=best)).total_bytes <= budget
    if best < spec.max_context:
        assert estimate(spec, Workload(context=best + 1)).total_bytes > budget


def test_max_concurrency_answers_how_many_requests_of_a_context_fit():
    spec = hub_spec("Qwen/Qwen3-32B")
    workload = Workload(context=16_000)
    most = max_concurrency(spec, workload, H100, gpu_count=2)
    assert most >= 1
    # two GPUs hold the total and the second GPU's own start-up budget (fit.gpus_needed)
    held = estimate(spec, Workload(context=16_000, concurrency=most))
    assert held.total_bytes + per_gpu_overhead_bytes(held) <= 2 * H100_BUDGET
    more = estimate(spec, Workload(context=16_000, concurrency=most + 1))
    assert more.total_bytes + per_gpu_overhead_bytes(more) > 2 * H100_BUDGET


def test_model_that_does_not_fit_has_no_context():
    assert max_context(hub_spec("deepseek-ai/DeepSeek-V3"), Workload(), H100) == 0


def test_decode_speed_is_bandwidth_bound_at_batch_one():
    result = speed(llama_31_8b(), Workload(context=1024), H100)
    assert result.bound == "memory"
    # 16 GB of weights read per token over 3.35 TB/s at 50–80 % efficiency: roughly 100–170 tokens/s
    assert 90 < result.decode_tokens_per_s_low < result.decode_tokens_per_s_high < 180
    assert result.prefill_tokens_per_s and result.prefill_tokens_per_s > 1000


def test_moe_decode_reads_only_the_experts_a_step_touches():
    spec = hub_spec("Qwen/Qwen3-30B-A3B")
    one = speed(spec, Workload(context=1024), H100)
    assert one.bytes_read_per_step < 0.25 * 2 * spec.params_total


def test_speed_is_unknown_without_bandwidth():
    result = speed(llama_31_8b(), Workload(), Gpu("x", "X", 80 * GB, capacity_bytes=85 * GB))
    assert result.decode_tokens_per_s_low is None and result.bound == "unknown"


def test_cost_per_hour_month_and_million_tokens():
    # seed: RunPod 8x MI300X at $2.39/GPU-h, 5 needed → you pay for 8: $19.12/h, $13,958/month
    hourly = cost_per_hour(2.39, 8)
    assert round(hourly, 2) == 19.12
    assert round(cost_per_month(hourly)) == 13_958
    assert cost_per_million_tokens(hourly, 1000) == pytest.approx(19.12 / 3.6)
    assert cost_per_million_tokens(hourly, None) is None


GLM_API = ApiPrice(  # api-prices.json z-ai/glm-5.3-flash (list and introductory prices from seed 001)
    input_per_million_usd=0.15,
    cached_input_per_million_usd=0.03,
    output_per_million_usd=0.50,
    intro_input_per_million_usd=0.075,
    intro_cached_input_per_million_usd=0.015,
    intro_output_per_million_usd=0.25,
    intro_ends=date(2026, 9, 9),
)


def test_api_price_uses_the_introductory_offer_only_until_it_ends():
    mix = TrafficMix(input_tokens_per_output_token=3.0, cached_input_share=0.5)
    assert api_cost_per_million_output(GLM_API, mix, date(2026, 9, 9)) == pytest.approx(0.25 + 3 * 0.045)
    assert api_cost_per_million_output(GLM_API, mix, date(2026, 9, 10)) == pytest.approx(0.50 + 3 * 0.09)


def test_break_even_volume_is_monthly_cost_over_api_price():
    result = break_even(13_958.0, GLM_API, TrafficMix(), date(2026, 11, 13), tokens_per_second=500)
    per_million = 0.50 + 3 * 0.15
    assert result.break_even_output_tokens_per_month == pytest.approx(13_958 / per_million * 1e6)
    assert result.self_host_capacity_tokens_per_month == 500 * 730 * 3600
    assert result.self_host_can_reach_break_even is False
    assert result.intro_price_applied is False


def test_raised_wired_limit_is_never_below_the_need_even_next_to_the_cap():
    ram = 128 * GIB
    cap = apple_fit(0, ram).max_raised_limit_bytes
    for need in (cap, cap - 1, cap - 2**19, cap - 2**20 - 1, cap - 3 * 2**29):
        fitted = apple_fit(need, ram)
        if fitted.wired_limit_mb is not None:
            assert fitted.wired_limit_mb * 2**20 >= need
            assert fitted.wired_limit_mb * 2**20 <= ram


def test_mla_latent_replicated_on_every_gpu_is_checked_per_gpu():
    # §3.2, §4.9: DeepSeek-V3's latent cache does not shrink with TP, so the per-GPU share counts it whole
    from calculator.estimation import Workload, estimate
    from calculator.estimation.memory.fit import fits_per_gpu
    from tests.calculator.estimation_specs import hub_spec

    spec = hub_spec("deepseek-ai/DeepSeek-V3")
    workload = Workload(precision="fp8", context=131_072, concurrency=8, tensor_parallel=8)
    total = estimate(spec, workload).total_bytes
    assert fits_per_gpu(total, 8, 141 * 10**9) == (-(-total // 8) <= 141 * 10**9 * 9 // 10)
    assert estimate(spec, workload).bytes_of("kv_cache") == 8 * estimate(
        spec, Workload(precision="fp8", context=131_072, concurrency=8)
    ).bytes_of("kv_cache")


def test_an_instance_runs_with_every_gpu_tensor_times_pipeline_parallel():
    """The plan for the GPUs an instance sells: the widest TP degree the heads allow on as many of them as the
    memory needs or more, stages for the rest (vLLM --pipeline-parallel-size, SGLang --pp-size)."""
    from calculator.estimation.memory.fit import plan_on_instance

    def _split(plan):
        return plan.tensor_parallel, plan.pipeline_stages, plan.gpus_run

    assert _split(plan_on_instance(8, 5, attention_heads=64, kv_heads=8)) == (8, 1, 8)
    assert _split(plan_on_instance(5, 5, attention_heads=64, kv_heads=8)) == (1, 5, 5)  # 5 does not divide 64 heads
    assert _split(plan_on_instance(6, 5, attention_heads=64, kv_heads=8)) == (2, 3, 6)
    assert _split(plan_on_instance(4, 3, attention_heads=64, kv_heads=4)) == (4, 1, 4)
    assert _split(plan_on_instance(6, 6, attention_heads=96, kv_heads=8)) == (2, 3, 6)  # 8 KV heads: no TP 3 or 6
    assert _split(plan_on_instance(7, 6, attention_heads=64, kv_heads=8)) == (2, 3, 6)  # one of 7 GPUs idle
    plan = plan_on_instance(7, 7, attention_heads=28, kv_heads=4)
    assert (plan.tensor_parallel, plan.pipeline_stages, plan.gpus_run) == (1, 7, 7)


@pytest.mark.parametrize(
    ("ram_gib", "logged_mib"),
    # recommendedMaxWorkingSetSize logged by llama.cpp and Ollama up to macOS 15 (docs/methodology.md §4.5)
    [(8, 5461.34), (16, 10922.67), (32, 21845.34), (64, 49152.0), (96, 73728.0)],
)
def test_up_to_macos_15_the_gpu_gets_two_thirds_up_to_32_gb_and_three_quarters_above(ram_gib, logged_mib):
    assert apple_fit(0, ram_gib * GIB, "15").default_limit_bytes / 2**20 == pytest.approx(logged_mib, abs=1)


def test_macos_26_raised_the_default_share():
    # llmfit PR #754: 11.84 GiB of a 16 GiB M3; antirez/ds4 PR #893: 107.52 GiB of 128 GiB on two Macs
    assert apple_fit(0, 16 * GIB, "26").default_limit_bytes / GIB == pytest.approx(11.84, abs=0.01)
    assert apple_fit(0, 128 * GIB, "26").default_limit_bytes / GIB == pytest.approx(107.52, abs=0.01)
    # between the two logged sizes the share is interpolated, never below macOS 15's
    for gib in (24, 32, 36, 48, 64, 96):
        assert apple_fit(0, gib * GIB, "26").default_limit_bytes > apple_fit(0, gib * GIB, "15").default_limit_bytes


def test_a_need_above_macos_15s_default_but_below_26s_raises_the_limit_only_on_15():
    need = 104 * GB  # GLM-5.3-Flash's 2bit-lite build with 8K of context (the second reference document)
    older, newer = apple_fit(need, 128 * GIB, "15"), apple_fit(need, 128 * GIB, "26")
    assert not older.fits_default and older.fits_after_raise and older.wired_limit_mb * 2**20 >= need
    assert newer.fits_default and newer.command is None
