"""The continuous-batching simulation (calculator/estimation/speed/batching.py, docs/methodology.md §5.6): the schedule
a serving benchmark sees, step by step."""

from __future__ import annotations

from dataclasses import replace

import pytest

from calculator.estimation import Workload
from calculator.estimation.speed.batching import simulate
from calculator.estimation.speed.estimate import speed
from calculator.estimation.speed.load_test import LoadTest, lengths
from calculator.estimation.speed.schedulers import Scheduler
from calculator.estimation.speed.step_model import step_model
from pricing.gpus import gpu_by_slug
from tests.calculator.estimation_specs import hub_spec

SPEC = hub_spec("Qwen/Qwen3-8B")
_H100 = gpu_by_slug("h100-sxm")
assert _H100 is not None
H100 = _H100
WORKLOAD = Workload(precision="bf16", context=1024)
_STEP = step_model(SPEC, WORKLOAD, H100)
assert _STEP is not None
STEP = _STEP
ROOMY = Scheduler(max_num_seqs=1024, max_num_batched_tokens=8192, kv_tokens=400_000)


def test_one_request_alone_is_its_prefill_then_one_step_per_token():
    result = simulate(STEP, ROOMY, LoadTest(requests=1, prompt_tokens=512, output_tokens=65))
    prefill_step = STEP.seconds(0, 0, 512, 512 * 511 / 2)
    assert result.ttft_s.median == pytest.approx(prefill_step)
    assert result.steps == 65  # the prefill step samples the first token, 64 decode steps the rest
    assert result.tpot_s.median == pytest.approx((result.duration_s - prefill_step) / 64)
    # the per-token time agrees with the speed model's single-request decode at that context
    alone = speed(SPEC, Workload(precision="bf16", context=544), H100)
    assert 1 / result.tpot_s.median == pytest.approx(alone.decode_per_request, rel=0.1)


def test_more_requests_at_once_raise_throughput_and_each_request_waits_longer():
    one = simulate(STEP, ROOMY, LoadTest(requests=16, prompt_tokens=256, output_tokens=128, max_concurrency=1))
    many = simulate(STEP, ROOMY, LoadTest(requests=16, prompt_tokens=256, output_tokens=128, max_concurrency=16))
    assert many.total_tokens_per_s > 5 * one.total_tokens_per_s
    assert many.tpot_s.median > one.tpot_s.median
    assert one.peak_running == 1 and many.peak_running == 16


def test_the_sequence_limit_and_the_token_budget_bound_each_step():
    tight = Scheduler(max_num_seqs=8, max_num_batched_tokens=512, kv_tokens=400_000)
    result = simulate(STEP, tight, LoadTest(requests=40, prompt_tokens=1000, output_tokens=8))
    assert result.peak_running <= 8
    # 40 prompts of 1,000 tokens through 512 tokens a step take at least 79 steps
    assert result.steps >= 40 * 1000 // 512
    assert result.completed == 40 and result.output_tokens == 320


def test_a_small_kv_cache_preempts_and_recomputes_but_every_request_finishes():
    small = Scheduler(max_num_seqs=64, max_num_batched_tokens=8192, kv_tokens=4096)
    result = simulate(STEP, small, LoadTest(requests=32, prompt_tokens=200, output_tokens=300))
    assert result.completed == 32
    assert result.preemptions > 0
    roomy = simulate(STEP, ROOMY, LoadTest(requests=32, prompt_tokens=200, output_tokens=300))
    assert result.duration_s > roomy.duration_s


def test_a_request_larger_than_the_cache_is_refused():
    with pytest.raises(ValueError):
        simulate(STEP, Scheduler(16, 8192, kv_tokens=1000), LoadTest(requests=1, prompt_tokens=900, output_tokens=200))


def test_arrivals_at_a_rate_are_the_same_for_the_same_seed_and_spread_the_load():
    test = LoadTest(requests=50, prompt_tokens=300, output_tokens=100, request_rate=5.0, seed=3)
    first, second = simulate(STEP, ROOMY, test), simulate(STEP, ROOMY, test)
    assert first == second
    burst = simulate(STEP, ROOMY, LoadTest(requests=50, prompt_tokens=300, output_tokens=100))
    assert first.duration_s > burst.duration_s  # 50 requests at 5/s take about 10 s to arrive
    assert first.peak_running < burst.peak_running


def test_moe_experts_compute_at_a_share_of_the_dense_efficiency_under_load():
    moe = hub_spec("Qwen/Qwen3-30B-A3B")
    step = step_model(moe, WORKLOAD, H100)
    assert step is not None and step.expert_flops > 0 and step.moe_gemm_share < 1
    dense_only = step.params_flops * 8192 / step.prefill_flops
    assert step.seconds(0, 0, 8192, 0) > dense_only + step.expert_flops * 8192 / step.prefill_flops


def test_sglang_runs_a_prefill_batch_before_any_decode_and_reserves_the_outputs_it_expects():
    sglang = Scheduler(1024, 8192, kv_tokens=400_000, block_tokens=1, policy="sglang")
    burst = simulate(STEP, sglang, LoadTest(requests=8, prompt_tokens=256, output_tokens=64))
    assert burst.steps == 64  # one prefill batch for all eight, then 63 decode steps
    assert burst.ttft_s.p99 == pytest.approx(burst.ttft_s.median)
    # a pool that holds every prompt but not every answer: SGLang admits only what its reservation allows, where
    # vLLM's V1 engine admits every prompt and preempts later
    tight = 8 * 256 + 4 * 900
    reserving = simulate(STEP, Scheduler(1024, 8192, tight, 1, "sglang"), LoadTest(8, 256, 900))
    mixing = simulate(STEP, Scheduler(1024, 8192, tight, 1, "mixed"), LoadTest(8, 256, 900))
    assert reserving.peak_running < mixing.peak_running
    assert reserving.preemptions <= mixing.preemptions


def test_vllm_v0_computes_prompts_in_steps_of_their_own():
    v0 = Scheduler(256, 4096, kv_tokens=400_000, policy="prefill_first")
    roofline = replace(STEP, measured=None)  # one cost rule for both, whichever steps a CUDA graph would replay
    test = LoadTest(requests=2, prompt_tokens=512, output_tokens=32, request_rate=50.0, seed=1)
    result = simulate(roofline, v0, test)
    mixed = simulate(roofline, ROOMY, test)
    assert result.completed == mixed.completed == 2
    # the second prompt stalls the first request's decoding under V0: its time per token grows
    assert result.tpot_s.p99 >= mixed.tpot_s.p99


def test_datasets_spread_lengths_around_their_means():
    sharegpt = lengths(LoadTest(requests=400, prompt_tokens=220, output_tokens=200, dataset="sharegpt"))
    prompts = [p for p, _ in sharegpt]
    assert 200 <= sum(prompts) / len(prompts) <= 240
    assert max(prompts) > 2 * 220 and min(prompts) < 220 / 2
    ranged = lengths(LoadTest(requests=200, prompt_tokens=1000, output_tokens=100, dataset="random", range_ratio=0.5))
    assert all(500 <= p <= 1500 and 50 <= o <= 150 for p, o in ranged)
    assert len({p for p, _ in ranged}) > 50


def test_sharegpt_lengths_follow_the_measured_runs():
    # data/sharegpt_lengths.json: three vLLM ShareGPT runs, answers stopped at the end-of-sequence token
    test = LoadTest(requests=640, prompt_tokens=230, output_tokens=214, dataset="sharegpt", seed=7)
    drawn = lengths(test)
    assert drawn == lengths(test)  # the same seed draws the same requests
    assert drawn != lengths(replace(test, seed=8))
    prompts, outputs = [p for p, _ in drawn], [o for _, o in drawn]
    assert sum(outputs) / len(outputs) == pytest.approx(214, rel=0.01)
    assert sum(prompts) / len(prompts) == pytest.approx(230, rel=0.01)
    assert min(prompts) >= 1 and min(outputs) >= 1
    # the runs: 12–15 % of answers empty (one token), 18–21 % within 10 tokens, none above 4.9× the mean (a few
    # percent more here: the draw is rescaled to the stated mean)
    assert 0.14 <= sum(o <= 10 for o in outputs) / len(outputs) <= 0.26
    assert max(outputs) <= 6 * 214 and max(prompts) <= 6 * 230
    # most prompts are short, a few long (the runs: median 82 of a mean of 230)
    assert sorted(prompts)[len(prompts) // 2] < 0.7 * 230
