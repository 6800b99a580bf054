"""The tensor categories precisions treat differently: a model's parameters by category (``TensorCounts``), a
format's bits per parameter for each (``TensorBits``), the layer facts the formats' rules read (``LayerFacts``), and
a format's rule (``BitsRule``); ``precision`` holds every format's rule, ``gguf_types`` llama.cpp's file types."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple


class TensorCounts(NamedTuple):
    """Parameters of one model by the categories formats treat differently (sums to the loaded parameters)."""

    embedding: int
    lm_head: int  # 0 when tied to the embedding
    norms: int
    router: int
    vision: int
    attn_k: int
    attn_v: int
    attn_output: int
    ffn_down: int  # dense-MLP and shared-expert down projections
    experts: int  # routed experts' gate and up projections
    experts_down: int  # routed experts' down projections
    other: int  # every other linear weight (q, gates, up projections, linear-attention projections, biases)


class TensorBits(NamedTuple):
    """Bits per parameter a format stores for each category of ``TensorCounts`` (scales included)."""

    embedding: float
    lm_head: float
    norms: float
    router: float
    vision: float
    attn_k: float
    attn_v: float
    attn_output: float
    ffn_down: float
    experts: float
    experts_down: float
    other: float


class LayerFacts(NamedTuple):
    """What the GGUF mixture rules look at besides tensor sizes."""

    num_layers: int
    gqa_ratio: int  # query heads per KV head
    experts_routed: int
    row_width: int  # hidden size: the row length most tensors are quantized along


BitsRule = Callable[[TensorCounts, LayerFacts], TensorBits]  # a format's bits per category for one model


def weight_bits_total(counts: TensorCounts, bits: TensorBits) -> float:
    """Σ parameters × bits over the categories (bits, not bytes, so callers round once)."""
    return sum(c * b for c, b in zip(counts, bits, strict=True))
