"""GGUF file sizes, tensor by tensor, as llama.cpp's ``llama-quantize`` writes them.

A GGUF file type (``Q4_K_M``, ``IQ2_XS``, …) is a mixture: ``llama_tensor_get_type`` picks a block type for every
tensor from its role, its layer and the model's shape, then falls back to a 32-wide block when a row is not a
multiple of the chosen block. This module rebuilds the tensor list a GGUF conversion of a ``ModelSpec`` holds and
applies those rules (ggml-org/llama.cpp ``src/llama-quant.cpp`` at commit 007dbbf3fd17eefe9b47fee45f48f7ba5e62b714:
``tensor_allows_quantization``, ``tensor_type_fallback``, ``llama_tensor_get_type_impl``,
``llama_ftype_get_default_type``); block sizes are ``ggml/src/ggml-common.h``'s (docs/methodology.md §2.6).

What the text GGUF holds: token embedding (once, when tied, in the output tensor's type), every decoder layer, the
output head, norms and routers in F32; no vision tower (it ships as a separate ``mmproj`` file, sized here on its
own at F16) and no multi-token-prediction layers (the converters skip them).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from enum import Enum

from models_catalog.architecture import AttentionKind, ModelSpec

from ..memo import per_spec

# (bytes per block, values per block) of each ggml type (ggml-common.h block structs)
GGML_BLOCKS: Mapping[str, tuple[int, int]] = {
    "F32": (4, 1),
    "F16": (2, 1),
    "BF16": (2, 1),
    "Q4_0": (18, 32),
    "Q4_1": (20, 32),
    "Q5_0": (22, 32),
    "Q5_1": (24, 32),
    "Q8_0": (34, 32),
    "Q2_K": (84, 256),
    "Q3_K": (110, 256),
    "Q4_K": (144, 256),
    "Q5_K": (176, 256),
    "Q6_K": (210, 256),
    "IQ1_S": (50, 256),
    "IQ1_M": (56, 256),
    "IQ2_XXS": (66, 256),
    "IQ2_XS": (74, 256),
    "IQ2_S": (82, 256),
    "IQ3_XXS": (98, 256),
    "IQ3_S": (110, 256),
    "IQ4_NL": (18, 32),
    "IQ4_XS": (136, 256),
    "TQ1_0": (54, 256),
    "TQ2_0": (66, 256),
    "MXFP4": (17, 32),
}
# llama_ftype_get_default_type: the block type a file type gives every tensor it has no rule for
FTYPE_DEFAULT: Mapping[str, str] = {
    "F32": "F32",
    "F16": "F16",
    "BF16": "BF16",
    "Q8_0": "Q8_0",
    "Q6_K": "Q6_K",
    "Q5_K_M": "Q5_K",
    "Q5_K_S": "Q5_K",
    "Q5_1": "Q5_1",
    "Q5_0": "Q5_0",
    "Q4_K_M": "Q4_K",
    "Q4_K_S": "Q4_K",
    "Q4_1": "Q4_1",
    "Q4_0": "Q4_0",
    "Q3_K_L": "Q3_K",
    "Q3_K_M": "Q3_K",
    "Q3_K_S": "Q3_K",
    "Q2_K": "Q2_K",
    "Q2_K_S": "Q2_K",
    "IQ4_XS": "IQ4_XS",
    "IQ4_NL": "IQ4_NL",
    "IQ3_M": "IQ3_S",
    "IQ3_S": "IQ3_S",
    "IQ3_XS": "IQ3_S",
    "IQ3_XXS": "IQ3_XXS",
    "IQ2_M": "IQ2_S",
    "IQ2_S": "IQ2_XS",
    "IQ2_XS": "IQ2_XS",
    "IQ2_XXS": "IQ2_XXS",
    "IQ1_M": "IQ1_M",
    "IQ1_S": "IQ1_S",
    "TQ1_0": "TQ1_0",
    "TQ2_0": "TQ2_0",
    "MXFP4_MOE": "MXFP4",
}
FLOAT_FTYPES = frozenset({"F32", "F16", "BF16"})
# tensor_type_fallback: a 256-wide block on a row that is not a multiple of 256 becomes a 32-wide one
_FALLBACK: Mapping[str, str] = {
    **dict.fromkeys(("IQ1_S", "IQ1_M", "IQ2_XXS", "IQ2_XS", "IQ2_S", "IQ3_XXS", "IQ3_S", "IQ4_XS"), "IQ4_NL"),
    **dict.fromkeys(("Q2_K", "Q3_K", "TQ1_0", "TQ2_0"), "Q4_0"),
    "Q4_K": "Q5_0",
    "Q5_K": "Q5_1",
    "Q6_K": "Q8_0",
}
_IQ2_FAMILY = frozenset({"IQ2_XXS", "IQ2_XS", "IQ1_S", "IQ2_S", "IQ2_M", "IQ1_M"})
GGUF_ALIGNMENT = 32  # GGUF_DEFAULT_ALIGNMENT: each tensor's data starts on a 32-byte boundary
# Tokenizer metadata (token strings, scores, types, BPE merges): about 40 bytes per vocabulary entry (estimated)
METADATA_BYTES_PER_TOKEN = 40


class Role(Enum):
    """``tensor_get_category``: what the type rules look at."""

    TOKEN_EMBD = "token_embd"
    OUTPUT = "output"
    ATTENTION_Q = "attn_q"
    ATTENTION_K = "attn_k"
    ATTENTION_V = "attn_v"
    ATTENTION_KV_B = "attn_kv_b"
    ATTENTION_OUTPUT = "attn_output"
    FFN_GATE = "ffn_gate"
    FFN_UP = "ffn_up"
    FFN_DOWN = "ffn_down"
    OTHER = "other"  # quantized at the file type's default type
    KEEP_F32 = "f32"  # norms, routers, convolution kernels: never quantized, stored F32 by the converter


_ATTN_V_LIKE = frozenset({Role.ATTENTION_V, Role.ATTENTION_KV_B})


@dataclass(frozen=True, slots=True)
class Tensor:
    role: Role
    row: int  # ne[0]: the length blocks run along
    elements: int
    layer: int = -1  # decoder layer; -1 outside the blocks
    experts: int = 1  # ne[2]: routed experts stacked in one tensor
    native_mxfp4: bool = False  # stored MXFP4 by the converter (gpt-oss experts)


@dataclass(frozen=True, slots=True)
class GgufSize:
    """Bytes of one GGUF build: the text model file and the separate vision projector (0 without vision)."""

    ftype: str
    text_bytes: int
    mmproj_bytes: int
    bytes_by_type: Mapping[str, int]  # tensor data per ggml type in the text file
    imatrix: bool


@dataclass(frozen=True, slots=True)
class _Shape:
    layers: int
    gqa: int
    experts: int
    is_70b: bool  # llama.cpp's LLM_TYPE_70B (80-layer Llama): attn_v gets Q5_K instead of Q3_K / Q4_K


def model_tensors(spec: ModelSpec) -> tuple[Tensor, ...]:
    """The tensors a GGUF conversion of ``spec`` holds, in llama.cpp's order (layer by layer, names sorted)."""
    h = max(1, spec.hidden_size)
    c = spec.components
    layers = max(1, spec.num_layers)
    heads = max(1, spec.num_attention_heads)
    moe_layers = min(layers, max(0, spec.moe_layers))
    dense_layers = layers - moe_layers
    experts = max(0, spec.experts_routed)
    # MLP widths from the parameter counts; biases (gpt-oss) add a few values per row, so a width is rounded to
    # the nearest multiple of 32, as every released MLP width is
    expert_width = _width(c.routed_experts, moe_layers * experts * 3 * h)
    shared_width = _width(c.shared_experts, moe_layers * 3 * h)
    dense_width = _width(c.dense_mlp, dense_layers * 3 * h)
    router_each = c.router // moe_layers if moe_layers else 0
    native_mxfp4 = spec.native_dtype == "mxfp4"

    attention = _attention_layers(spec, h, heads)
    named_attention = sum(t.elements for per_layer in attention for t in per_layer)
    attention_rest = max(0, c.attention - named_attention) // layers
    blocks: list[Tensor] = []
    for i in range(layers):
        layer = [Tensor(t.role, t.row, t.elements, i) for t in (attention[i] if i < len(attention) else ())]
        if attention_rest:
            layer.append(Tensor(Role.OTHER, h, attention_rest, i))
        if i < dense_layers and dense_width:
            layer += [
                Tensor(Role.FFN_DOWN, dense_width, dense_width * h, i),
                Tensor(Role.FFN_GATE, h, h * dense_width, i),
                Tensor(Role.FFN_UP, h, h * dense_width, i),
            ]
        elif i >= dense_layers and expert_width:
            stacked = experts * expert_width * h
            layer += [
                Tensor(Role.FFN_DOWN, expert_width, stacked, i, experts, native_mxfp4),
                Tensor(Role.FFN_GATE, h, stacked, i, experts, native_mxfp4),
                Tensor(Role.FFN_UP, h, stacked, i, experts, native_mxfp4),
            ]
            if shared_width:
                layer += [
                    Tensor(Role.FFN_DOWN, shared_width, shared_width * h, i),
                    Tensor(Role.FFN_GATE, h, h * shared_width, i),
                    Tensor(Role.FFN_UP, h, h * shared_width, i),
                ]
            if router_each:
                layer.append(Tensor(Role.KEEP_F32, h, router_each, i))
        blocks += sorted(layer, key=lambda t: t.role.value)
    outside = [Tensor(Role.TOKEN_EMBD, h, c.embedding)]
    if c.lm_head:
        outside.append(Tensor(Role.OUTPUT, h, c.lm_head))
    outside.append(Tensor(Role.KEEP_F32, h, c.norms))
    # MTP layers and a duplicated tied head are not in the file (the converters drop them)
    dropped = max(0, spec.params_not_loaded) + max(0, spec.params_duplicated)
    text_params = max(0, spec.params_total - min(spec.params_total, dropped) - c.vision)
    rest = text_params - sum(t.elements for t in outside) - sum(t.elements for t in blocks)
    if rest > 0:
        outside.append(Tensor(Role.OTHER, h, rest))
    return (*outside, *blocks)


def _width(params: int, per_unit: int) -> int:
    if per_unit <= 0 or params <= 0:
        return 0
    return max(1, round(params / per_unit / 32)) * 32 if params >= 32 * per_unit else params // per_unit


def _attention_layers(spec: ModelSpec, h: int, heads: int) -> list[list[Tensor]]:
    """Per decoder layer, its attention projections (layer groups placed in order; positions do not change the
    rules, which count attention tensors, not layer numbers)."""
    per_layer: list[list[Tensor]] = []
    for group in spec.layer_groups:
        for _ in range(group.count):
            if group.kind in (AttentionKind.FULL, AttentionKind.SLIDING):
                kv = group.kv_heads
                dk, dv = group.key_dim or spec.head_dim, group.value_dim or spec.head_dim
                per_layer.append(
                    [
                        Tensor(Role.ATTENTION_Q, h, h * heads * dk),
                        Tensor(Role.ATTENTION_K, h, h * kv * dk),
                        Tensor(Role.ATTENTION_V, h, h * kv * dv),
                        Tensor(Role.ATTENTION_OUTPUT, heads * dv, heads * dv * h),
                    ]
                )
            elif group.kind is AttentionKind.MLA:
                # DeepSeek layout: kv_a_mqa (h → latent + rope), kv_b (latent → heads × (nope + v)), output;
                # the query projections are the rest of the layer's attention parameters. v_head_dim is taken
                # equal to the no-rope key width (128 in every DeepSeek config).
                nope = max(0, spec.head_dim - group.rope_dim)
                per_layer.append(
                    [
                        Tensor(Role.OTHER, h, h * (group.latent_dim + group.rope_dim)),
                        Tensor(Role.ATTENTION_KV_B, max(1, group.latent_dim), group.latent_dim * heads * 2 * nope),
                        Tensor(Role.ATTENTION_OUTPUT, max(1, heads * nope), heads * nope * h),
                    ]
                )
            else:
                per_layer.append([])
    return per_layer


def tensor_types(spec: ModelSpec, ftype: str, *, imatrix: bool = False) -> Iterator[tuple[Tensor, str]]:
    """Each tensor of ``spec`` and the ggml type ``llama-quantize`` gives it for ``ftype``."""
    tensors = model_tensors(spec)
    kv_heads = max(1, spec.num_kv_heads)
    shape = _Shape(
        layers=max(1, spec.num_layers),
        gqa=max(1, spec.num_attention_heads // kv_heads),
        experts=max(0, spec.experts_routed),
        is_70b=spec.num_layers == 80 and spec.family == "llama",
    )
    tied = not any(t.role is Role.OUTPUT for t in tensors)
    state = _Counters(n_attention_wv=sum(1 for t in tensors if t.role in _ATTN_V_LIKE))
    default = FTYPE_DEFAULT[ftype]
    for tensor in tensors:
        if tensor.role is Role.KEEP_F32:
            yield tensor, "F32"
        elif tensor.native_mxfp4:
            # convert_hf_to_gguf keeps gpt-oss experts in their released MXFP4, and llama-quantize refuses to
            # requantize an already quantized tensor unless --allow-requantize is given ("requantizing from type
            # mxfp4 is disabled", src/llama-quant.cpp, ggml-org/llama.cpp@007dbbf3fd17): every k-quant build of
            # gpt-oss keeps its experts in MXFP4, only the other tensors follow the ftype
            yield tensor, "MXFP4"
        elif ftype in FLOAT_FTYPES:
            yield tensor, default
        else:
            chosen = _choose(tensor, ftype, default, shape, state, tied=tied, imatrix=imatrix)
            yield tensor, _fallback(chosen, tensor.row)


@dataclass(slots=True)
class _Counters:
    n_attention_wv: int
    i_attention_wv: int = 0
    i_ffn_down: int = 0


def _more_bits(i: int, n: int) -> bool:
    """llama-quant.cpp ``use_more_bits``: the first and last eighth of the layers and every third in between."""
    return i < n // 8 or i >= 7 * n // 8 or (i - n // 8) % 3 == 2


def _fallback(type_name: str, row: int) -> str:
    values = GGML_BLOCKS[type_name][1]
    if row % values == 0:
        return type_name
    replacement = _FALLBACK.get(type_name, "F16")
    return replacement if row % GGML_BLOCKS[replacement][1] == 0 else "F16"


def _choose(
    tensor: Tensor, ftype: str, default: str, shape: _Shape, state: _Counters, *, tied: bool, imatrix: bool
) -> str:
    role = tensor.role
    if role is Role.OUTPUT or (tied and role is Role.TOKEN_EMBD):
        return _output_type(ftype, default, tensor.row)
    if ftype == "MXFP4_MOE":
        return "MXFP4" if tensor.experts > 1 else "Q8_0"
    if role is Role.TOKEN_EMBD:
        if ftype in ("IQ2_XXS", "IQ2_XS", "IQ1_S", "IQ1_M"):
            return "Q2_K"
        if ftype in ("IQ2_S", "IQ2_M", "IQ3_XXS"):
            return "IQ3_S"
        if ftype in ("TQ1_0", "TQ2_0"):
            return "Q4_K"
        return default
    if ftype in _IQ2_FAMILY:
        return _iq2_family(role, ftype, default, shape, state)
    if role in _ATTN_V_LIKE:
        return _attn_v(ftype, default, shape, state, imatrix=imatrix)
    if role is Role.ATTENTION_K:
        if shape.experts == 8:
            return "Q8_0"
        return {"IQ3_XS": "IQ3_XXS", "IQ3_XXS": "IQ2_S"}.get(ftype, default)
    if role is Role.ATTENTION_Q:
        return {"IQ3_XS": "IQ3_XXS", "IQ3_XXS": "IQ2_S"}.get(ftype, default)
    if role is Role.FFN_DOWN:
        i_layer = tensor.layer if shape.experts > 1 else state.i_ffn_down
        state.i_ffn_down += 1
        return _ffn_down(ftype, default, i_layer, shape, imatrix=imatrix)
    if role is Role.ATTENTION_OUTPUT:
        return _attn_output(ftype, default, shape)
    if role in (Role.FFN_GATE, Role.FFN_UP) and ftype == "IQ3_XS":
        n = shape.layers
        return "IQ3_XXS" if n // 8 <= tensor.layer < 7 * n // 8 else default
    return default


def _output_type(ftype: str, default: str, row: int) -> str:
    if ftype == "MXFP4_MOE" or row % GGML_BLOCKS[default][1]:
        return "Q8_0"
    if ftype in ("IQ2_XXS", "IQ2_XS", "IQ3_XXS", "IQ1_S", "IQ2_S", "IQ2_M", "IQ1_M"):
        return "Q5_K"
    return default if default == "Q8_0" else "Q6_K"


def _iq2_family(role: Role, ftype: str, default: str, shape: _Shape, state: _Counters) -> str:
    iq3_pair = ftype in ("IQ2_S", "IQ2_M")
    if role in _ATTN_V_LIKE:
        state.i_attention_wv += 1
        if shape.gqa >= 4 or shape.experts >= 4:
            return "Q4_K"
        return "IQ3_S" if iq3_pair else "Q2_K"
    if shape.experts == 8 and role is Role.ATTENTION_K:
        return "Q4_K"
    if role is Role.FFN_DOWN:
        first_eighth = state.i_ffn_down < shape.layers // 8
        state.i_ffn_down += 1
        if first_eighth:
            return "IQ3_S" if iq3_pair else "Q2_K"
        return default
    if role is Role.ATTENTION_OUTPUT:
        if shape.experts == 8:
            return "Q5_K"
        if ftype in ("IQ1_S", "IQ1_M"):
            return "IQ2_XXS"
        if iq3_pair:
            return "IQ3_S"
    return default


def _attn_v(ftype: str, default: str, shape: _Shape, state: _Counters, *, imatrix: bool) -> str:
    i, n = state.i_attention_wv, state.n_attention_wv
    gqa4 = shape.gqa >= 4
    chosen = default
    if ftype == "Q2_K":
        chosen = "Q4_K" if gqa4 else "Q3_K"
    elif ftype == "Q2_K_S" and gqa4:
        chosen = "Q4_K"
    elif ftype == "IQ3_XXS":
        chosen = "Q4_K" if gqa4 else ("IQ3_XXS" if imatrix else "IQ3_S")
    elif (ftype in ("IQ3_XS", "IQ3_S") and gqa4) or ftype == "IQ3_M":
        chosen = "Q4_K"
    elif ftype == "Q3_K_M":
        chosen = "Q5_K" if i < 2 else "Q4_K"
    elif ftype == "Q3_K_L" or (ftype in ("IQ4_NL", "IQ4_XS") and gqa4):
        chosen = "Q5_K"
    elif ftype in ("Q4_K_M", "Q5_K_M") and _more_bits(i, n):
        chosen = "Q6_K"
    elif ftype == "Q4_K_S" and i < 4:
        chosen = "Q5_K"
    if shape.is_70b and chosen in ("Q3_K", "Q4_K"):
        chosen = "Q5_K"
    if shape.experts == 8:
        chosen = "Q8_0"
    state.i_attention_wv += 1
    return chosen


def _ffn_down(ftype: str, default: str, i: int, shape: _Shape, *, imatrix: bool) -> str:
    n = shape.layers
    if ftype == "Q2_K":
        return "Q3_K"
    if ftype == "Q2_K_S":
        return "Q4_K" if i < n // 8 else default
    if ftype == "IQ3_XXS" and not imatrix:
        return "Q4_K" if i < n // 8 else "Q3_K"
    if ftype == "Q3_K_M":
        return "Q5_K" if i < n // 16 else "Q4_K"  # non-Falcon: use_more_bits or not, Q4_K
    if ftype == "IQ3_M" and (i < n // 8 or (shape.experts == 8 and _more_bits(i, n))):
        return "Q4_K"
    if ftype == "Q3_K_L":
        return "Q5_K"
    if ftype == "Q4_K_M":
        return "Q6_K" if _more_bits(i, n) else default
    if ftype in ("IQ4_NL", "IQ4_XS") and i < n // 8 and not imatrix:
        return "Q5_K"
    if ftype == "Q5_K_M":
        return "Q6_K" if _more_bits(i, n) else default
    if ftype == "Q4_K_S":
        return "Q5_K" if i < n // 8 else default
    if ftype in ("Q4_0", "Q5_0") and imatrix and i < n // 8:
        return "Q4_1" if ftype == "Q4_0" else "Q5_1"
    return default


def _attn_output(ftype: str, default: str, shape: _Shape) -> str:
    if shape.experts == 8:
        eight_expert = {"Q2_K", "IQ3_XS", "IQ3_XXS", "Q3_K_S", "Q3_K_M", "IQ4_NL", "Q4_K_S", "Q4_K_M", "IQ3_S"}
        return "Q5_K" if ftype in eight_expert | {"IQ3_M", "IQ4_XS"} else default
    return {"Q2_K": "Q3_K", "IQ3_XXS": "IQ3_S", "Q3_K_M": "Q4_K", "Q3_K_L": "Q5_K", "IQ3_M": "Q4_K"}.get(ftype, default)


def tensor_bytes(type_name: str, elements: int) -> int:
    """Bytes of ``elements`` values in ``type_name``, padded to the file's 32-byte alignment."""
    block_bytes, values = GGML_BLOCKS[type_name]
    raw = -(-elements // values) * block_bytes
    return -(-raw // GGUF_ALIGNMENT) * GGUF_ALIGNMENT


def gguf_size(spec: ModelSpec, ftype: str, *, imatrix: bool = False) -> GgufSize:
    """The text GGUF and the mmproj file of ``spec`` in ``ftype`` (a llama.cpp file type name, e.g. ``Q4_K_M``).
    ``imatrix``: quantized with an importance matrix (bartowski, mradermacher's i1 builds), which changes a few
    IQ3/IQ4/Q4_0/Q5_0 rules. Raises KeyError for an unknown file type."""
    name = ftype.upper()
    if name not in FTYPE_DEFAULT:
        raise KeyError(f"unknown GGUF file type {ftype!r}")
    return per_spec("gguf-size", spec, (name, imatrix), lambda: _gguf_size(spec, name, imatrix))


def _gguf_size(spec: ModelSpec, name: str, imatrix: bool) -> GgufSize:
    by_type: dict[str, int] = {}
    for tensor, type_name in tensor_types(spec, name, imatrix=imatrix):
        by_type[type_name] = by_type.get(type_name, 0) + tensor_bytes(type_name, tensor.elements)
    metadata = max(0, spec.vocab_size) * METADATA_BYTES_PER_TOKEN
    return GgufSize(
        ftype=name,
        text_bytes=sum(by_type.values()) + metadata,
        mmproj_bytes=mmproj_bytes(spec),
        bytes_by_type=by_type,
        imatrix=imatrix,
    )


def mmproj_bytes(spec: ModelSpec) -> int:
    """The separate vision-projector file (``mmproj-*-f16.gguf``): the vision tower and projector at F16."""
    return max(0, spec.components.vision) * 2
