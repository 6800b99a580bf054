"""Weight precisions and real quantization formats: bits per parameter, scales included, per tensor category.

A format quantizes some tensors and keeps others in 16 or 32 bit; the bytes come from applying each format's
bits to the tensors it actually quantizes (docs/methodology.md §2; sources in SOURCES.md). The generic
``int8`` / ``int4`` precisions are the seed page's method (1 byte or 0.5 byte per parameter + 5 % for scales,
applied to every parameter); the named formats (GGUF, AWQ, GPTQ, NF4, MLX, MXFP4, NVFP4) carry their true bytes.

The tensor categories and a format's rule are in ``tensor_bits``; llama.cpp's GGUF file types in ``gguf_types``
(``GGUF_TYPE_BITS``, ``gguf_key`` and ``more_bits_layers`` are also importable from here).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .gguf_types import GGUF_FTYPES, GGUF_NOMINAL, GGUF_PREFIX, GgufFtype, gguf_rule
from .gguf_types import GGUF_TYPE_BITS as GGUF_TYPE_BITS
from .gguf_types import gguf_key as gguf_key
from .gguf_types import more_bits_layers as more_bits_layers
from .tensor_bits import BitsRule, LayerFacts, TensorBits, TensorCounts

# Scale overhead of the real formats (docs/methodology.md §2.2–2.8).
FP8_BLOCK_BITS = 8 + 32 / (128 * 128)  # DeepSeek-style FP8, one fp32 scale per 128×128 block
GPTQ_AWQ_G128_BITS = 4 + 16 / 128 + 4 / 128  # int4 + fp16 scale + packed 4-bit zero per group of 128
NF4_DOUBLE_QUANT_BITS = 4 + 8 / 64 + 32 / (64 * 256)  # bitsandbytes NF4, absmax re-quantized in blocks of 256
MXFP4_BITS = 17 * 8 / 32  # E2M1 values + one E8M0 scale per 32
# NVFP4 (NVIDIA ModelOpt "NVFP4", llm-compressor "nvfp4-pack-quantized"): E2M1 values, two per byte, with one FP8 E4M3
# scale per 16; the one or two fp32 scales per matrix (weight and input global scale) are below 1e-6 bit per weight
# and left out (docs/methodology.md §2.11)
NVFP4_BITS = 4 + 8 / 16
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
    family: str  # "float" | "generic" | "gguf" | "awq" | "gptq" | "w8a8" | "bnb" | "mlx" | "mxfp4" | "nvfp4" | "fp8"
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
    """Formats checkpoints ship in for GPU engines: AWQ, GPTQ, bitsandbytes NF4, MXFP4 experts, NVFP4."""
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
        Precision(
            "nvfp4",
            "NVFP4",
            "nvfp4",
            NVFP4_BITS,
            _linear_only(NVFP4_BITS),
            "linear weights NVFP4 (E2M1 + one FP8 E4M3 scale per 16, experts included); embeddings, head, norms, "
            "router and vision tower stay 16-bit",
            "§2.11, §2.9",
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


def _gguf_precision(name: str, ftype: GgufFtype) -> Precision:
    return Precision(
        gguf_key(name),
        f"GGUF {name}",
        "gguf",
        GGUF_NOMINAL[name],
        gguf_rule(ftype),
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
        *(_gguf_precision(name, ftype) for name, ftype in GGUF_FTYPES.items()),
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
