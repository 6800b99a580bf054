"""Weight precisions and real quantization formats: bits per parameter, scales included, per tensor category.

A format quantizes some tensors and keeps others in 16 or 32 bit; the bytes come from applying each format's
bits to the tensors it actually quantizes (docs/methodology.md §2; sources in SOURCES.md). The generic
``int8`` / ``int4`` precisions are the seed page's method (1 byte or 0.5 byte per parameter + 5 % for scales,
applied to every parameter); the named formats (GGUF, AWQ, GPTQ, NF4, MLX, MXFP4) carry their true bytes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
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

# Scale overhead of the real formats (docs/methodology.md §2.2–2.8).
FP8_BLOCK_BITS = 8 + 32 / (128 * 128)  # DeepSeek-style FP8, one fp32 scale per 128×128 block
GPTQ_AWQ_G128_BITS = 4 + 16 / 128 + 4 / 128  # int4 + fp16 scale + packed 4-bit zero per group of 128
NF4_DOUBLE_QUANT_BITS = 4 + 8 / 64 + 32 / (64 * 256)  # bitsandbytes NF4, absmax re-quantized in blocks of 256
MXFP4_BITS = 17 * 8 / 32  # E2M1 values + one E8M0 scale per 32
# INT8 W8A8 (llm-compressor's scheme, compressed-tensors): int8 weights with one 16-bit scale per output channel, a
# share of a bit per weight below 0.004 for inputs of 4,096 or more; activations are quantized per token at run time
W8A8_BITS = 8.0
MLX_ROUTER_BITS = 8 + 32 / 64  # mlx-lm keeps MoE routers at 8-bit g64


def _mlx_bits(bits: int) -> float:
    return bits + 32 / 64  # affine, group 64: an fp16 scale and an fp16 bias per group


@dataclass(frozen=True, slots=True)
class Precision:
    key: str  # as the query string and the CLI spell it: "fp16", "int4", "q4_k_m", "mlx-4bit"
    label: str  # as pages show it: "FP16 / BF16", "GGUF Q4_K_M"
    family: str  # "float" | "generic" | "gguf" | "awq" | "gptq" | "w8a8" | "bnb" | "mlx" | "mxfp4" | "fp8"
    nominal_bits: float  # the headline bits of the quantized tensors (orders precisions within a family)
    bits: BitsRule  # effective bits per category
    description: str  # what is quantized, what stays wide
    source: str  # memory-methodology section the rule comes from
    estimated: bool = False  # True when a mixture rule is only partly documented
    kv_bytes_default: float = 2.0
    gguf_ftype: str = ""  # llama.cpp file type ("Q4_K_M", "BF16") of GGUF builds, sized tensor by tensor (gguf.py)


def _uniform(bits: float) -> BitsRule:
    def rule(_counts: TensorCounts, _facts: LayerFacts) -> TensorBits:
        return TensorBits(*(bits,) * len(TensorBits._fields))

    return rule


def _linear_only(
    linear_bits: float,
    *,
    embedding: float = 16.0,
    lm_head: float = 16.0,
    norms: float = 16.0,
    router: float = 16.0,
    vision: float = 16.0,
    experts: float | None = None,
) -> BitsRule:
    expert_bits = linear_bits if experts is None else experts

    def rule(_counts: TensorCounts, _facts: LayerFacts) -> TensorBits:
        return TensorBits(
            embedding=embedding,
            lm_head=lm_head,
            norms=norms,
            router=router,
            vision=vision,
            attn_k=linear_bits,
            attn_v=linear_bits,
            attn_output=linear_bits,
            ffn_down=linear_bits,
            experts=expert_bits,
            experts_down=expert_bits,
            other=linear_bits,
        )

    return rule


def _gptq_rule(counts: TensorCounts, facts: LayerFacts) -> TensorBits:
    # g_idx: one int32 per input channel of each matrix, i.e. 32 / out_features bits per weight
    return _linear_only(GPTQ_AWQ_G128_BITS + 32 / max(1, facts.row_width))(counts, facts)


def more_bits_layers(n_layers: int) -> int:
    """Layers llama.cpp's ``use_more_bits(i, n)`` selects: ``i < n/8 || i >= 7n/8 || (i - n/8) % 3 == 2``."""
    eighth = n_layers // 8
    return sum(1 for i in range(n_layers) if i < eighth or i >= 7 * n_layers // 8 or (i - eighth) % 3 == 2)


@dataclass(frozen=True, slots=True)
class _GgufFtype:
    base: str
    output: str
    embedding: str
    attn_v: tuple[tuple[str, str], ...] = ()  # ("more_bits", type) | ("first_n:k", type) | ("rest", type)
    ffn_down: tuple[tuple[str, str], ...] = ()
    attn_output: str | None = None
    non_expert: str | None = None  # MXFP4_MOE: type of tensors outside the routed experts


def _gguf_rule(ftype: _GgufFtype) -> BitsRule:
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
_GGUF_FTYPES: Mapping[str, _GgufFtype] = {
    "F32": _GgufFtype("F32", "F32", "F32"),
    "F16": _GgufFtype("F16", "F16", "F16"),
    "BF16": _GgufFtype("BF16", "BF16", "BF16"),
    "Q8_0": _GgufFtype("Q8_0", "Q8_0", "Q8_0"),
    "Q6_K": _GgufFtype("Q6_K", "Q6_K", "Q6_K"),
    "Q5_K_M": _GgufFtype("Q5_K", "Q6_K", "Q5_K", attn_v=_MORE_Q6, ffn_down=_MORE_Q6),
    "Q5_K_S": _GgufFtype("Q5_K", "Q6_K", "Q5_K"),
    "Q5_1": _GgufFtype("Q5_1", "Q6_K", "Q5_1"),
    "Q5_0": _GgufFtype("Q5_0", "Q6_K", "Q5_0"),
    "Q4_K_M": _GgufFtype("Q4_K", "Q6_K", "Q4_K", attn_v=_MORE_Q6, ffn_down=_MORE_Q6),
    "Q4_K_S": _GgufFtype("Q4_K", "Q6_K", "Q4_K", attn_v=(("first_n:4", "Q5_K"),), ffn_down=(("first_eighth", "Q5_K"),)),
    "Q4_1": _GgufFtype("Q4_1", "Q6_K", "Q4_1"),
    "Q4_0": _GgufFtype("Q4_0", "Q6_K", "Q4_0"),
    "Q3_K_L": _GgufFtype(
        "Q3_K", "Q6_K", "Q3_K", attn_v=(("rest", "Q5_K"),), ffn_down=(("rest", "Q5_K"),), attn_output="Q5_K"
    ),
    "Q3_K_M": _GgufFtype(
        "Q3_K",
        "Q6_K",
        "Q3_K",
        attn_v=(("first_n:2", "Q5_K"), ("rest", "Q4_K")),
        ffn_down=(("first_sixteenth", "Q5_K"), ("rest", "Q4_K")),
        attn_output="Q4_K",
    ),
    "Q3_K_S": _GgufFtype("Q3_K", "Q6_K", "Q3_K"),
    "Q2_K": _GgufFtype(
        "Q2_K",
        "Q6_K",
        "Q2_K",
        attn_v=(("gqa>=4", "Q4_K"), ("rest", "Q3_K")),
        ffn_down=(("rest", "Q3_K"),),
        attn_output="Q3_K",
    ),
    "Q2_K_S": _GgufFtype("Q2_K", "Q6_K", "Q2_K", attn_v=(("gqa>=4", "Q4_K"),), ffn_down=(("first_eighth", "Q4_K"),)),
    "IQ4_XS": _GgufFtype("IQ4_XS", "Q6_K", "IQ4_XS", attn_v=(("gqa>=4", "Q5_K"),)),
    "IQ4_NL": _GgufFtype("IQ4_NL", "Q6_K", "IQ4_NL", attn_v=(("gqa>=4", "Q5_K"),)),
    "IQ3_M": _GgufFtype(
        "IQ3_S", "Q6_K", "IQ3_S", attn_v=(("rest", "Q4_K"),), ffn_down=(("first_eighth", "Q4_K"),), attn_output="Q4_K"
    ),
    "IQ3_S": _GgufFtype("IQ3_S", "Q6_K", "IQ3_S", attn_v=(("gqa>=4", "Q4_K"),)),
    "IQ3_XS": _GgufFtype("IQ3_S", "Q6_K", "IQ3_S", attn_v=(("gqa>=4", "Q4_K"),)),
    "IQ3_XXS": _GgufFtype("IQ3_XXS", _IQ_LOW_OUTPUT, "IQ3_S", attn_v=(("gqa>=4", "Q4_K"),), attn_output="IQ3_S"),
    "IQ2_M": _GgufFtype(
        "IQ2_S", _IQ_LOW_OUTPUT, "IQ3_S", attn_v=(("gqa>=4", "Q4_K"), ("rest", "IQ3_S")), attn_output="IQ3_S"
    ),
    "IQ2_S": _GgufFtype(
        "IQ2_XS", _IQ_LOW_OUTPUT, "IQ3_S", attn_v=(("gqa>=4", "Q4_K"), ("rest", "IQ3_S")), attn_output="IQ3_S"
    ),
    "IQ2_XS": _GgufFtype("IQ2_XS", _IQ_LOW_OUTPUT, "Q2_K", attn_v=(("gqa>=4", "Q4_K"), ("rest", "Q2_K"))),
    "IQ2_XXS": _GgufFtype("IQ2_XXS", _IQ_LOW_OUTPUT, "Q2_K", attn_v=(("gqa>=4", "Q4_K"), ("rest", "Q2_K"))),
    "IQ1_M": _GgufFtype(
        "IQ1_M", _IQ_LOW_OUTPUT, "Q2_K", attn_v=(("gqa>=4", "Q4_K"), ("rest", "Q2_K")), attn_output="IQ2_XXS"
    ),
    "IQ1_S": _GgufFtype(
        "IQ1_S", _IQ_LOW_OUTPUT, "Q2_K", attn_v=(("gqa>=4", "Q4_K"), ("rest", "Q2_K")), attn_output="IQ2_XXS"
    ),
    "TQ2_0": _GgufFtype("TQ2_0", "Q6_K", "Q4_K"),
    "TQ1_0": _GgufFtype("TQ1_0", "Q6_K", "Q4_K"),
    "MXFP4_MOE": _GgufFtype("MXFP4", "Q8_0", "Q8_0", non_expert="Q8_0"),
}
# Headline bits of each file type's default block type (orders file types within the family)
_GGUF_NOMINAL: Mapping[str, float] = {name: GGUF_TYPE_BITS[ftype.base] for name, ftype in _GGUF_FTYPES.items()}
# File types whose names are also plain dtypes get a "gguf:" key, so "bf16" always means plain bfloat16
GGUF_PREFIX = "gguf:"
_FLOAT_FTYPES = frozenset({"F32", "F16", "BF16"})


def gguf_key(ftype: str) -> str:
    """The precision key of a llama.cpp file type: "Q4_K_M" → "q4_k_m", "BF16" → "gguf:bf16"."""
    name = ftype.strip().upper()
    return GGUF_PREFIX + name.lower() if name in _FLOAT_FTYPES else name.lower()


def _float_precisions() -> list[Precision]:
    return [
        Precision("fp32", "FP32", "float", 32, _uniform(32), "every tensor in 32-bit floats", "§2.1"),
        Precision("fp16", "FP16 / BF16", "float", 16, _uniform(16), "every tensor in 16-bit floats", "§2.1"),
        Precision("bf16", "BF16", "float", 16, _uniform(16), "every tensor in bfloat16", "§2.1"),
    ]


def _fp8_precision() -> Precision:
    return Precision(
        "fp8",
        "FP8",
        "fp8",
        8,
        _linear_only(FP8_BLOCK_BITS),
        "linear weights FP8 E4M3 with one fp32 scale per 128×128 block; embeddings, head, norms, "
        "router and vision tower stay BF16",
        "§2.2, §2.9",
    )


def _seed_precisions() -> list[Precision]:
    """The seed page's generic int8 / int4: every parameter, + 5 % for scales."""
    return [
        Precision(
            "int8",
            "INT8",
            "generic",
            8,
            _uniform(8 * 1.05),
            "1 byte per parameter + 5 % for quantization scales, every parameter",
            "seed 000 ('So rechnen wir')",
        ),
        Precision(
            "int4",
            "INT4",
            "generic",
            4,
            _uniform(4 * 1.05),
            "0.5 byte per parameter + 5 % for quantization scales, every parameter",
            "seed 000 ('So rechnen wir')",
        ),
    ]


def _checkpoint_formats() -> list[Precision]:
    """Formats checkpoints ship in for GPU engines: AWQ, GPTQ, bitsandbytes NF4, MXFP4 experts."""
    return [
        Precision(
            "awq",
            "AWQ int4 g128",
            "awq",
            4,
            _linear_only(GPTQ_AWQ_G128_BITS),
            "linear weights 4-bit, fp16 scale and packed 4-bit zero per 128; embeddings, head, norms, "
            "router and vision tower stay 16-bit",
            "§2.4, §2.9",
        ),
        Precision(
            "gptq",
            "GPTQ int4 g128",
            "gptq",
            4,
            _gptq_rule,
            "as AWQ, plus an int32 g_idx per input channel (counted with the model's real widths)",
            "§2.4, §2.9",
        ),
        Precision(
            "w8a8",
            "INT8 W8A8",
            "w8a8",
            8,
            _linear_only(W8A8_BITS),
            "linear weights int8 with a 16-bit scale per output channel (activations int8 per token at run time); "
            "embeddings, head (the recipe ignores lm_head), norms, router and vision tower stay 16-bit",
            "§2.9",
        ),
        Precision(
            "nf4",
            "bitsandbytes NF4",
            "bnb",
            4,
            _linear_only(NF4_DOUBLE_QUANT_BITS),
            "nn.Linear weights NF4 in blocks of 64 with double-quantized absmax; embeddings, lm_head "
            "(skipped by default), norms and vision tower stay 16-bit",
            "§2.5, §2.9",
        ),
        Precision(
            "mxfp4",
            "MXFP4",
            "mxfp4",
            4.25,
            _linear_only(16.0, experts=MXFP4_BITS),
            "routed-expert weights MXFP4 (E2M1 + one E8M0 scale per 32); every other tensor BF16",
            "§2.8",
        ),
    ]


def _mlx_precision(bits: int) -> Precision:
    return Precision(
        f"mlx-{bits}bit",
        f"MLX {bits}-bit",
        "mlx",
        bits,
        _linear_only(_mlx_bits(bits), embedding=_mlx_bits(bits), lm_head=_mlx_bits(bits), router=MLX_ROUTER_BITS),
        f"linear and embedding weights affine {bits}-bit, group 64 (fp16 scale + bias); routers "
        "8-bit; norms and vision tower 16-bit",
        "§2.7",
    )


def _gguf_precision(name: str, ftype: _GgufFtype) -> Precision:
    return Precision(
        gguf_key(name),
        f"GGUF {name}",
        "gguf",
        _GGUF_NOMINAL[name],
        _gguf_rule(ftype),
        f"llama.cpp {name}: body {ftype.base}, output {ftype.output}, token_embd {ftype.embedding}",
        "§2.6",
        gguf_ftype=name,
    )


def _build() -> dict[str, Precision]:
    table = [
        *_float_precisions(),
        _fp8_precision(),
        *_seed_precisions(),
        *_checkpoint_formats(),
        *(_mlx_precision(bits) for bits in (2, 3, 4, 5, 6, 8)),
        *(_gguf_precision(name, ftype) for name, ftype in _GGUF_FTYPES.items()),
    ]
    return {p.key: p for p in table}


PRECISIONS: Mapping[str, Precision] = _build()
GENERIC_LADDER: tuple[str, ...] = ("int4", "int8", "fp16", "fp32")  # seed method, increasing bits
# GGUF's float file types are not on the ladder: a model released with MXFP4 experts keeps them in its F16 file
# (gpt-oss-20b: F16 file 13.8 GB, Q8_0 file 22.3 GB), so "more bits" does not mean "bigger" there.
GGUF_LADDER: tuple[str, ...] = ("iq2_xxs", "q2_k", "q3_k_m", "q4_k_m", "q5_k_m", "q6_k", "q8_0")
MLX_LADDER: tuple[str, ...] = ("mlx-2bit", "mlx-3bit", "mlx-4bit", "mlx-5bit", "mlx-6bit", "mlx-8bit")
# The precisions a model page shows by default, in the seed's order.
PAGE_PRECISIONS: tuple[str, ...] = ("fp16", "fp8", "int8", "int4", "awq", "q8_0", "q4_k_m", "nf4", "mlx-4bit")


# Spellings readers use for the plain dtypes. "f16" named GGUF F16 before GGUF's float file types had their own
# "gguf:" keys; a plain 16-bit estimate differs from it only by the F32 norms, so old links stay meaningful.
PRECISION_ALIASES: Mapping[str, str] = {
    "f16": "fp16",
    "f32": "fp32",
    "float16": "fp16",
    "bfloat16": "bf16",
    "float32": "fp32",
}


def get_precision(name: str) -> Precision | None:
    """A precision by its key, case-insensitive (``Q4_K_M`` and ``q4_k_m`` are the same). Plain dtypes (``bf16``,
    ``fp16``, ``f32``) never resolve to a GGUF file type; those are ``gguf:bf16``, ``gguf:f16``, ``gguf:f32``, and
    every GGUF file type also answers to its ``gguf:`` spelling (``gguf:q4_k_m``)."""
    key = name.strip().lower()
    key = PRECISION_ALIASES.get(key, key)
    found = PRECISIONS.get(key)
    if found is None and key.startswith(GGUF_PREFIX):
        found = PRECISIONS.get(key.removeprefix(GGUF_PREFIX))
        return found if found is not None and found.family == "gguf" else None
    return found


def weight_bits_total(counts: TensorCounts, bits: TensorBits) -> float:
    """Σ parameters × bits over the categories (bits, not bytes, so callers round once)."""
    return sum(c * b for c, b in zip(counts, bits, strict=True))
