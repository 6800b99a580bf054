"""Weight memory: parameters × the true bits of a precision or format, cached per spec and precision."""

from __future__ import annotations

from models_catalog.architecture import ModelSpec

from ..facts import SpecFacts, spec_facts
from ..memo import per_spec
from ..precision import (
    NF4_DOUBLE_QUANT_BITS,
    Precision,
    get_precision,
)
from ..tensor_bits import weight_bits_total
from .gguf import gguf_size


def weight_bytes(facts: SpecFacts, precision: Precision, *, load_mtp: bool, variant: str = "") -> int:
    return weights_detail(facts, precision, load_mtp=load_mtp, variant=variant)[0]


def weights_detail(
    facts: SpecFacts, precision: Precision, *, load_mtp: bool, variant: str = "", draft: bool = False
) -> tuple[int, float, int]:
    """(bytes, average bits per parameter, parameters) of the weights, remembered per spec and precision; ``draft``:
    with the MTP layers an engine runs as the draft, less the embedding and head they share with the model."""
    key = (precision.key, load_mtp, variant, draft)
    return per_spec("weights", facts.spec, key, lambda: _weights_detail(facts, precision, load_mtp, variant, draft))


def _weights_detail(
    facts: SpecFacts, precision: Precision, load_mtp: bool, variant: str, draft: bool
) -> tuple[int, float, int]:
    counts = facts.counts if load_mtp else facts.counts_with_draft if draft else facts.counts_without_mtp
    if precision.gguf_ftype and variant != "qlora":
        return _gguf_detail(facts, precision.gguf_ftype)
    bits = precision.bits(counts, facts.layer_facts)
    if variant == "qlora":
        # prepare_model_for_kbit_training casts every non-4-bit parameter to fp32 (docs/methodology.md §6.4)
        bits = bits._replace(embedding=32.0, lm_head=32.0, norms=32.0, vision=32.0, router=NF4_DOUBLE_QUANT_BITS)
    params = sum(counts)
    total_bits = weight_bits_total(counts, bits)
    return round(total_bits / 8), total_bits / params if params else 0.0, params


def _gguf_detail(facts: SpecFacts, ftype: str) -> tuple[int, float, int]:
    """A GGUF build, tensor by tensor (memory/gguf.py): the text file plus the separate mmproj file a vision model loads
    with it. Multi-token-prediction layers are not in the file whatever ``load_mtp`` says (the converters drop
    them)."""
    size = gguf_size(facts.spec, ftype)
    total = size.text_bytes + size.mmproj_bytes
    params = sum(facts.counts_without_mtp)
    return total, total * 8 / params if params else 0.0, params


def weights_only_bytes(spec: ModelSpec, precision: str, *, load_mtp_layers: bool = True) -> int:
    """Bytes of the weights alone in ``precision`` (the quantized-build ladder); 0 for an unknown name."""
    found = get_precision(precision)
    if found is None:
        return 0
    return weights_detail(spec_facts(spec), found, load_mtp=load_mtp_layers)[0]


# vLLM's MXFP4 mixture-of-experts layer on its Triton kernel (the default on Hopper; docs/methodology.md §2.8):
# vllm/model_executor/layers/quantization/mxfp4.py @007d5005 pads each rank's expert width to a multiple of 64,
# widens the expert biases to fp32 and swizzles weights and scales for triton_kernels' matmul_ogs; the scale
# layout (HopperMXScaleLayout, triton v3.5) pads the rows to 2 × num_warps(8) × 2 × 8 = 256 and the scale
# columns to 2, and the original scale tensors stay allocated beside the swizzled copies.
MXFP4_WIDTH_ALIGN = 64
MXFP4_SCALE_ROW_ALIGN = 256
MXFP4_SCALE_COL_ALIGN = 2
MXFP4_BLOCK = 32  # values per E8M0 scale


def _round_up(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


def vllm_mxfp4_layout_bytes(facts: SpecFacts, tensor_parallel: int = 1) -> tuple[int, dict[str, int]]:
    """(bytes, inputs) vLLM's MXFP4 expert layout holds beyond the checkpoint's experts, over all
    ``tensor_parallel`` ranks: padded expert width, expert scales held twice (padded swizzled copy + original),
    biases in fp32. (0, {}) for a model without routed experts."""
    spec, tp = facts.spec, max(1, tensor_parallel)
    layers, experts, h = spec.moe_layers, spec.experts_routed, spec.hidden_size
    if not (layers and experts and h):
        return 0, {}
    per_expert = spec.components.routed_experts // (layers * experts)
    width, bias = per_expert // (3 * h), 0
    with_bias = 3 * h * spec.intermediate_size + 2 * spec.intermediate_size + h
    if per_expert == with_bias:  # gpt-oss: the experts' gate-up and down projections carry biases
        width, bias = spec.intermediate_size, 2 * spec.intermediate_size + h
    if not width or h % MXFP4_BLOCK:
        return 0, {}
    padded = _round_up(-(-width // tp), MXFP4_WIDTH_ALIGN)
    block_cols_h, block_cols_w = h // MXFP4_BLOCK, -(-padded // MXFP4_BLOCK)
    weights = 3 * h * padded // 2 * tp - 3 * h * width // 2  # the padding of the 4-bit values over all ranks
    scales_original = (2 * padded * block_cols_h + h * block_cols_w) * tp
    scales_swizzled = (
        _round_up(2 * padded, MXFP4_SCALE_ROW_ALIGN) * _round_up(block_cols_h, MXFP4_SCALE_COL_ALIGN)
        + _round_up(h, MXFP4_SCALE_ROW_ALIGN) * _round_up(block_cols_w, MXFP4_SCALE_COL_ALIGN)
    ) * tp
    scales_checkpoint = 3 * h * width // MXFP4_BLOCK
    biases = ((2 * padded + h) * 4 * tp - bias * 2) if bias else 0
    per_layer_expert = weights + scales_original + scales_swizzled - scales_checkpoint + biases
    total = per_layer_expert * experts * layers
    inputs = {
        "layers": layers,
        "experts": experts,
        "width": padded,
        "tp": tp,
        "scales": (scales_original + scales_swizzled - scales_checkpoint) * experts * layers,
        "biases": biases * experts * layers,
        "padding": weights * experts * layers,
    }
    return total, inputs
