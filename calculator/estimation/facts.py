"""Per-model constants the estimate needs, derived once from a ``ModelSpec`` and reused for every workload."""

from __future__ import annotations

from dataclasses import dataclass

from models_catalog.architecture import AttentionKind, ModelSpec

from .memo import per_spec
from .tensor_bits import LayerFacts, TensorCounts


@dataclass(frozen=True, slots=True)
class SpecFacts:
    spec: ModelSpec
    counts: TensorCounts  # loaded parameters by category, MTP layers included
    counts_without_mtp: TensorCounts
    # the MTP layers an engine runs as the draft of speculative decoding, without the embedding and head they store
    # again (the engine shares the model's): ``Workload.mtp_draft``
    counts_with_draft: TensorCounts
    layer_facts: LayerFacts
    attention_layers: int  # layers that keep a per-token cache (full, sliding, MLA)
    active_mlp_width: int  # MLP width a token passes through (k × expert width + shared, or dense width)
    lora_params_per_rank: int  # LoRA parameters per unit of rank over attention, dense MLP and shared experts


def spec_facts(spec: ModelSpec) -> SpecFacts:
    """The constants of ``spec``, remembered per spec object (a spec is immutable)."""
    return per_spec("facts", spec, None, lambda: _derive(spec))


def _derive(spec: ModelSpec) -> SpecFacts:
    named, attention_layers = _named_counts(spec)
    total = max(0, spec.params_total - max(0, spec.params_duplicated))  # a duplicated tied head is held once
    not_loaded = min(max(0, spec.params_not_loaded), total)
    counts = _fill(named, total)
    counts_without_mtp = _fill(named, total - not_loaded)
    counts_with_draft = _fill(named, total - min(not_loaded, max(0, spec.mtp_shared_params)))
    h = max(0, spec.hidden_size)
    heads = max(0, spec.num_attention_heads)
    gqa = heads // spec.num_kv_heads if spec.num_kv_heads > 0 else 1
    layer_facts = LayerFacts(
        num_layers=max(1, spec.num_layers),
        gqa_ratio=max(1, gqa),
        experts_routed=max(0, spec.experts_routed),
        row_width=h if h > 0 else 256,
    )
    return SpecFacts(
        spec=spec,
        counts=counts,
        counts_without_mtp=counts_without_mtp,
        counts_with_draft=counts_with_draft,
        layer_facts=layer_facts,
        attention_layers=attention_layers,
        active_mlp_width=max(0, _active_mlp_width(spec)),
        lora_params_per_rank=max(0, _lora_params_per_rank(spec)),
    )


def _named_counts(spec: ModelSpec) -> tuple[TensorCounts, int]:
    """The parameters of the categories the config names (``other`` left at 0), and the layers that keep a
    per-token cache."""
    c = spec.components
    h = max(0, spec.hidden_size)
    heads = max(0, spec.num_attention_heads)
    attn_k = attn_v = attn_out = 0
    attention_layers = 0
    for group in spec.layer_groups:
        if group.kind in (AttentionKind.FULL, AttentionKind.SLIDING):
            attn_k += group.count * h * group.kv_heads * group.key_dim
            attn_v += group.count * h * group.kv_heads * group.value_dim
            attn_out += group.count * heads * (group.value_dim or spec.head_dim) * h
            attention_layers += group.count
        elif group.kind is AttentionKind.MLA:
            attn_out += group.count * heads * spec.head_dim * h
            attention_layers += group.count
    attention_budget = max(0, c.attention)
    if attn_k + attn_v + attn_out > attention_budget:
        attn_k = attn_v = attn_out = 0  # the config arithmetic disagrees: treat attention as one block
    experts_down = c.routed_experts // 3
    named = TensorCounts(
        embedding=c.embedding,
        lm_head=c.lm_head,
        norms=c.norms,
        router=c.router,
        vision=c.vision,
        attn_k=attn_k,
        attn_v=attn_v,
        attn_output=attn_out,
        ffn_down=(c.dense_mlp + c.shared_experts) // 3,
        experts=c.routed_experts - experts_down,
        experts_down=experts_down,
        other=0,
    )
    return named, attention_layers


def _active_mlp_width(spec: ModelSpec) -> int:
    """The MLP width a token passes through, averaged over the layers: k × expert width + shared in MoE layers."""
    c = spec.components
    h = max(0, spec.hidden_size)
    moe_layers = max(0, spec.moe_layers)
    experts = max(0, spec.experts_routed)
    expert_width = c.routed_experts // (moe_layers * experts * 3 * h) if moe_layers and experts and h else 0
    dense_layers = max(0, spec.num_layers - moe_layers)
    if moe_layers and expert_width:
        shared_width = c.shared_experts // (moe_layers * 3 * h) if h else 0
        moe_width = max(0, spec.experts_per_token) * expert_width + shared_width
        return (moe_width * moe_layers + spec.intermediate_size * dense_layers) // max(1, spec.num_layers)
    return spec.intermediate_size


def _lora_params_per_rank(spec: ModelSpec) -> int:
    """LoRA over every linear layer except routed experts: r·(in + out) per adapted matrix."""
    c = spec.components
    h = max(0, spec.hidden_size)
    heads = max(0, spec.num_attention_heads)
    moe_layers = max(0, spec.moe_layers)
    dense_layers = max(0, spec.num_layers - moe_layers)
    lora_per_rank = 0
    for group in spec.layer_groups:
        if group.kind in (AttentionKind.FULL, AttentionKind.SLIDING):
            q_out = heads * group.key_dim
            kv_out = group.kv_heads * (group.key_dim + group.value_dim)
            per_layer = (h + q_out) + 2 * h + kv_out + (heads * group.value_dim + h)
            lora_per_rank += group.count * per_layer
        elif group.kind in (AttentionKind.MLA, AttentionKind.LINEAR):
            lora_per_rank += group.count * 8 * h  # four projections of about h in and h out (estimated)
    # gate, up and down of a gated MLP of width w: 3·(h + w) per layer
    lora_per_rank += dense_layers * 3 * (h + spec.intermediate_size)
    if moe_layers and h and c.shared_experts:
        shared_width_total = c.shared_experts // (moe_layers * 3 * h)
        lora_per_rank += moe_layers * 3 * (h + shared_width_total)
    return lora_per_rank


def _fill(named: TensorCounts, total: int) -> TensorCounts:
    """Put the parameters the named categories do not cover into ``other``; scale down if they overshoot."""
    named_sum = sum(named)
    if named_sum <= total:
        return named._replace(other=total - named_sum)
    if named_sum == 0:
        return named
    scaled = [int(n * total / named_sum) for n in named]
    scaled[-1] += total - sum(scaled)
    return TensorCounts(*scaled)
