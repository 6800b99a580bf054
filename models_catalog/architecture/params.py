"""Parameter counts per component from the config (docs/methodology.md §1.2).

The formulas reproduce the Hub's safetensors totals for the recorded models (see
tests/models_catalog/test_arch_hub_totals.py). Every matrix a quantizer would pack is also recorded as a
``Linear`` so the packed-storage overhead of a format (FP8 block scales, MXFP4 scales, GPTQ/AWQ side tensors)
can be computed exactly.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import models_catalog.architecture.layers as lay


@dataclass(frozen=True, slots=True)
class Linear:
    out_features: int
    in_features: int
    count: int
    expert: bool = False  # a routed-expert matrix (the only ones MXFP4 packs in gpt-oss)


@dataclass(slots=True)
class Dims:
    """Every width the counts need; ``ModelSpec.from_hf_config`` fills it from the config."""

    family: str
    hidden: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    vocab: int
    intermediate: int  # dense MLP width
    expert_intermediate: int = 0
    experts: int = 0
    experts_per_token: int = 0
    shared_experts: int = 0  # DeepSeek style: n_shared_experts × expert width
    shared_intermediate: int = 0  # Qwen style: one shared expert of this width, with a sigmoid gate
    tie_embeddings: bool = False
    qkv_bias: bool = False
    o_bias: bool = False
    qk_norm: str = ""  # "head": per-head RMSNorm (2·d); "full": over all heads (H·d + K·d)
    attention_sinks: bool = False
    gated_query: bool = False  # Qwen3-Next: q_proj also emits an output gate
    gated_mlp: bool = True
    mlp_bias: bool = False
    norms_per_layer: int = 2
    router_bias: bool = False
    expert_bias: bool = False  # gpt-oss experts carry biases
    # MLA
    q_lora_rank: int = 0
    kv_lora_rank: int = 0
    qk_nope_dim: int = 0
    qk_rope_dim: int = 0
    v_head_dim: int = 0
    index_heads: int = 0
    index_dim: int = 0
    index_pool: int = 1  # index_kpool where index_kpool_compress is set: one indexer key per that many tokens
    # linear attention / SSM
    linear_key_heads: int = 0
    linear_value_heads: int = 0
    linear_key_dim: int = 0
    linear_value_dim: int = 0
    conv_kernel: int = 0
    ssm_heads: int = 0
    ssm_head_dim: int = 0
    ssm_state: int = 0
    ssm_groups: int = 1
    ssm_inner: int = 0
    mtp_layers: int = 0
    mtp_stores_embeddings: bool = False  # DeepSeek stores embed and head again under the MTP layer
    embedding_rows: int = 0  # rows of the input embedding when it has more than ``vocab`` (Mllama: +8)
    linears: list[Linear] = field(default_factory=list)


@dataclass(slots=True)
class Counts:
    embedding: int = 0
    lm_head: int = 0
    attention: int = 0
    dense_mlp: int = 0
    routed_experts: int = 0
    shared_experts: int = 0
    router: int = 0
    norms: int = 0
    mtp: int = 0
    other: int = 0
    per_expert: int = 0  # one routed expert of one MoE layer
    moe_layers: int = 0


def _attention(d: Dims, kind: str, times: int) -> tuple[int, int]:
    """(attention params, norm params) of one layer of ``kind``; records its linears ``times`` times."""
    h = d.hidden
    linears = d.linears
    if kind in (lay.FULL, lay.SLIDING, lay.CHUNKED, lay.CROSS):
        q_out = d.heads * d.head_dim * (2 if d.gated_query and kind != lay.CROSS else 1)
        kv_out = d.kv_heads * d.head_dim
        linears += [Linear(q_out, h, times), Linear(kv_out, h, 2 * times), Linear(h, d.heads * d.head_dim, times)]
        params = h * q_out + 2 * h * kv_out + d.heads * d.head_dim * h
        if d.qkv_bias:
            params += q_out + 2 * kv_out
        if d.o_bias:
            params += h
        if d.attention_sinks:
            params += d.heads
        norms = 0
        if d.qk_norm == "head" or kind == lay.CROSS:
            norms = 2 * d.head_dim
        elif d.qk_norm == "full":
            norms = d.heads * d.head_dim + kv_out
        if kind == lay.CROSS:
            params += 2  # cross_attn_attn_gate and cross_attn_mlp_gate scalars of Llama 3.2 Vision
        return params, norms
    if kind in (lay.MLA, lay.MLA_INDEXED):
        qk_dim = d.qk_nope_dim + d.qk_rope_dim
        params = 0
        norms = d.kv_lora_rank
        if d.q_lora_rank:
            linears += [Linear(d.q_lora_rank, h, times), Linear(d.heads * qk_dim, d.q_lora_rank, times)]
            params += h * d.q_lora_rank + d.q_lora_rank * d.heads * qk_dim
            norms += d.q_lora_rank
        else:
            linears.append(Linear(d.heads * qk_dim, h, times))
            params += h * d.heads * qk_dim
        kv_b_out = d.heads * (d.qk_nope_dim + d.v_head_dim)
        linears += [
            Linear(d.kv_lora_rank + d.qk_rope_dim, h, times),
            Linear(kv_b_out, d.kv_lora_rank, times),
            Linear(h, d.heads * d.v_head_dim, times),
        ]
        params += h * (d.kv_lora_rank + d.qk_rope_dim) + d.kv_lora_rank * kv_b_out + d.heads * d.v_head_dim * h
        if kind == lay.MLA_INDEXED and d.index_dim:
            # DeepSeek-V3.2 lightning indexer: wq_b, wk, k_norm (LayerNorm), weights_proj.
            q_in = d.q_lora_rank or h
            linears += [Linear(d.index_heads * d.index_dim, q_in, times), Linear(d.index_dim, h, times)]
            params += q_in * d.index_heads * d.index_dim + h * d.index_dim + h * d.index_heads
            norms += 2 * d.index_dim
        return params, norms
    if kind == lay.GATED_DELTANET:
        key_dim = d.linear_key_heads * d.linear_key_dim
        value_dim = d.linear_value_heads * d.linear_value_dim
        conv_dim = 2 * key_dim + value_dim
        linears += [
            Linear(2 * key_dim + 2 * value_dim, h, times),
            Linear(2 * d.linear_value_heads, h, times),
            Linear(h, value_dim, times),
        ]
        params = (
            h * (2 * key_dim + 2 * value_dim)
            + h * 2 * d.linear_value_heads
            + conv_dim * d.conv_kernel
            + 2 * d.linear_value_heads
            + value_dim * h
        )
        return params, d.linear_value_dim
    if kind == lay.KDA:
        # Kimi Delta Attention (Kimi Linear): q/k/v projections with short convolutions, low-rank forget
        # and output gates, beta projection, A_log and dt_bias, gated output norm.
        heads, head_dim = d.linear_value_heads, d.linear_value_dim
        width = heads * head_dim
        linears += [
            Linear(width, h, 3 * times),
            Linear(head_dim, h, 2 * times),
            Linear(width, head_dim, 2 * times),
            Linear(heads, h, times),
            Linear(h, width, times),
        ]
        params = 3 * h * width + 3 * width * d.conv_kernel + 2 * (h * head_dim + head_dim * width)
        params += h * heads + heads + width + width * h
        return params, head_dim
    if kind in (lay.MAMBA, lay.MAMBA2):
        inner = d.ssm_inner or 2 * h
        heads = d.ssm_heads or 1
        if kind == lay.MAMBA2:
            conv_dim = inner + 2 * d.ssm_groups * d.ssm_state
            in_proj = inner + conv_dim + heads
            params = h * in_proj + conv_dim * (d.conv_kernel + 1) + 3 * heads + inner + inner * h
        else:
            rank = max(1, -(-h // 16))
            in_proj = 2 * inner
            params = h * in_proj + inner * (d.conv_kernel + 1) + inner * (rank + 2 * d.ssm_state)
            params += rank * inner + inner + inner * d.ssm_state + inner + inner * h
        linears += [Linear(in_proj, h, times), Linear(h, inner, times)]
        return params, 0
    if kind == lay.LIGHTNING:
        width = d.heads * d.head_dim
        linears += [Linear(3 * width, h, times), Linear(width, h, times), Linear(h, width, times)]
        return 3 * h * width + width * h + width * h, width
    return 0, 0


def _mlp(d: Dims, kind: str, times: int, counts: Counts) -> None:
    h = d.hidden
    if kind == lay.DENSE:
        matrices = 3 if d.gated_mlp else 2
        d.linears += [Linear(d.intermediate, h, (matrices - 1) * times), Linear(h, d.intermediate, times)]
        params = matrices * h * d.intermediate
        if d.mlp_bias:
            params += (matrices - 1) * d.intermediate + h
        counts.dense_mlp += params * times
    elif kind == lay.MOE:
        width = d.expert_intermediate
        per_expert = 3 * h * width + ((2 * width + h) if d.expert_bias else 0)
        counts.per_expert = per_expert
        counts.moe_layers += times
        counts.routed_experts += d.experts * per_expert * times
        counts.router += (d.experts * h + (d.experts if d.router_bias else 0)) * times
        d.linears += [Linear(width, h, 2 * d.experts * times, True), Linear(h, width, d.experts * times, True)]
        shared_width = d.shared_experts * width
        if d.shared_intermediate:
            shared_width = d.shared_intermediate
            counts.shared_experts += h * times  # shared_expert_gate
        if shared_width:
            counts.shared_experts += 3 * h * shared_width * times
            d.linears += [Linear(shared_width, h, 2 * times), Linear(h, shared_width, times)]


def count(d: Dims, attention: tuple[str, ...], mlp: tuple[str, ...]) -> Counts:
    counts = Counts()
    h = d.hidden
    counts.embedding = max(d.vocab, d.embedding_rows) * h
    counts.lm_head = 0 if d.tie_embeddings else d.vocab * h
    counts.norms = h  # final norm
    for (attn_kind, mlp_kind), times in Counter(zip(attention, mlp, strict=True)).items():
        params, norms = _attention(d, attn_kind, times)
        counts.attention += params * times
        layer_norms = d.norms_per_layer if attn_kind != lay.NO_ATTENTION and mlp_kind != lay.NO_MLP else 1
        counts.norms += (norms + layer_norms * h) * times
        _mlp(d, mlp_kind, times, counts)
    if d.mtp_layers:
        counts.mtp = d.mtp_layers * _mtp_layer(d, attention, mlp)
    return counts


def _mtp_layer(d: Dims, attention: tuple[str, ...], mlp: tuple[str, ...]) -> int:
    """One next-token-prediction module: a decoder layer like the last one, plus its input projection."""
    h = d.hidden
    attn_kind = next((kind for kind in reversed(attention) if kind in (lay.FULL, lay.MLA, lay.MLA_INDEXED)), lay.FULL)
    mlp_kind = mlp[-1] if mlp else lay.DENSE
    scratch = Counts()
    params, norms = _attention(d, attn_kind, 1)
    _mlp(d, mlp_kind, 1, scratch)
    # eh_proj stays in high precision in DeepSeek-V3's FP8 release (the Hub total matches only without its scales)
    layer = params + norms + d.norms_per_layer * h
    layer += scratch.dense_mlp + scratch.routed_experts + scratch.shared_experts + scratch.router
    # enorm + hnorm + eh_proj (2h → h) + the module's final norm
    module = layer + 3 * h + 2 * h * h
    if d.mtp_stores_embeddings:
        module += 2 * d.vocab * h
    return module
