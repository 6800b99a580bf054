"""Data-parallel attention (calculator/estimation/engines/dp_attention.py, docs/methodology.md §4.11).

Under plain tensor parallelism vLLM and SGLang keep the whole MLA latent on every rank; with data-parallel attention
each GPU holds the attention whole and caches only its own requests. DeepSeek-V3 at 128K × 16 on 8 × H200 therefore
runs on one node as 8 attention ranks, where TP 8 overflows every GPU."""

from __future__ import annotations

from dataclasses import replace

import pytest

from calculator.estimation import Workload
from calculator.estimation.engines.dp_attention import offers_dp_attention, replicated_weight_bytes
from calculator.estimation.engines.launch import LaunchConfig, launch_command
from calculator.estimation.facts import spec_facts
from calculator.estimation.memory.estimate import estimate
from calculator.estimation.memory.fit import budget_bytes, fits_per_gpu, plan_on_instance
from calculator.estimation.plan.deployment import gpu_plan
from calculator.estimation.plan.placement import dp_attention_fit, rank_fit
from calculator.estimation.precision import PRECISIONS
from calculator.estimation.speed.estimate import max_concurrency, speed
from calculator.validation.kv import HUB
from models_catalog.specs import spec_from_recorded_folder
from pricing.gpus import gpu_by_slug

DEEPSEEK = "deepseek-ai/DeepSeek-V3"
LONG = Workload(precision="fp8", context=131072, concurrency=16, load_mtp_layers=False)


def _spec(name: str = DEEPSEEK):
    return spec_from_recorded_folder(HUB / name)


def _gpu(slug: str = "h200-sxm"):
    gpu = gpu_by_slug(slug)
    assert gpu is not None
    return gpu


def test_offered_for_mla_models_with_experts_under_vllm_and_sglang_only():
    deepseek = _spec()
    assert offers_dp_attention(deepseek, "vllm") and offers_dp_attention(deepseek, "sglang")
    assert not offers_dp_attention(deepseek, "llama.cpp") and not offers_dp_attention(deepseek, "ollama")
    assert not offers_dp_attention(_spec("Qwen/Qwen3-30B-A3B"), "vllm")  # experts, but grouped-query attention
    assert not offers_dp_attention(_spec("meta-llama/Llama-3.1-8B-Instruct"), "sglang")
    dense = Workload(precision="fp16", concurrency=8, attention_data_parallel=8, tensor_parallel=8)
    llama = _spec("meta-llama/Llama-3.1-8B-Instruct")
    assert estimate(llama, dense).total_bytes == estimate(llama, replace(dense, attention_data_parallel=1)).total_bytes


def test_what_each_engine_holds_whole_on_every_rank():
    """SGLang: the attention and the input embedding; vLLM: everything but the routed experts (DeepSeek-V3 FP8:
    about 11.4 B attention parameters in FP8 plus two BF16 vocabulary matrices of 0.93 B each)."""
    facts, fp8 = spec_facts(_spec()), PRECISIONS["fp8"]
    sglang, vllm = replicated_weight_bytes(facts, fp8, "sglang"), replicated_weight_bytes(facts, fp8, "vllm")
    assert 12.5e9 < sglang < 14.5e9
    assert 17.5e9 < vllm < 21e9  # + output head, dense MLP layers and shared experts
    counts = facts.counts_without_mtp
    assert sglang > facts.spec.components.attention * 1.0 and sglang > counts.embedding * 2


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_the_cache_is_held_once_and_the_attention_weights_once_per_rank(engine):
    spec, workload = _spec(), replace(LONG, engine=engine)
    alone = estimate(spec, workload)
    tp8 = estimate(spec, replace(workload, tensor_parallel=8))
    dp8 = estimate(spec, replace(workload, tensor_parallel=8, attention_data_parallel=8))
    assert tp8.kv_cache_bytes == 8 * alone.kv_cache_bytes  # the latent on every tensor-parallel rank
    assert dp8.kv_cache_bytes == alone.kv_cache_bytes  # each request's latent on one GPU
    replicated = next(t for t in dp8.terms if t.key == "replicated_weights")
    per_copy = replicated_weight_bytes(spec_facts(spec), PRECISIONS["fp8"], engine)
    assert replicated.bytes == 7 * per_copy and replicated.inputs["ranks"] == 8
    h200 = _gpu()
    assert not fits_per_gpu(tp8.total_bytes, 8, budget_bytes(h200, engine))
    assert fits_per_gpu(dp8.total_bytes, 8, budget_bytes(h200, engine))


def test_requests_spread_evenly_each_rank_sized_for_its_share_rounded_up():
    spec = _spec()
    odd = estimate(spec, replace(LONG, concurrency=9, tensor_parallel=8, attention_data_parallel=8))
    even = estimate(spec, replace(LONG, concurrency=16, tensor_parallel=8, attention_data_parallel=8))
    assert odd.kv_cache_bytes == even.kv_cache_bytes  # 9 requests over 8 ranks: 2 on each


def test_an_instance_runs_data_parallel_attention_only_where_tensor_parallel_ranks_overflow():
    spec, h200 = _spec(), _gpu()
    heads, kv = spec.num_attention_heads, spec.num_kv_heads
    fits, dp_fits = rank_fit(spec, LONG, h200), dp_attention_fit(spec, LONG, h200)
    plan = plan_on_instance(8, 7, heads, kv, fits, dp_fits)
    assert (plan.attention_data_parallel, plan.tensor_parallel, plan.pipeline_stages) == (8, 8, 1)
    short = replace(LONG, context=8192, concurrency=1)
    plain = plan_on_instance(8, 6, heads, kv, rank_fit(spec, short, h200), dp_attention_fit(spec, short, h200))
    assert (plain.attention_data_parallel, plain.tensor_parallel) == (1, 8)  # TP 8 holds: nothing changes
    assert dp_attention_fit(spec, replace(LONG, engine="llama.cpp"), h200) is None


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_the_plan_is_faster_than_the_narrow_split_it_replaces(engine):
    """The same 8 GPUs at TP 2 × 4 stages pass every request through four stages one after another, each reading
    its shard; with data-parallel attention each GPU reads the layers it holds whole and its own two requests'
    cache, in one stage."""
    spec, h200, workload = _spec(), _gpu(), replace(LONG, engine=engine)
    plan = gpu_plan(spec, workload, h200, instance_gpus=8)
    assert plan.attention_data_parallel == 8
    narrow = speed(spec, workload, h200, 2)
    assert plan.tokens_per_s_low is not None and narrow.per_request_tokens_per_s_low is not None
    assert plan.tokens_per_s_low > narrow.per_request_tokens_per_s_low


def test_the_batch_a_node_holds_counts_each_request_once():
    spec, h200 = _spec(), _gpu()
    tp8 = max_concurrency(spec, replace(LONG, tensor_parallel=8), h200, 8)
    dp8 = max_concurrency(spec, replace(LONG, attention_data_parallel=8), h200, 8)
    assert tp8 is not None and dp8 is not None and dp8 > 16 > tp8


def test_commands_spell_each_engines_layout():
    vllm = launch_command(
        LaunchConfig(
            "vllm",
            "deepseek-ai/DeepSeek-V3",
            131072,
            16,
            tensor_parallel=8,
            attention_data_parallel=8,
            gpu_memory_utilization=0.9,
        )
    ).argv
    assert vllm[vllm.index("--data-parallel-size") + 1] == "8" and "--enable-expert-parallel" in vllm
    assert "--tensor-parallel-size" not in vllm  # one engine per GPU
    assert vllm[vllm.index("--max-num-seqs") + 1] == "2"  # per engine: 16 requests over 8
    sglang = launch_command(
        LaunchConfig("sglang", "deepseek-ai/DeepSeek-V3", 131072, 16, tensor_parallel=8, attention_data_parallel=8)
    ).argv
    assert sglang[sglang.index("--tp") + 1] == "8" and sglang[sglang.index("--dp-size") + 1] == "8"
    assert "--enable-dp-attention" in sglang
    assert sglang[sglang.index("--max-running-requests") + 1] == "16"  # SGLang divides it over the ranks itself
