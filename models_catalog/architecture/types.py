"""The value types every layer of the architecture reader and the estimation core share.

INTERFACE CONTRACT (shared by the estimation core and the catalog): the dataclasses here and ``ModelSpec`` in
``spec`` are the fields other modules rely on. Field meanings are fixed; the parsing logic is filled in behind them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum


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
    indexer_pool: int = 1  # tokens one indexer key stands for: GLM-5.3-Flash pools 4 (index_kpool), V3.2 keeps each
    state_elements: int = 0  # LINEAR: recurrent / SSM state elements per sequence
    conv_elements: int = 0  # LINEAR: short-convolution state elements per sequence


@dataclass(frozen=True, slots=True)
class ParamCounts:
    """Parameter counts known from outside the config (safetensors metadata, a model card)."""

    total: int | None = None
    active: int | None = None
    by_dtype: Mapping[str, int] | None = None  # safetensors element counts per dtype, as the Hub reports them
    source: str = "safetensors"  # "safetensors" | "model_card" | "reference" | "computed"
    active_given: bool = False  # the reader gave ``active`` (the command line's --active-params): used as given


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
class VisionEncoder:
    """The shape of a vision tower an engine runs on images (and videos): what vLLM's start-up profile of the encoder
    reads (calculator/estimation/memory/encoder_profile.py). Known for the towers whose layout is counted exactly."""

    kind: str  # "qwen2_5_vl" | "qwen2_vl" (windowed ViT with a 2 × 2 merger, takes videos) | "siglip" (Gemma 3)
    width: int  # the ViT's hidden size
    ffn: int  # its MLP width
    pixels_per_token: int  # pixel values one ViT token carries: channels × temporal patch × patch²
    merge: int  # ViT tokens per LM token along each side (Qwen: 2); 1 where a projector pools instead
    image_tokens: int  # LM tokens of the largest image the stock preprocessor makes
    vit_tokens_per_image: int  # ViT tokens of that image
    takes_video: bool
