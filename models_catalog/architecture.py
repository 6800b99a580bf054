"""What a model is: its architecture, read from a Hugging Face ``config.json``, and its parameter counts.

Pure Python: no Django import, no I/O. ``ModelSpec.from_hf_config`` is the only way in.

INTERFACE CONTRACT (shared by the estimation core and the catalog): the dataclasses below are the fields
other modules rely on. Field meanings are fixed; the parsing logic is filled in behind them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any


class AttentionKind(StrEnum):
    FULL = "full"  # MHA / GQA / MQA: K and V for every KV head, every token
    SLIDING = "sliding"  # sliding-window attention: at most `window` tokens are kept
    MLA = "mla"  # multi-head latent attention: one compressed latent + decoupled rope key per token
    LINEAR = "linear"  # linear attention / SSM: a fixed-size state per sequence, no per-token cache
    NONE = "none"  # a layer that keeps no cache of its own


@dataclass(frozen=True, slots=True)
class LayerGroup:
    """Decoder layers that share one attention layout (cache cost is per layer of the group)."""

    kind: AttentionKind
    count: int
    kv_heads: int = 0  # FULL / SLIDING: KV heads
    key_dim: int = 0  # FULL / SLIDING: per-head K width
    value_dim: int = 0  # FULL / SLIDING: per-head V width
    window: int | None = None  # SLIDING: window in tokens
    latent_dim: int = 0  # MLA: kv_lora_rank
    rope_dim: int = 0  # MLA: qk_rope_head_dim (0 for NoPE MLA)
    indexer_dim: int = 0  # sparse-attention indexer key width per token (DeepSeek-V3.2 DSA style), elements
    state_elements: int = 0  # LINEAR: recurrent / SSM state elements per sequence
    conv_elements: int = 0  # LINEAR: short-convolution state elements per sequence


@dataclass(frozen=True, slots=True)
class ParamCounts:
    """Parameter counts known from outside the config (safetensors metadata, a model card)."""

    total: int | None = None
    active: int | None = None
    by_dtype: Mapping[str, int] | None = None  # safetensors element counts per dtype, as the Hub reports them
    source: str = "safetensors"  # "safetensors" | "model_card" | "reference" | "computed"


@dataclass(frozen=True, slots=True)
class ParamBreakdown:
    """Parameters by component, as computed from the config (sums to the computed total)."""

    embedding: int = 0
    lm_head: int = 0  # 0 when tied to the embedding
    attention: int = 0
    dense_mlp: int = 0
    routed_experts: int = 0
    shared_experts: int = 0
    router: int = 0
    norms: int = 0
    vision: int = 0  # vision tower + projector
    mtp: int = 0  # multi-token-prediction / next-n layers (stored, skipped by engines unless MTP is on)
    other: int = 0

    @property
    def total(self) -> int:
        return (
            self.embedding
            + self.lm_head
            + self.attention
            + self.dense_mlp
            + self.routed_experts
            + self.shared_experts
            + self.router
            + self.norms
            + self.vision
            + self.mtp
            + self.other
        )


@dataclass(frozen=True, slots=True)
class ModelSpec:
    model_type: str
    family: str  # normalised architecture family, e.g. "llama", "qwen3_moe", "deepseek_v3", "generic"
    hidden_size: int
    num_layers: int  # decoder layers, excluding MTP layers
    num_attention_heads: int
    num_kv_heads: int
    head_dim: int
    vocab_size: int
    intermediate_size: int
    tie_word_embeddings: bool
    max_context: int | None
    layer_groups: tuple[LayerGroup, ...]
    params_total: int  # every tensor the checkpoint stores, counted as parameters (not packed elements)
    params_active: int  # per token
    params_source: str  # where params_total came from: "safetensors" | "model_card" | "reference" | "computed"
    params_active_source: str
    components: ParamBreakdown  # computed from the config
    params_not_loaded: int = 0  # stored but not loaded by engines (MTP layers), included in params_total
    experts_routed: int = 0
    experts_shared: int = 0
    experts_per_token: int = 0
    moe_layers: int = 0
    has_vision: bool = False
    native_dtype: str = "bf16"  # as released: "bf16", "fp16", "fp32", "fp8", "mxfp4", ...
    estimated_fields: tuple[str, ...] = ()  # every field that was guessed rather than read
    notes: tuple[str, ...] = field(default_factory=tuple)  # plain-English caveats for the page
    # Added fields (defaults keep older constructors valid):
    # active parameters as computed from the config whatever params_active's source: everything one token
    # multiplies, input embedding excluded unless tied (docs/methodology.md §1.4); 0 when not computed
    params_active_computed: int = 0
    # stored elements the Hub's safetensors total would show for this config and release format (packed
    # MXFP4 values, FP8 block scales, GPTQ/AWQ side tensors); equals the computed total for plain dtypes
    params_stored_elements: int = 0
    # layers that attend to image tokens (Llama 3.2 Vision); they appear in layer_groups as AttentionKind.NONE
    # because their cache holds the image's keys/values, not one entry per text token
    cross_attention_layers: int = 0

    @classmethod
    def from_hf_config(cls, config: Mapping[str, Any], params: ParamCounts | None = None) -> ModelSpec:
        """What a model is, from its ``config.json`` (and safetensors counts when known).

        Never raises: missing, ``None`` or mistyped keys fall back to estimates named in ``estimated_fields``.
        """
        from models_catalog._arch_build import build

        if not isinstance(config, Mapping):
            config = {}
        try:
            return cls(**build(config, params))
        except Exception as error:  # a config shape no rule anticipated must not break a page
            spec = cls(**build({}, None))
            return replace(
                spec,
                model_type=str(config.get("model_type", "unknown"))[:100],
                notes=(
                    *spec.notes,
                    f"This config.json could not be read ({type(error).__name__}); all figures are estimates.",
                ),
            )

    @property
    def params_loaded(self) -> int:
        """Parameters engines load by default (the stored total minus MTP layers)."""
        return self.params_total - self.params_not_loaded

    @property
    def is_moe(self) -> bool:
        return self.experts_routed > 0

    @property
    def kv_elements_per_token(self) -> int:
        """Cache elements each token adds across all layers whose cache grows with context (one sequence).

        Full attention keeps K and V per KV head; MLA keeps one latent plus the rope key (vLLM/SGLang layout);
        a sparse-attention indexer adds its key. Sliding-window, linear and cache-less layers are excluded:
        see ``window_kv_elements_per_token`` and ``state_elements_per_sequence``.
        """
        total = 0
        for group in self.layer_groups:
            if group.kind is AttentionKind.FULL:
                total += group.count * group.kv_heads * (group.key_dim + group.value_dim)
            elif group.kind is AttentionKind.MLA:
                total += group.count * (group.latent_dim + group.rope_dim + group.indexer_dim)
        return total

    def window_kv_elements(self, context_tokens: int) -> int:
        """Cache elements of the sliding-window layers for one sequence of ``context_tokens`` (window-capped)."""
        return sum(
            group.count * group.kv_heads * (group.key_dim + group.value_dim) * min(context_tokens, group.window or 0)
            for group in self.layer_groups
            if group.kind is AttentionKind.SLIDING
        )

    @property
    def state_elements_per_sequence(self) -> int:
        """Fixed-size linear-attention / SSM state (recurrent + convolution) per sequence, all layers."""
        return sum(
            group.count * (group.state_elements + group.conv_elements)
            for group in self.layer_groups
            if group.kind is AttentionKind.LINEAR
        )

    def summary(self) -> dict[str, object]:
        """Plain values for the catalog page and the JSON API."""
        return {
            "model_type": self.model_type,
            "family": self.family,
            "params_total": self.params_total,
            "params_active": self.params_active,
            "params_source": self.params_source,
            "params_active_source": self.params_active_source,
            "params_not_loaded": self.params_not_loaded,
            "layers": self.num_layers,
            "hidden_size": self.hidden_size,
            "attention": [
                {"kind": str(group.kind), "layers": group.count, "window": group.window} for group in self.layer_groups
            ],
            "experts": {
                "routed": self.experts_routed,
                "shared": self.experts_shared,
                "per_token": self.experts_per_token,
                "moe_layers": self.moe_layers,
            },
            "max_context": self.max_context,
            "native_dtype": self.native_dtype,
            "has_vision": self.has_vision,
            "estimated_fields": list(self.estimated_fields),
            "notes": list(self.notes),
        }
