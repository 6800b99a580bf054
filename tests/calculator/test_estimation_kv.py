"""KV-cache sizes engines report, recomputed exactly from the recorded configs.

Every reported figure is quoted in docs/methodology.md (section in each test); SOURCES.md tabulates them.
"""

from __future__ import annotations

import pytest

from calculator.estimation import GIB, Workload, estimate
from tests.calculator.estimation_specs import hub_spec

MIB = 2**20


def kv_per_token(hub_id: str, engine: str, kv_dtype: str = "fp16") -> float:
    spec = hub_spec(hub_id)
    one = estimate(spec, Workload(engine=engine, kv_dtype=kv_dtype, context=4096)).bytes_of("kv_cache")
    return one / 4096


def test_llama_31_8b_caches_128_kib_per_token_in_vllm():
    # §3.1 worked example: 32 · 2 · 8 · 128 · 2 = 131,072 B per token
    assert kv_per_token("meta-llama/Llama-3.1-8B-Instruct", "vllm") == 131_072


def test_llama_31_8b_kv_self_size_at_131072_context_is_16_gib_in_llama_cpp():
    # llama.cpp's `KV self size` for n_ctx 131072, f16 K and V: 128 KiB/token × 131,072 = 16,384 MiB (§3.1, §3.7)
    spec = hub_spec("meta-llama/Llama-3.1-8B-Instruct")
    breakdown = estimate(spec, Workload(engine="llama.cpp", context=131_072))
    assert breakdown.bytes_of("kv_cache") == 16 * GIB


def test_llama_31_8b_vllm_kv_budget_holds_420905_tokens():
    # §4.1: 51.38 GiB of KV memory / 128 KiB per token = 420,905 tokens on H100
    per_token = kv_per_token("meta-llama/Llama-3.1-8B-Instruct", "vllm")
    assert round(51.38 * GIB / per_token) == 420_905


def test_qwen3_32b_needs_256_kib_per_token_so_16000_fits_in_445_gib_and_32000_does_not():
    # §4.1: Qwen3-32B on H100 had 4.45 GiB for KV; 4.45 GiB / 256 KiB = 18,227 tokens
    spec = hub_spec("Qwen/Qwen3-32B")
    assert kv_per_token("Qwen/Qwen3-32B", "vllm") == 256 * 1024
    for context, fits in ((16_000, True), (32_000, False)):
        kv = estimate(spec, Workload(context=context)).bytes_of("kv_cache")
        assert (kv <= 4.45 * GIB) is fits


@pytest.mark.parametrize(
    ("engine", "bytes_per_token"),
    [
        ("vllm", 70_272),  # latent 512 + rope 64, one "head", no factor 2 (§3.2)
        ("sglang", 70_272),  # cell_size = (kv_lora_rank + qk_rope_head_dim) · layers · 2 (§3.2)
        ("mlx", 70_272),  # kv_latent + k_pe (§3.2)
        ("llama.cpp", 70_272),  # K 576 only since the V-less cache, llama.cpp PR 19067 (§3.9)
        ("ollama", 70_272),  # Ollama builds llama.cpp b10488, after that change (§3.9)
        ("transformers", 4_997_120),  # decompressed K 192 and V 128 for 128 heads (§3.2)
    ],
)
def test_deepseek_v3_mla_cache_per_token_matches_each_engine(engine, bytes_per_token):
    assert kv_per_token("deepseek-ai/DeepSeek-V3", engine) == bytes_per_token


def test_llama_cpp_before_the_v_less_cache_also_allocated_a_512_wide_v_per_layer():
    # §3.2, §3.9: builds before ggml-org/llama.cpp PR 19067 (2026-01-24) stored K 576 and V 512 = 132,736 B/token
    from calculator.estimation.engines.profiles import ENGINES, KV_DTYPES
    from calculator.estimation.engines.releases import release_profile
    from calculator.estimation.memory.kv import kv_size

    spec = hub_spec("deepseek-ai/DeepSeek-V3")
    size = kv_size(
        spec.layer_groups,
        release_profile(ENGINES["llama.cpp"], "b7407"),
        KV_DTYPES["fp16"],
        context=4096,
        concurrency=1,
        tensor_parallel=1,
        heads=spec.num_attention_heads,
        head_dim=spec.head_dim,
    )
    assert size.bytes_per_token == 132_736


def test_deepseek_v3_fp8_mla_halves_the_latent_cache():
    # §3.2: "FP8 MLA: 1 B/element ⇒ 35,136 B/token for V3"
    assert kv_per_token("deepseek-ai/DeepSeek-V3", "vllm", "fp8") == 35_136


def test_deepseek_v32_sparse_attention_caches_48068_bytes_per_token_in_vllm():
    # §3.3: 61 × (656 B fp8_ds_mla + 132 B lightning-indexer key) = 48,068 B per token
    assert kv_per_token("deepseek-ai/DeepSeek-V3.2", "vllm", "fp8") == 48_068


def test_mla_cache_does_not_shrink_with_tensor_parallelism():
    # §3.2: vLLM's MLA num_kv_heads is 1 for any TP degree, so each rank holds the whole latent
    spec = hub_spec("deepseek-ai/DeepSeek-V3")
    one = estimate(spec, Workload(tensor_parallel=1)).bytes_of("kv_cache")
    eight = estimate(spec, Workload(tensor_parallel=8)).bytes_of("kv_cache")
    assert eight == 8 * one


def test_gqa_kv_heads_replicate_once_tensor_parallel_exceeds_them():
    # §3.1: per-GPU KV heads = max(1, K // tp); Qwen3-Next has K = 2
    # (SGLang pages per token; vLLM's hybrid block size would change with tp too, §3.9)
    spec = hub_spec("Qwen/Qwen3-Next-80B-A3B-Instruct")
    two = estimate(spec, Workload(engine="sglang", tensor_parallel=2)).bytes_of("kv_cache")
    eight = estimate(spec, Workload(engine="sglang", tensor_parallel=8)).bytes_of("kv_cache")
    assert eight == 4 * two


def test_qwen3_next_grows_24_kib_per_token_from_its_12_full_attention_layers():
    # §3.5: 12 × 2 × 2 × 256 × 2 B = 24 KiB/token
    spec = hub_spec("Qwen/Qwen3-Next-80B-A3B-Instruct")
    term = estimate(spec, Workload()).term("kv_cache")
    assert term is not None
    assert term.inputs["bytes_per_token"] == 24 * 1024


@pytest.mark.parametrize(("engine", "mib_per_sequence"), [("llama.cpp", 75.4), ("vllm", 74.2), ("sglang", 73.7)])
def test_qwen3_next_linear_state_per_sequence(engine, mib_per_sequence):
    # §3.5: 36 linear layers × (conv 24,576 + SSM 524,288 elements); llama.cpp F32, vLLM and SGLang bf16 conv +
    # fp32 SSM; vLLM pads each 2,146,304 B state to one attention page of 1,056 tokens × 2,048 B (§3.9)
    spec = hub_spec("Qwen/Qwen3-Next-80B-A3B-Instruct")
    state = estimate(spec, Workload(engine=engine, concurrency=3)).bytes_of("linear_state")
    assert round(state / 3 / MIB, 1) == mib_per_sequence


def test_gpt_oss_sliding_layers_budget_window_plus_batched_tokens_in_vllm():
    # §3.4: vLLM budgets cdiv(min(window − 1 + max_num_batched_tokens, max_model_len), 16) + 1 blocks per SWA
    # layer; gpt-oss window 128 and 8192 batched tokens → 8,320 tokens, not the full 65,536
    spec = hub_spec("openai/gpt-oss-20b")
    context = 65_536
    kv = estimate(spec, Workload(context=context)).bytes_of("kv_cache")
    per_layer_token = 8 * (64 + 64) * 2
    sliding_cells = (-(-(128 - 1 + 8192) // 16) + 1) * 16
    assert kv == 12 * per_layer_token * context + 12 * per_layer_token * sliding_cells


def test_gemma3_sliding_layers_are_capped_at_the_window_in_mlx():
    # §3.4: mlx-lm uses RotatingKVCache(max_size = sliding_window) for local layers
    spec = hub_spec("google/gemma-3-27b-it")
    kv = estimate(spec, Workload(engine="mlx", context=32_768)).bytes_of("kv_cache")
    per_layer_token = 16 * (128 + 128) * 2
    assert kv == 10 * per_layer_token * 32_768 + 52 * per_layer_token * 1024


@pytest.mark.parametrize(("kv_dtype", "bytes_per_element"), [("q8_0", 34 / 32), ("q4_0", 18 / 32)])
def test_llama_cpp_quantized_kv_uses_real_block_sizes(kv_dtype, bytes_per_element):
    # §3.6: q8_0 34 B per 32 values, q4_0 18 B per 32
    assert kv_per_token("meta-llama/Llama-3.1-8B-Instruct", "llama.cpp", kv_dtype) == 32 * 2 * 8 * 128 * (
        bytes_per_element
    )


def test_llama_cpp_splits_context_over_parallel_sequences_padded_to_256():
    # §3.7: total cells = n_ctx (context × parallel), each sequence padded to 256
    spec = hub_spec("meta-llama/Llama-3.1-8B-Instruct")
    kv = estimate(spec, Workload(engine="llama.cpp", context=1000, concurrency=3)).bytes_of("kv_cache")
    assert kv == 131_072 * 1024 * 3


@pytest.mark.parametrize(("tp", "block", "page"), [(1, 1056, 2_162_688), (2, 1056, 1_081_344), (4, 528, 540_672)])
def test_vllm_raises_the_attention_block_until_one_page_holds_a_qwen3_next_state(tp, block, page):
    # §3.9, vllm model_executor/models/config.py HybridAttentionMambaModelConfig: block = 16 · cdiv(state, 16 · token
    # page) per GPU; the state page is padded to block × token page
    from calculator.estimation.engines.profiles import ENGINES, KV_DTYPES
    from calculator.estimation.memory.kv import vllm_hybrid_pages

    spec = hub_spec("Qwen/Qwen3-Next-80B-A3B-Instruct")
    pages = vllm_hybrid_pages(spec.layer_groups, ENGINES["vllm"], KV_DTYPES["bf16"], tp)
    assert pages is not None
    assert (pages.attention_block_tokens, pages.state_page_bytes) == (block, page)


@pytest.mark.parametrize(
    ("engine", "kv_dtype", "bytes_per_layer"),
    [
        # §3.3, §3.10: bf16 latent 512 × 2 B (no RoPE part) + the 132 B indexer key pooled over 4 tokens, both engines
        ("vllm", "bf16", 512 * 2 + 132 / 4),
        ("sglang", "bf16", 512 * 2 + 132 / 4),
        # vLLM's fp8_ds_mla record is 656 B whatever the latent's shape; SGLang sizes its own from the dims:
        # 512 fp8 + 4 fp32 scales + 0 bf16 RoPE values = 528 B
        ("vllm", "fp8", 656 + 132 / 4),
        ("sglang", "fp8", 528 + 132 / 4),
    ],
)
def test_glm_53_flash_caches_each_engines_dsa_layout_on_its_11_sparse_layers(engine, kv_dtype, bytes_per_layer):
    assert kv_per_token("zai-org/GLM-5.3-Flash", engine, kv_dtype) == 11 * bytes_per_layer


def test_deepseek_v32_fp8_layouts_agree_in_vllm_and_sglang():
    # §3.3: SGLang's scaled fp8 latent (512 + 16 + 64 × 2) equals vLLM's 656 B record for the V3.2 geometry
    assert kv_per_token("deepseek-ai/DeepSeek-V3.2", "sglang", "fp8") == 61 * (656 + 132)


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_the_dsa_indexer_key_is_whole_on_every_tensor_parallel_rank(engine):
    # §3.3: the indexer cache has one head, like the latent, so every rank holds all 132 B per token and layer
    spec = hub_spec("deepseek-ai/DeepSeek-V3.2")
    one = estimate(spec, Workload(engine=engine, kv_dtype="fp8", tensor_parallel=1)).bytes_of("kv_cache")
    eight = estimate(spec, Workload(engine=engine, kv_dtype="fp8", tensor_parallel=8)).bytes_of("kv_cache")
    assert eight == 8 * one


def test_a_pooled_indexer_keeps_one_key_per_pool_of_tokens():
    """GLM-5.3-Flash's config pools the indexer's keys over 4 tokens (index_kpool 4 with index_kpool_compress): each
    of its 11 DSA layers caches the 512-wide latent in FP16 (1,024 B) and a quarter of the 132-byte fp8 key with its
    scale a token; DeepSeek-V3.2 keeps one key per token."""
    glm = hub_spec("zai-org/GLM-5.3-Flash")
    dsa = [g for g in glm.layer_groups if g.indexer_dim]
    assert [(g.count, g.indexer_dim, g.indexer_pool) for g in dsa] == [(11, 128, 4)]
    assert estimate(glm, Workload(precision="fp8")).bytes_of("kv_cache") == 11 * (1024 + 33) * 8192
    v32 = hub_spec("deepseek-ai/DeepSeek-V3.2")
    assert {g.indexer_pool for g in v32.layer_groups if g.indexer_dim} == {1}
