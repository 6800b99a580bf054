"""KV cache and per-sequence state, per attention layout and per engine (docs/methodology.md §3)."""

from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

from models_catalog.architecture import AttentionKind, LayerGroup

from ..engines.profiles import EngineProfile, KvDtype
from ..engines.vllm_lines import CURRENT_VLLM

# vLLM's OpenAI server on GPUs ≥ 70 GiB schedules 8192 tokens per step; the sliding-window budget covers them
# (§3.4, §4.1 get_batch_defaults).
VLLM_MAX_NUM_BATCHED_TOKENS = 8192
LLAMA_CPP_N_UBATCH = 512  # common.h default (§4.3)
LLAMA_CPP_N_BATCH = 2048  # common.h default; b5429–b5553 sized sliding-window layers with it (§4.12)
LLAMA_CPP_CTX_PAD = 256
DSA_INDEXER_SCALE_BLOCK = 128  # one fp32 scale per 128 fp8 indexer values (§3.3)
# vLLM's fp8 cache of a sparse-attention (DSA) layer is one fixed record per token: 512 fp8 latent values, four fp32
# scales and 64 bf16 RoPE values (vllm 0.34.0 vllm/v1/attention/backend.py `MLAAttentionImpl.get_fp8_ds_mla_row_bytes`;
# 0.11.0–0.19.1 vllm/v1/kv_cache_interface.py `MLAAttentionSpec.real_page_size_bytes` = block_size × 656) (§3.3)
VLLM_FP8_DS_MLA_ROW_BYTES = 656
# SGLang's fp8 DSA latent keeps one fp32 scale per 128 latent values and the RoPE part in bf16
# (sglang 0.5.23 python/sglang/srt/mem_cache/kv_cache_configurator.py `calculate_mla_kv_cache_dim`) (§3.3)
SGLANG_DSA_SCALE_BLOCK = 128
# vLLM's attention kernels take block sizes in multiples of 16; a hybrid model's attention block grows in such steps
# until one attention page holds a linear-attention state (§3.9).
VLLM_KERNEL_BLOCK_ALIGNMENT = 16


class HybridPages(NamedTuple):
    """vLLM's page layout for a model that mixes attention with linear-attention (Mamba-style) layers, per GPU."""

    attention_block_tokens: int  # the attention block size vLLM sets so that one page holds a state
    state_page_bytes: int  # one linear-attention layer's state page per sequence, padded to the attention page
    raw_state_bytes: int  # the same state before padding


class KvSize(NamedTuple):
    kv_bytes: int  # grows with tokens
    state_bytes: int  # fixed per sequence (linear attention / SSM)
    tokens_per_sequence: int  # cache cells a full-attention layer holds per sequence
    bytes_per_token: float  # full-context bytes per token over all layers (one sequence)


def _pad(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple if multiple > 1 else value


def sequence_cells(engine: EngineProfile, context: int, concurrency: int) -> int:
    """Cells one full-attention layer allocates per sequence under ``engine``'s paging."""
    if engine.pads_total_context:
        # llama.cpp: n_ctx = context × n_parallel padded to 256, split per sequence and padded again (§3.7)
        n_ctx = _pad(context * concurrency, LLAMA_CPP_CTX_PAD)
        return _pad(n_ctx // concurrency, LLAMA_CPP_CTX_PAD)
    return _pad(context, engine.block_tokens)


def sliding_cells(engine: EngineProfile, window: int, context: int, full_cells: int) -> int:
    """Cells a sliding-window layer allocates per sequence (§3.4)."""
    rule = engine.swa_rule
    if rule == "vllm":
        block = engine.block_tokens
        blocks = -(-min(window - 1 + VLLM_MAX_NUM_BATCHED_TOKENS, context) // block) + 1
        return blocks * block
    if rule == "llama.cpp":
        return _pad(min(full_cells, window + LLAMA_CPP_N_UBATCH), LLAMA_CPP_CTX_PAD)
    if rule == "llama.cpp-batch":
        return _pad(min(full_cells, window + LLAMA_CPP_N_BATCH), LLAMA_CPP_CTX_PAD)
    if rule == "window":
        return _pad(min(context, window), engine.block_tokens)
    return full_cells


def mla_elements(engine: EngineProfile, group: LayerGroup, heads: int, head_dim: int) -> int:
    """Cached elements per token of one MLA layer (§3.2)."""
    latent = group.latent_dim + group.rope_dim
    if engine.mla_cache == "latent_plus_value":
        return latent + group.latent_dim  # llama.cpp before the V-less cache: K (latent + rope) and V (latent)
    if engine.mla_cache == "decompressed":
        # HF: per-head K (head_dim = nope + rope) and V (v_head_dim, equal to the nope width in DeepSeek/GLM)
        return heads * (2 * head_dim - group.rope_dim)
    return latent


def with_draft_layers(groups: tuple[LayerGroup, ...], mtp_layers: int) -> tuple[LayerGroup, ...]:
    """The layer groups with the MTP draft's decoder layers added to the attention kind they use, the model's last
    full or MLA kind (models_catalog/architecture/params.py ``_mtp_layer``): the draft caches its own keys and values
    like a layer of the model (vLLM and SGLang allocate its KV beside the target's)."""
    index = next((i for i in reversed(range(len(groups))) if groups[i].kind in _DRAFT_KINDS), None)
    if index is None or mtp_layers <= 0:
        return groups
    group = groups[index]
    return (*groups[:index], replace(group, count=group.count + mtp_layers), *groups[index + 1 :])


_DRAFT_KINDS = frozenset({AttentionKind.MLA, AttentionKind.FULL})


def dsa_latent_bytes(engine_key: str, group: LayerGroup, kv_dtype: KvDtype) -> float:
    """Bytes one sparse-attention (DSA) layer's latent cache holds per token under ``engine_key`` (§3.3): vLLM's
    fp8_ds_mla record, SGLang's scaled fp8 latent with a bf16 RoPE part, else the latent in the KV dtype."""
    if kv_dtype.key == "fp8" and engine_key == "vllm":
        return VLLM_FP8_DS_MLA_ROW_BYTES
    if kv_dtype.key == "fp8" and engine_key == "sglang":
        return group.latent_dim + group.latent_dim // SGLANG_DSA_SCALE_BLOCK * 4 + group.rope_dim * 2
    return (group.latent_dim + group.rope_dim) * kv_dtype.bytes_per_element


def dsa_indexer_bytes(group: LayerGroup) -> float:
    """Bytes one DSA layer's lightning-indexer key cache holds per token: fp8 keys and one fp32 scale per 128, one
    head, whole on every tensor-parallel rank (§3.3: vLLM ``DeepseekV32IndexerCache``, SGLang
    ``index_k_with_scale_buffer``); a pooled indexer keeps one key per ``indexer_pool`` tokens (GLM-5.3-Flash's
    ``index_kpool`` 4: vLLM's ``Glm5NextIndexerCache`` spec has ``tokens_per_state`` = index_kpool, §3.3)."""
    key = group.indexer_dim + -(-group.indexer_dim // DSA_INDEXER_SCALE_BLOCK) * 4
    return key / max(1, group.indexer_pool)


def _attention_token_bytes(group: LayerGroup, tp: int, b: float) -> float:
    """Bytes one attention layer caches per token on one GPU (KV heads split, replicated beyond their count)."""
    if group.kind is AttentionKind.MLA:
        return (group.latent_dim + group.rope_dim) * b
    return max(1, group.kv_heads // tp) * (group.key_dim + group.value_dim) * b


def vllm_hybrid_pages(
    groups: tuple[LayerGroup, ...],
    engine: EngineProfile,
    kv_dtype: KvDtype,
    tensor_parallel: int,
    mla_alignment: int = VLLM_KERNEL_BLOCK_ALIGNMENT,
) -> HybridPages | None:
    """vLLM's padding of the linear-attention state to the attention page (§3.9: vllm
    ``HybridAttentionMambaModelConfig``, prefix caching off): attention block = n · cdiv(state, n · token page),
    and the state page is padded up to that attention page; n is 16, or ``mla_alignment`` (the release line's) when
    the attention layers are MLA (§3.10). ``None`` unless the model mixes both under vLLM."""
    if engine.key != "vllm":
        return None
    tp = max(1, tensor_parallel)
    attention = [g for g in groups if g.kind is not AttentionKind.LINEAR and g.count]
    linear = [g for g in groups if g.kind is AttentionKind.LINEAR and g.count]
    if not attention or not linear:
        return None
    token_page = max(_attention_token_bytes(g, tp, kv_dtype.bytes_per_element) for g in attention)
    # conv and recurrent state split over the TP ranks with the heads (§3.5 gated_delta_net_state_shape)
    raw = max(
        round((g.conv_elements * engine.conv_state_bytes + g.state_elements * engine.ssm_state_bytes) / tp)
        for g in linear
    )
    if token_page <= 0 or raw <= 0:
        return None
    has_mla = any(g.kind is AttentionKind.MLA for g in attention)
    step = mla_alignment if has_mla else VLLM_KERNEL_BLOCK_ALIGNMENT
    block = step * -(-raw // round(step * token_page))
    block = max(block, engine.block_tokens)
    return HybridPages(block, round(block * token_page), raw)


def kv_size(
    groups: tuple[LayerGroup, ...],
    engine: EngineProfile,
    kv_dtype: KvDtype,
    *,
    context: int,
    concurrency: int,
    tensor_parallel: int,
    heads: int,
    head_dim: int,
) -> KvSize:
    """Bytes of KV cache and fixed state for ``concurrency`` sequences of ``context`` tokens."""
    b = kv_dtype.bytes_per_element
    tp = max(1, tensor_parallel)
    # the memory estimate pages a hybrid MLA model as the current vLLM line does (§3.10)
    hybrid = vllm_hybrid_pages(groups, engine, kv_dtype, tp, CURRENT_VLLM.mla_hybrid_block_alignment)
    # A hybrid model's larger attention block also pads each request's last block (up to one block per request);
    # that is left out here so the per-token figure stays the 16-token paging of §3.7 (§3.9).
    full_cells = sequence_cells(engine, context, concurrency)
    kv = 0.0
    state = 0.0
    per_token = 0.0
    for group in groups:
        kind = group.kind
        if kind is AttentionKind.FULL or kind is AttentionKind.SLIDING:
            # KV heads split over TP ranks, replicated once tp exceeds them (§3.1 get_num_kv_heads)
            heads_total = max(1, group.kv_heads // tp) * tp if tp > 1 else group.kv_heads
            elements = heads_total * (group.key_dim + group.value_dim)
            if kind is AttentionKind.SLIDING and group.window:
                cells = sliding_cells(engine, group.window, context, full_cells)
            else:
                cells = full_cells
            kv += group.count * elements * b * cells * concurrency
            per_token += group.count * elements * b
        elif kind is AttentionKind.MLA:
            # the latent is one "head": replicated on every TP rank (§3.2), and so is the DSA indexer key (§3.3)
            token_bytes = mla_elements(engine, group, heads, head_dim) * b
            if group.indexer_dim:
                if engine.key in ("vllm", "sglang"):
                    token_bytes = dsa_latent_bytes(engine.key, group, kv_dtype)
                token_bytes += dsa_indexer_bytes(group)
            kv += group.count * token_bytes * tp * full_cells * concurrency
            per_token += group.count * token_bytes * tp
        elif kind is AttentionKind.LINEAR:
            per_sequence = group.conv_elements * engine.conv_state_bytes + group.state_elements * engine.ssm_state_bytes
            if hybrid:
                # one padded page per sequence on every rank (mamba_cache_mode "none", §3.5, §3.9)
                per_sequence = hybrid.state_page_bytes * tp
            state += group.count * per_sequence * concurrency
    return KvSize(round(kv), round(state), full_cells, per_token)
