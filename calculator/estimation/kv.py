"""KV cache and per-sequence state, per attention layout and per engine (docs/methodology.md §3)."""

from __future__ import annotations

from typing import NamedTuple

from models_catalog.architecture import AttentionKind, LayerGroup

from .engines import EngineProfile, KvDtype

# vLLM's OpenAI server on GPUs ≥ 70 GiB schedules 8192 tokens per step; the sliding-window budget covers them
# (§3.4, §4.1 get_batch_defaults).
VLLM_MAX_NUM_BATCHED_TOKENS = 8192
LLAMA_CPP_N_UBATCH = 512  # common.h default (§4.3)
LLAMA_CPP_CTX_PAD = 256
DSA_INDEXER_SCALE_BLOCK = 128  # one fp32 scale per 128 fp8 indexer values (§3.3)


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
    if rule == "window":
        return _pad(min(context, window), engine.block_tokens)
    return full_cells


def mla_elements(engine: EngineProfile, group: LayerGroup, heads: int, head_dim: int) -> int:
    """Cached elements per token of one MLA layer (§3.2)."""
    latent = group.latent_dim + group.rope_dim
    if engine.mla_cache == "latent_plus_value":
        return latent + group.latent_dim  # llama.cpp allocates K (latent + rope) and V (latent)
    if engine.mla_cache == "decompressed":
        # HF: per-head K (head_dim = nope + rope) and V (v_head_dim, equal to the nope width in DeepSeek/GLM)
        return heads * (2 * head_dim - group.rope_dim)
    return latent


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
    full_cells = sequence_cells(engine, context, concurrency)
    tp = max(1, tensor_parallel)
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
            # the latent is one "head": replicated on every TP rank (§3.2)
            token_bytes = mla_elements(engine, group, heads, head_dim) * b
            if group.indexer_dim:
                if kv_dtype.key == "fp8" and engine.key == "vllm":
                    # fp8_ds_mla: fp8 latent + one fp32 scale per 128 + bf16 rope (§3.3)
                    token_bytes = group.latent_dim + group.latent_dim // 128 * 4 + group.rope_dim * 2
                token_bytes += group.indexer_dim + -(-group.indexer_dim // DSA_INDEXER_SCALE_BLOCK) * 4
            kv += group.count * token_bytes * tp * full_cells * concurrency
            per_token += group.count * token_bytes * tp
        elif kind is AttentionKind.LINEAR:
            per_sequence = group.conv_elements * engine.conv_state_bytes + group.state_elements * engine.ssm_state_bytes
            state += group.count * per_sequence * concurrency
    return KvSize(round(kv), round(state), full_cells, per_token)
