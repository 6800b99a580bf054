"""llama.cpp's GGUF file types (docs/methodology.md §2.6): the bits of each block type, which tensors each file type
keeps in a wider type (llama-quant.cpp), the bits per category that recipe gives a model, and the precision key a
file type answers to. The weight bytes of a GGUF build come from memory/gguf.py's tensor-by-tensor rules; these
categories give its speed and host-embedding figures."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .tensor_bits import BitsRule, LayerFacts, TensorBits, TensorCounts

# bits per weight of GGUF block types, from ggml-common.h block sizes (docs/methodology.md §2.6)
GGUF_TYPE_BITS: Mapping[str, float] = {
    "F32": 32.0,
    "F16": 16.0,
    "BF16": 16.0,
    "Q8_0": 34 * 8 / 32,
    "Q4_0": 18 * 8 / 32,
    "Q4_1": 20 * 8 / 32,
    "Q5_0": 22 * 8 / 32,
    "Q5_1": 24 * 8 / 32,
    "Q2_K": 84 * 8 / 256,
    "Q3_K": 110 * 8 / 256,
    "Q4_K": 144 * 8 / 256,
    "Q5_K": 176 * 8 / 256,
    "Q6_K": 210 * 8 / 256,
    "IQ1_S": 50 * 8 / 256,
    "IQ1_M": 56 * 8 / 256,
    "IQ2_XXS": 66 * 8 / 256,
    "IQ2_XS": 74 * 8 / 256,
    "IQ2_S": 82 * 8 / 256,
    "IQ3_XXS": 98 * 8 / 256,
    "IQ3_S": 110 * 8 / 256,
    "IQ4_NL": 18 * 8 / 32,
    "IQ4_XS": 136 * 8 / 256,
    "TQ1_0": 54 * 8 / 256,
    "TQ2_0": 66 * 8 / 256,
    "MXFP4": 17 * 8 / 32,
}
# Types whose blocks span 256 values (QK_K): a row not divisible by 256 falls back (llama-quant.cpp).
_K_BLOCK_FALLBACK: Mapping[str, str] = {
    "Q4_K": "Q5_0",
    "Q5_K": "Q5_1",
    "Q6_K": "Q8_0",
    "Q2_K": "Q4_0",
    "Q3_K": "Q4_0",
    "TQ1_0": "Q4_0",
    "TQ2_0": "Q4_0",
    "IQ1_S": "IQ4_NL",
    "IQ1_M": "IQ4_NL",
    "IQ2_XXS": "IQ4_NL",
    "IQ2_XS": "IQ4_NL",
    "IQ2_S": "IQ4_NL",
    "IQ3_XXS": "IQ4_NL",
    "IQ3_S": "IQ4_NL",
    "IQ4_XS": "IQ4_NL",
}


def more_bits_layers(n_layers: int) -> int:
    """Layers llama.cpp's ``use_more_bits(i, n)`` selects: ``i < n/8 || i >= 7n/8 || (i - n/8) % 3 == 2``."""
    eighth = n_layers // 8
    return sum(1 for i in range(n_layers) if i < eighth or i >= 7 * n_layers // 8 or (i - eighth) % 3 == 2)


@dataclass(frozen=True, slots=True)
class GgufFtype:
    base: str
    output: str
    embedding: str
    attn_v: tuple[tuple[str, str], ...] = ()  # ("more_bits", type) | ("first_n:k", type) | ("rest", type)
    ffn_down: tuple[tuple[str, str], ...] = ()
    attn_output: str | None = None
    non_expert: str | None = None  # MXFP4_MOE: type of tensors outside the routed experts


def gguf_rule(ftype: GgufFtype) -> BitsRule:
    def bits_of(type_name: str, facts: LayerFacts) -> float:
        if facts.row_width % 256 and type_name in _K_BLOCK_FALLBACK:
            type_name = _K_BLOCK_FALLBACK[type_name]
        return GGUF_TYPE_BITS[type_name]

    def layered(rules: tuple[tuple[str, str], ...], default: str, facts: LayerFacts) -> float:
        n = max(1, facts.num_layers)
        remaining = n
        total = 0.0
        for selector, type_name in rules:
            if selector == "more_bits":
                layers = more_bits_layers(n)
            elif selector.startswith("first_n:"):
                layers = min(remaining, int(selector.split(":")[1]))
            elif selector == "first_eighth":
                layers = min(remaining, n // 8)
            elif selector == "first_sixteenth":
                layers = min(remaining, n // 16)
            elif selector == "gqa>=4":
                layers = remaining if facts.gqa_ratio >= 4 else 0
            else:  # "rest"
                layers = remaining
            layers = min(layers, remaining)
            total += layers * bits_of(type_name, facts)
            remaining -= layers
        total += remaining * bits_of(default, facts)
        return total / n

    def rule(_counts: TensorCounts, facts: LayerFacts) -> TensorBits:
        base = bits_of(ftype.base, facts)
        non_expert = bits_of(ftype.non_expert, facts) if ftype.non_expert else base
        attn_v = layered(ftype.attn_v, ftype.base, facts) if ftype.attn_v else non_expert
        attn_k = non_expert
        attn_output = bits_of(ftype.attn_output, facts) if ftype.attn_output else non_expert
        if facts.experts_routed == 8 and ftype.base not in ("Q8_0", "F16", "BF16", "F32"):
            # llama-quant.cpp: 8-expert models (Mixtral) keep attn_k / attn_v at Q8_0, attn_output at Q5_K
            attn_v = attn_k = GGUF_TYPE_BITS["Q8_0"]
            attn_output = bits_of("Q5_K", facts)
        ffn_down = layered(ftype.ffn_down, ftype.base, facts) if ftype.ffn_down else non_expert
        experts_down = layered(ftype.ffn_down, ftype.base, facts) if ftype.ffn_down else base
        return TensorBits(
            # a tied embedding is the output tensor, stored once in the output's type (llama-quant.cpp)
            embedding=bits_of(ftype.output if not _counts.lm_head else ftype.embedding, facts),
            lm_head=bits_of(ftype.output, facts),
            norms=32.0,  # GGUF stores 1-D tensors in F32
            router=16.0,  # ffn_gate_inp is never quantized
            vision=16.0,  # the vision tower ships as a separate f16 mmproj file
            attn_k=attn_k,
            attn_v=attn_v,
            attn_output=attn_output,
            ffn_down=ffn_down,
            experts=base,
            experts_down=experts_down,
            other=non_expert,
        )

    return rule


_MORE_Q6 = (("more_bits", "Q6_K"),)
_IQ_LOW_OUTPUT = "Q5_K"  # IQ1/IQ2 and IQ3_XXS files keep the output at Q5_K
# Category approximation of each file type (speed and host-embedding figures); the weight bytes themselves come
# from memory/gguf.py's tensor-by-tensor rules.
GGUF_FTYPES: Mapping[str, GgufFtype] = {
    "F32": GgufFtype("F32", "F32", "F32"),
    "F16": GgufFtype("F16", "F16", "F16"),
    "BF16": GgufFtype("BF16", "BF16", "BF16"),
    "Q8_0": GgufFtype("Q8_0", "Q8_0", "Q8_0"),
    "Q6_K": GgufFtype("Q6_K", "Q6_K", "Q6_K"),
    "Q5_K_M": GgufFtype("Q5_K", "Q6_K", "Q5_K", attn_v=_MORE_Q6, ffn_down=_MORE_Q6),
    "Q5_K_S": GgufFtype("Q5_K", "Q6_K", "Q5_K"),
    "Q5_1": GgufFtype("Q5_1", "Q6_K", "Q5_1"),
    "Q5_0": GgufFtype("Q5_0", "Q6_K", "Q5_0"),
    "Q4_K_M": GgufFtype("Q4_K", "Q6_K", "Q4_K", attn_v=_MORE_Q6, ffn_down=_MORE_Q6),
    "Q4_K_S": GgufFtype("Q4_K", "Q6_K", "Q4_K", attn_v=(("first_n:4", "Q5_K"),), ffn_down=(("first_eighth", "Q5_K"),)),
    "Q4_1": GgufFtype("Q4_1", "Q6_K", "Q4_1"),
    "Q4_0": GgufFtype("Q4_0", "Q6_K", "Q4_0"),
    "Q3_K_L": GgufFtype(
        "Q3_K", "Q6_K", "Q3_K", attn_v=(("rest", "Q5_K"),), ffn_down=(("rest", "Q5_K"),), attn_output="Q5_K"
    ),
    "Q3_K_M": GgufFtype(
        "Q3_K",
        "Q6_K",
        "Q3_K",
        attn_v=(("first_n:2", "Q5_K"), ("rest", "Q4_K")),
        ffn_down=(("first_sixteenth", "Q5_K"), ("rest", "Q4_K")),
        attn_output="Q4_K",
    ),
    "Q3_K_S": GgufFtype("Q3_K", "Q6_K", "Q3_K"),
    "Q2_K": GgufFtype(
        "Q2_K",
        "Q6_K",
        "Q2_K",
        attn_v=(("gqa>=4", "Q4_K"), ("rest", "Q3_K")),
        ffn_down=(("rest", "Q3_K"),),
        attn_output="Q3_K",
    ),
    "Q2_K_S": GgufFtype("Q2_K", "Q6_K", "Q2_K", attn_v=(("gqa>=4", "Q4_K"),), ffn_down=(("first_eighth", "Q4_K"),)),
    "IQ4_XS": GgufFtype("IQ4_XS", "Q6_K", "IQ4_XS", attn_v=(("gqa>=4", "Q5_K"),)),
    "IQ4_NL": GgufFtype("IQ4_NL", "Q6_K", "IQ4_NL", attn_v=(("gqa>=4", "Q5_K"),)),
    "IQ3_M": GgufFtype(
        "IQ3_S", "Q6_K", "IQ3_S", attn_v=(("rest", "Q4_K"),), ffn_down=(("first_eighth", "Q4_K"),), attn_output="Q4_K"
    ),
    "IQ3_S": GgufFtype("IQ3_S", "Q6_K", "IQ3_S", attn_v=(("gqa>=4", "Q4_K"),)),
    "IQ3_XS": GgufFtype("IQ3_S", "Q6_K", "IQ3_S", attn_v=(("gqa>=4", "Q4_K"),)),
    "IQ3_XXS": GgufFtype("IQ3_XXS", _IQ_LOW_OUTPUT, "IQ3_S", attn_v=(("gqa>=4", "Q4_K"),), attn_output="IQ3_S"),
    "IQ2_M": GgufFtype(
        "IQ2_S", _IQ_LOW_OUTPUT, "IQ3_S", attn_v=(("gqa>=4", "Q4_K"), ("rest", "IQ3_S")), attn_output="IQ3_S"
    ),
    "IQ2_S": GgufFtype(
        "IQ2_XS", _IQ_LOW_OUTPUT, "IQ3_S", attn_v=(("gqa>=4", "Q4_K"), ("rest", "IQ3_S")), attn_output="IQ3_S"
    ),
    "IQ2_XS": GgufFtype("IQ2_XS", _IQ_LOW_OUTPUT, "Q2_K", attn_v=(("gqa>=4", "Q4_K"), ("rest", "Q2_K"))),
    "IQ2_XXS": GgufFtype("IQ2_XXS", _IQ_LOW_OUTPUT, "Q2_K", attn_v=(("gqa>=4", "Q4_K"), ("rest", "Q2_K"))),
    "IQ1_M": GgufFtype(
        "IQ1_M", _IQ_LOW_OUTPUT, "Q2_K", attn_v=(("gqa>=4", "Q4_K"), ("rest", "Q2_K")), attn_output="IQ2_XXS"
    ),
    "IQ1_S": GgufFtype(
        "IQ1_S", _IQ_LOW_OUTPUT, "Q2_K", attn_v=(("gqa>=4", "Q4_K"), ("rest", "Q2_K")), attn_output="IQ2_XXS"
    ),
    "TQ2_0": GgufFtype("TQ2_0", "Q6_K", "Q4_K"),
    "TQ1_0": GgufFtype("TQ1_0", "Q6_K", "Q4_K"),
    "MXFP4_MOE": GgufFtype("MXFP4", "Q8_0", "Q8_0", non_expert="Q8_0"),
}
# Headline bits of each file type's default block type (orders file types within the family)
GGUF_NOMINAL: Mapping[str, float] = {name: GGUF_TYPE_BITS[ftype.base] for name, ftype in GGUF_FTYPES.items()}
# File types whose names are also plain dtypes get a "gguf:" key, so "bf16" always means plain bfloat16
GGUF_PREFIX = "gguf:"
_FLOAT_FTYPES = frozenset({"F32", "F16", "BF16"})


def gguf_key(ftype: str) -> str:
    """The precision key of a llama.cpp file type: "Q4_K_M" → "q4_k_m", "BF16" → "gguf:bf16"."""
    name = ftype.strip().upper()
    return GGUF_PREFIX + name.lower() if name in _FLOAT_FTYPES else name.lower()
