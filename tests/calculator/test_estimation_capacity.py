"""Engine capacity: the KV-cache tokens and concurrency vLLM and SGLang report at start-up (docs/methodology.md
§4.1, §4.2, §4.8)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from calculator.estimation import GIB
from calculator.estimation.engines.releases import VLLM_RELEASES, vllm_batch_defaults, vllm_release
from calculator.estimation.memory.capacity import (
    EngineSettings,
    engine_capacity,
    kv_tokens_from_memory,
)
from pricing.gpus import gpu_by_slug
from tests.calculator.estimation_specs import hub_spec

H100_TOTAL = round(79.18 * GIB)  # what CUDA reports for an H100 80GB (§4.1 [S8])


def test_llama_31_8b_on_h100_leaves_51_gib_for_the_kv_cache_as_vllm_logs():
    # §4.1: 71.26 GiB usable − 14.99 weights − 4.76 activation − 0.13 non-torch = 51.38 GiB measured (a 2025
    # release of the 0.9–0.16 lines: the sampler's sort path, §4.12)
    settings = EngineSettings(
        gpu_memory_utilization=0.9, max_model_len=16000, precision="bf16", kv_dtype="bf16", release="0.10"
    )
    capacity = engine_capacity(hub_spec("meta-llama/Llama-3.1-8B-Instruct"), H100_TOTAL, settings)
    assert capacity.kv_cache_bytes / GIB == pytest.approx(51.38, rel=0.01)
    assert capacity.kv_cache_tokens % 16 == 0
    assert capacity.max_concurrency == pytest.approx(capacity.kv_cache_tokens / 16000)


def test_qwen3_14b_with_651_gib_of_kv_memory_reports_42656_tokens_and_130x():
    # LMCache issue #1739: 'Available KV cache memory: 6.51 GiB' → 'GPU KV cache size: 42,656 tokens', 1.30x at 32,768
    settings = EngineSettings(max_model_len=32768, kv_dtype="bf16")
    tokens, concurrency = kv_tokens_from_memory(hub_spec("Qwen/Qwen3-14B"), round(6.51 * GIB), settings)
    assert tokens == 42_656
    assert round(concurrency, 2) == 1.30


def test_gpt_oss_reports_tokens_per_layer_group_and_sliding_layers_need_few_blocks():
    # §4.8: 12 full + 12 sliding layers form two groups sharing blocks; a request needs cdiv(L, 16) full blocks
    # and (cdiv(128 − 1 + 8192, 16) + 1) sliding blocks, so concurrency exceeds tokens ÷ L
    settings = EngineSettings(gpu_memory_utilization=0.9, max_model_len=131072, precision="mxfp4", kv_dtype="bf16")
    capacity = engine_capacity(hub_spec("openai/gpt-oss-20b"), H100_TOTAL, settings)
    per_request = 131072 // 16 + (-(-(127 + 8192) // 16) + 1)
    assert capacity.max_concurrency == pytest.approx(capacity.num_blocks / per_request)
    # from 0.21 vLLM logs concurrency × max_model_len (kv_cache_utils.get_kv_cache_capacity, §3.10)
    assert capacity.kv_cache_tokens == int(capacity.num_blocks / per_request * 131072)
    older = engine_capacity(hub_spec("openai/gpt-oss-20b"), H100_TOTAL, replace(settings, release="0.19"))
    assert older.kv_cache_tokens == older.num_blocks // 2 * 16


def test_tensor_parallel_splits_weights_and_kv_heads_but_adds_communication_memory():
    # §4.1: Llama-3.3-70B FP8 at TP2 holds 33.88 GiB of weights per GPU and 0.55 GiB non-torch memory
    settings = EngineSettings(
        tensor_parallel=2,
        gpu_memory_utilization=0.9,
        max_model_len=16000,
        precision="fp8",
        kv_dtype="bf16",
        release="0.10",
    )
    capacity = engine_capacity(hub_spec("meta-llama/Llama-3.3-70B-Instruct"), H100_TOTAL, settings)
    assert capacity.weights_bytes / GIB == pytest.approx(33.88, rel=0.01)
    assert capacity.non_torch_bytes == round(0.55 * GIB)
    assert capacity.page_bytes_per_token == 80 * 2 * 4 * 128 * 2  # 4 of 8 KV heads per GPU


def test_a_model_that_leaves_no_room_for_one_request_does_not_fit():
    settings = EngineSettings(gpu_memory_utilization=0.9, max_model_len=32000, precision="bf16", kv_dtype="bf16")
    capacity = engine_capacity(hub_spec("Qwen/Qwen3-32B"), H100_TOTAL, settings)
    assert not capacity.fits  # §4.1: Qwen3-32B at 32,000 tokens fails on one H100, 16,000 runs


def test_sglang_sizes_its_pool_per_token_without_blocks():
    settings = EngineSettings(engine="sglang", gpu_memory_utilization=0.88, max_model_len=8192, kv_dtype="bf16")
    capacity = engine_capacity(hub_spec("meta-llama/Llama-3.1-8B-Instruct"), H100_TOTAL, settings)
    assert capacity.kv_cache_tokens == int(capacity.kv_cache_bytes // 131_072)


def test_the_recorded_h100_total_is_what_vllm_logs_as_total_gpu_memory():
    # gpu-capacity.json's CUDA total for an H100 80GB, 79.20 GiB, against vLLM's 79.18 GiB in the llm-d log (§4.1)
    assert gpu_by_slug("h100-sxm").capacity_bytes == pytest.approx(H100_TOTAL, rel=0.001)


def test_the_same_llama_start_up_on_each_release_line_follows_what_that_line_subtracts():
    # §4.12: the sampler's peak falls from ≈ 9.7 to ≈ 3.8 logits buffers at 0.17, non-torch memory rises at 0.18,
    # and from 0.20 the CUDA-graph estimate is subtracted and the default utilization is 0.92
    spec = hub_spec("meta-llama/Llama-3.1-8B-Instruct")
    base = EngineSettings(gpu_memory_utilization=0.95, max_model_len=8192, precision="bf16", kv_dtype="bf16")
    found = {key: engine_capacity(spec, H100_TOTAL, replace(base, release=key)) for key in VLLM_RELEASES}
    assert found["0.12"].activation_bytes > 2 * found["0.17"].activation_bytes
    assert found["0.18"].non_torch_bytes > found["0.17"].non_torch_bytes
    assert found["0.18"].cudagraph_bytes == 0 < found["0.20"].cudagraph_bytes
    assert found["0.20"].kv_cache_bytes < found["0.18"].kv_cache_bytes
    # 0.19 on an H100 at 0.95: llm-d logged 58.11 GiB and 476,016 tokens
    assert found["0.18"].kv_cache_bytes / GIB == pytest.approx(58.11, rel=0.01)
    default = engine_capacity(spec, H100_TOTAL, replace(base, gpu_memory_utilization=None))
    assert default.usable_bytes == int(H100_TOTAL * 0.92) and default.release == "vLLM 0.34"


def test_a_release_string_finds_its_line_and_anything_else_the_current_one():
    assert vllm_release("0.19.1").key == "0.18"
    assert vllm_release("v0.15.0").key == "0.12"
    assert vllm_release("0.7.3").key == "0.8"
    assert vllm_release("0.40").key == "0.34"
    assert vllm_release("").key == vllm_release("nonsense").key == "0.34"
    assert vllm_release("0.6.4").key == "0.34"  # V0 is not a line: the current one answers


def test_an_a100_takes_the_small_batch_defaults_from_09_on_and_b200_the_large_server_batch_from_034():
    gib80 = 79 * GIB
    assert vllm_batch_defaults(VLLM_RELEASES["0.8"], gib80, "NVIDIA A100-SXM4-80GB") == (8192, 1024)
    assert vllm_batch_defaults(VLLM_RELEASES["0.9"], gib80, "NVIDIA A100-SXM4-80GB") == (2048, 256)
    assert vllm_batch_defaults(VLLM_RELEASES["0.20"], 178 * GIB, "NVIDIA B200") == (8192, 1024)
    assert vllm_batch_defaults(VLLM_RELEASES["0.34"], 178 * GIB, "NVIDIA B200") == (16384, 1024)
    assert vllm_batch_defaults(VLLM_RELEASES["0.34"], 23 * GIB, "RTX 4090") == (2048, 256)


def test_sglang_mem_fraction_defaults_follow_each_release_line():
    # docs/methodology.md §4.12: read in the wheels of each release; an H100 80GB reports 81,559 MiB to nvidia-smi
    from calculator.estimation.engines.releases import SGLANG_RELEASES, sglang_mem_fraction, sglang_release

    h100, h200 = 81559, 143771
    assert [sglang_mem_fraction(SGLANG_RELEASES["0.4.0"], h100, tp) for tp in (1, 2, 4, 8)] == [0.88, 0.87, 0.85, 0.81]
    assert round(sglang_mem_fraction(SGLANG_RELEASES["0.4.6"], h200), 3) == 0.872
    assert [sglang_mem_fraction(SGLANG_RELEASES["0.4.8"], h100, tp) for tp in (1, 8)] == [0.874, 0.831]
    assert [sglang_mem_fraction(SGLANG_RELEASES["0.5.3"], h100, tp) for tp in (1, 2, 4, 8)] == [
        0.835,
        0.834,
        0.824,
        0.818,
    ]
    assert sglang_release("0.4.10.post2").key == "0.4.8"
    assert sglang_release("v0.5.23").key == sglang_release("").key == "0.5.3"


def test_an_older_sglang_keeps_a_larger_pool_on_an_h100():
    spec = hub_spec("Qwen/Qwen3-32B")
    base = EngineSettings(engine="sglang", tensor_parallel=2, max_model_len=8192, precision="bf16", kv_dtype="bf16")
    current = engine_capacity(spec, H100_TOTAL, base)
    older = engine_capacity(spec, H100_TOTAL, replace(base, release="0.4.9"))
    assert older.kv_cache_tokens > current.kv_cache_tokens
    assert (current.release, older.release) == ("SGLang 0.5.3 and later", "SGLang 0.4.8–0.5.2")


H200_TOTAL = round(139.8 * GIB)


def test_vllm_runs_a_sparse_attention_model_in_64_token_blocks():
    # §3.10: vLLM forces 64-token blocks for FlashMLA sparse; the 0.19 line reports blocks × block
    settings = EngineSettings(tensor_parallel=8, max_model_len=32768, precision="fp8", kv_dtype="fp8", release="0.19")
    capacity = engine_capacity(hub_spec("deepseek-ai/DeepSeek-V3.2"), H200_TOTAL, settings)
    assert capacity.block_tokens == 64
    assert capacity.kv_cache_tokens == capacity.num_blocks * 64
    # one group of 61 latent (656 B) and 61 indexer (132 B) pages per block
    assert capacity.page_bytes_per_token == 61 * (656 + 132)
    assert capacity.num_blocks == capacity.kv_cache_bytes // (64 * 61 * 788)


@pytest.mark.parametrize(("kv_dtype", "bytes_per_token"), [("fp8", 61 * (656 + 132)), ("bf16", 61 * (576 * 2 + 132))])
def test_sglang_counts_the_dsa_latent_layout_and_the_indexer_in_its_cell(kv_dtype, bytes_per_token):
    # §3.3, §4.2: sglang pool_configurator._compute_cell_size adds the indexer key to the MLA cell
    settings = EngineSettings(engine="sglang", tensor_parallel=8, max_model_len=32768, kv_dtype=kv_dtype)
    tokens, _ = kv_tokens_from_memory(hub_spec("deepseek-ai/DeepSeek-V3.2"), 40 * GIB, settings)
    assert tokens == 40 * GIB // bytes_per_token


def test_the_indexer_does_not_shrink_the_vllm_block_count_under_tensor_parallelism():
    # §3.3: latent and indexer key are whole on every rank, so TP 4 and TP 8 leave the same blocks per GiB
    spec = hub_spec("deepseek-ai/DeepSeek-V3.2")
    four = kv_tokens_from_memory(spec, 40 * GIB, EngineSettings(tensor_parallel=4, kv_dtype="fp8", release="0.19"))
    eight = kv_tokens_from_memory(spec, 40 * GIB, EngineSettings(tensor_parallel=8, kv_dtype="fp8", release="0.19"))
    assert four == eight


def test_vllm_07_08_gives_sliding_layers_full_blocks_and_later_lines_keep_only_the_window():
    # §3.4, §3.10: 0.8.5 unify_hybrid_kv_cache_specs makes every gemma-3 layer a full-attention layer (one group);
    # from 0.9.2 the hybrid KV cache manager keeps sliding groups to window + batch tokens
    spec = hub_spec("google/gemma-3-27b-it")
    settings = EngineSettings(max_model_len=32768, kv_dtype="bf16")
    old_tokens, old_concurrency = kv_tokens_from_memory(spec, 20 * GIB, replace(settings, release="0.8"))
    assert old_concurrency == pytest.approx(old_tokens / 32768)
    _, new_concurrency = kv_tokens_from_memory(spec, 20 * GIB, replace(settings, release="0.19"))
    assert new_concurrency > 2 * old_concurrency


def test_a_hybrid_mla_model_aligns_its_block_to_each_lines_kernel_block():
    # §3.9, §3.10: GLM-5.3-Flash at TP 8, bf16: state 542,720 B per rank, latent 1,024 B per token;
    # 16 · cdiv(…) = 544 on 0.11, 64 · 9 = 576 on 0.12–0.25, 128 · 5 = 640 from 0.28
    spec = hub_spec("zai-org/GLM-5.3-Flash")
    base = EngineSettings(tensor_parallel=8, max_model_len=32768, precision="fp8", kv_dtype="bf16")
    blocks = {
        key: engine_capacity(spec, H100_TOTAL, replace(base, release=key)).block_tokens
        for key in ("0.9", "0.19", "0.34")
    }
    assert blocks == {"0.9": 544, "0.19": 576, "0.34": 640}
