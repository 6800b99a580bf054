"""Release dtype and packed-storage arithmetic for ``models_catalog.architecture``.

The Hub's safetensors totals count stored *elements*. For quantized checkpoints that differs from the
parameter count (docs/methodology.md §1.1): FP8 block checkpoints add one float32 scale per 128×128
block, GPTQ/AWQ pack 8 int4 values into each I32 and add zeros/scales, bitsandbytes 4-bit packs two values
per U8 and adds absmax values. For gpt-oss the Hub reports one element per MXFP4 value plus one per E8M0
scale (120,412,337,472 = 116,829,156,672 parameters + 114,661,785,600 expert weights / 32). NVFP4 checkpoints
(ModelOpt ``quant_algo: "NVFP4"``, compressed-tensors ``nvfp4-pack-quantized``) store each quantized matrix of n
weights as n/2 U8 elements (two E2M1 values per byte) plus n/16 FP8 E4M3 scales, and one fp32 scalar per matrix for
the weight's global scale and one for the input's where activations are quantized (docs/methodology.md §2.11).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from models_catalog.architecture.config import as_int, as_list, as_str
from models_catalog.architecture.notes import NoteKey, SpecNote
from models_catalog.architecture.params import Linear

_TORCH_DTYPES = {
    "bfloat16": "bf16",
    "bf16": "bf16",
    "float16": "fp16",
    "fp16": "fp16",
    "half": "fp16",
    "float32": "fp32",
    "fp32": "fp32",
    "float": "fp32",
    "float8_e4m3fn": "fp8",
    "float8_e5m2": "fp8",
}
PACKED_METHODS = frozenset({"mxfp4", "nvfp4", "gptq", "awq", "bitsandbytes"})
NVFP4_GROUP = 16  # E2M1 values per FP8 E4M3 scale (NVIDIA ModelOpt NVFP4; compressed-tensors "tensor_group", 16)


def quant_method(quantization: Mapping[str, Any]) -> str:
    method = (as_str(quantization.get("quant_method")) or "").lower()
    if method == "modelopt" and (as_str(quantization.get("quant_algo")) or "").upper() == "NVFP4":
        return "nvfp4"
    if method == "compressed-tensors":
        text = repr(quantization.get("config_groups")).lower()
        if "nvfp4" in text or "nvfp4" in (as_str(quantization.get("format")) or "").lower() or _fp4_g16(quantization):
            return "nvfp4"  # llm-compressor's "nvfp4-pack-quantized" format, FP4 weights in groups of 16
        if "float" in text and "'num_bits': 8" in text:
            return "fp8"
        if "'num_bits': 4" in text:
            return "gptq"  # pack-quantized int4 stores I32 words like GPTQ
    if not method and (quantization.get("load_in_4bit") is True or quantization.get("load_in_8bit") is True):
        return "bitsandbytes"
    return method


def native_dtype(quantization: Mapping[str, Any], torch_dtype: str | None) -> str | None:
    """The dtype the weights are released in, or ``None`` when the config does not say."""
    method = quant_method(quantization)
    if method == "fp8":
        return "fp8"
    if method in ("mxfp4", "nvfp4"):
        return method
    if method in ("gptq", "awq"):
        bits = as_int(quantization.get("bits")) or as_int(quantization.get("w_bit")) or 4
        return f"int{bits}"
    if method == "bitsandbytes":
        if quantization.get("load_in_8bit") is True:
            return "int8"
        return (as_str(quantization.get("bnb_4bit_quant_type")) or "nf4").lower()
    if method:
        return method
    if torch_dtype:
        return _TORCH_DTYPES.get(torch_dtype.lower().removeprefix("torch."))
    return None


def storage_overhead(method: str, quantization: Mapping[str, Any], linears: list[Linear]) -> int:
    """Stored elements minus parameters for the quantized matrices (negative when values are packed)."""
    if method == "fp8":
        block = as_list(quantization.get("weight_block_size")) or ()
        rows = as_int(block[0]) if len(block) == 2 else None
        cols = as_int(block[1]) if len(block) == 2 else None
        if not rows or not cols:
            return 0
        return sum(lin.count * -(-lin.out_features // rows) * -(-lin.in_features // cols) for lin in linears)
    if method == "mxfp4":
        return sum(lin.count * lin.out_features * lin.in_features // 32 for lin in linears if lin.expert)
    if method == "nvfp4":
        per_matrix = 1 + _input_scale(quantization)
        return sum(lin.count * (per_matrix - 7 * lin.out_features * lin.in_features // NVFP4_GROUP) for lin in linears)
    if method in ("gptq", "awq"):
        bits = as_int(quantization.get("bits")) or as_int(quantization.get("w_bit")) or 4
        group = as_int(quantization.get("group_size")) or as_int(quantization.get("q_group_size")) or 128
        per_word = max(1, 32 // bits)
        total = 0
        for lin in linears:
            weights = lin.out_features * lin.in_features
            groups = -(-lin.in_features // group)
            stored = weights // per_word + groups * lin.out_features // per_word + groups * lin.out_features
            if method == "gptq":
                stored += lin.in_features
            total += lin.count * (stored - weights)
        return total
    if method == "bitsandbytes" and quantization.get("load_in_4bit") is True:
        return sum(lin.count * (lin.out_features * lin.in_features * (1 - 32) // 64) for lin in linears)
    return 0


def elements_to_params(
    method: str,
    overhead: int,
    expert_weights: int,
    total_elements: int,
    by_dtype: Mapping[str, int] | None,
    computed_params: int,
) -> tuple[int, SpecNote | None]:
    """Parameters behind a Hub element count, and a note explaining the conversion (None if none needed)."""
    if method not in PACKED_METHODS and method != "fp8":
        return total_elements, None
    candidates = [total_elements - overhead]
    if method == "mxfp4" and expert_weights:
        # A byte-level count of the same checkpoint (two FP4 values per U8) reads W/2 + W/32 elements.
        candidates.append(total_elements + expert_weights // 2 - expert_weights // 32)
        packed = _packed_elements(by_dtype, "U8")
        if packed:
            unpacked = sum(int(v) for k, v in (by_dtype or {}).items() if k.upper() != "U8" and _is_count(v))
            candidates += [unpacked + packed * 32 // 33, unpacked + packed * 32 // 17]
    params = min(candidates, key=lambda value: abs(value - computed_params)) if computed_params else candidates[0]
    if params == total_elements:
        return params, None
    return params, SpecNote.of(NoteKey.HUB_ELEMENTS, elements=total_elements, method=method, parameters=params)


def _fp4_g16(quantization: Mapping[str, Any]) -> bool:
    """A compressed-tensors scheme with 4-bit float weights in groups of 16: NVFP4's (MXFP4's groups are 32)."""
    groups = quantization.get("config_groups")
    for group in groups.values() if isinstance(groups, Mapping) else ():
        weights = group.get("weights") if isinstance(group, Mapping) else None
        if isinstance(weights, Mapping) and (weights.get("num_bits"), weights.get("type")) == (4, "float"):
            return weights.get("group_size") == 16
    return False


def _input_scale(quantization: Mapping[str, Any]) -> int:
    """1 where an NVFP4 checkpoint stores an input global scale per matrix (ModelOpt's NVFP4 quantizes activations
    too; a compressed-tensors group with ``input_activations``), 0 for weight-only NVFP4 (W4A16)."""
    groups = quantization.get("config_groups")
    if not isinstance(groups, Mapping):
        return 1
    return int(any(isinstance(g, Mapping) and g.get("input_activations") for g in groups.values()))


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _packed_elements(by_dtype: Mapping[str, int] | None, dtype: str) -> int:
    if not by_dtype:
        return 0
    for key, value in by_dtype.items():
        if isinstance(key, str) and key.upper() == dtype and _is_count(value):
            return int(value)
    return 0
