"""Turns a config mapping into the field values of ``ModelSpec`` (see ``ModelSpec.from_hf_config``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import models_catalog.architecture.layers as lay
from models_catalog.architecture.config import MAX_LAYERS, ConfigReader, as_int, as_str, split_wrapper
from models_catalog.architecture.groups import layer_groups
from models_catalog.architecture.notes import NoteKey, SpecNote, active_note
from models_catalog.architecture.params import Dims, count
from models_catalog.architecture.quant import elements_to_params, native_dtype, quant_method, storage_overhead
from models_catalog.architecture.types import ParamBreakdown
from models_catalog.architecture.vision import vision_encoder, vision_params

_FAMILIES = {
    "kimi_k2": "deepseek_v3",
    "gemma3_text": "gemma3",
    "mllama_text_model": "mllama",
    "llama4_text": "llama4",
    "glm5_next_text": "glm5_next",
    "glm4v_moe_text": "glm4v_moe",
    "qwen2_5_vl_text": "qwen2_5_vl",
    "qwen2_vl_text": "qwen2_vl",
}
KNOWN_FAMILIES = frozenset(
    [
        "llama",
        "mistral",
        "qwen2",
        "qwen3",
        "phi3",
        "phi",
        "olmo",
        "olmo2",
        "olmo3",
        "gemma",
        "gemma2",
        "gemma3",
        "mixtral",
        "qwen2_moe",
        "qwen3_moe",
        "qwen3_next",
        "gpt_oss",
        "deepseek_v2",
        "deepseek_v3",
        "deepseek_v32",
        "glm4",
        "glm4_moe",
        "glm4_moe_lite",
        "glm_moe_dsa",
        "glm5_next",
        "glm4v_moe",
        "minimax_m2",
        "llama4",
        "mllama",
        "qwen2_5_vl",
        "qwen2_vl",
        "starcoder2",
        "granite",
        "cohere",
        "jamba",
        "nemotron_h",
        "falcon_h1",
        "mamba",
        "mamba2",
        "minimax",
    ]
)
_NON_GATED_MLP = frozenset({"phi", "gpt2", "gpt_neox", "starcoder2", "falcon", "gpt_bigcode", "opt", "bloom"})
_GLM = frozenset({"glm4", "glm4_moe", "glm4v_moe", "glm4_moe_lite", "glm_moe_dsa", "glm5_next"})
# Checkpoints whose MTP layer stores the embedding and output head again (DeepSeek-V3: 671.03 B + 11.61 B +
# 2 × 0.93 B = 684.5 B, docs/methodology.md §1.1; GLM-4.5 likewise). GLM-5's MTP layer does not (753.86 B exactly).
_MTP_WITH_EMBEDDINGS = frozenset({"deepseek_v3", "deepseek_v32", "glm4_moe", "glm4v_moe", "glm4_moe_lite"})
# Llama 3.2 Vision's tower when its vision_config omits sizes (MllamaVisionConfig defaults, the 11B's values).
_MLLAMA_VISION_DEFAULTS = {"intermediate_size": 5120, "vision_output_dim": 7680, "max_num_tiles": 4}

# transformers config-class defaults for keys that some Hub files leave out (the file then loads with them).
_FAMILY_DEFAULTS: dict[str, dict[str, int]] = {
    "gemma2": {"vocab_size": 256000},
    # Gemma3TextConfig: vocab_size=262_208, max_position_embeddings=131_072 (huggingface/transformers
    # src/transformers/models/gemma3/configuration_gemma3.py at 008f5c8c; gemma-3 configs leave both out)
    "gemma3": {"vocab_size": 262208, "max_position_embeddings": 131072},
    "mllama": {"vocab_size": 128256, "intermediate_size": 14336},
    "glm4_moe": {"n_shared_experts": 1, "first_k_dense_replace": 1},
    "glm4v_moe": {"n_shared_experts": 1, "first_k_dense_replace": 1},
    "qwen3_next": {
        "linear_num_key_heads": 16,
        "linear_num_value_heads": 32,
        "linear_key_head_dim": 128,
        "linear_value_head_dim": 128,
        "linear_conv_kernel_dim": 4,
    },
}


def _family(model_type: str, text_type: str) -> str:
    for name in (model_type, text_type):
        name = _FAMILIES.get(name, name)
        if name in KNOWN_FAMILIES:
            return name
    return "generic"


# Families whose config leaves a choice to the architecture's code; each table names one such rule.
_TIED_BY_DEFAULT = frozenset({"gemma", "gemma2", "gemma3"})  # tie_word_embeddings when the config is silent
_HEAD_QK_NORM = frozenset({"qwen3", "qwen3_moe", "qwen3_next", "gemma3"})  # per-head q/k RMSNorm
_FULL_QK_NORM = frozenset({"olmo2", "olmo3"})  # q/k RMSNorm over all heads
_QKV_BIAS = frozenset({"qwen2", "qwen2_moe", "qwen2_5_vl", "qwen2_vl"})
_MLP_BIAS = frozenset({"phi", "starcoder2", "gpt2", "gpt_neox", "gpt_bigcode"})
_FOUR_NORMS_PER_LAYER = frozenset({"gemma2", "gemma3"})  # pre- and post-norms around attention and MLP
_VISION = frozenset({"mllama", "llama4", "gemma3", "qwen2_5_vl", "qwen2_vl", "glm4v_moe", "glm5_next"})


@dataclass(frozen=True, slots=True)
class _Shape:
    """The sizes every other rule reads: widths, depths, heads, experts."""

    hidden: int
    layers: int
    heads: int
    kv_heads: int
    vocab: int
    is_mla: bool
    qk_nope: int
    qk_rope: int
    head_dim: int
    experts: int
    intermediate: int
    expert_width: int
    per_token: int


@dataclass(frozen=True, slots=True)
class _Counts:
    """Where params_total and params_active come from: the Hub's counts when given, else the config's."""

    total: int
    total_source: str
    active: int
    active_source: str


def build(config: Mapping[str, Any], external: Any) -> dict[str, Any]:
    text, outer, vision = split_wrapper(config)
    model_type = as_str(config.get("model_type")) or as_str(text.get("model_type")) or "unknown"
    family = _family(as_str(config.get("model_type")) or "", as_str(text.get("model_type")) or "")
    reader = ConfigReader(text, outer, _FAMILY_DEFAULTS.get(family, {}))
    notes: list[SpecNote] = []

    shape = _shape(reader, family)
    tie = _tie_embeddings(reader, family)
    d = _dims(reader, family, shape, tie, _mtp_layers(reader, family, notes))
    _linear_dims(reader, d)
    plan = lay.attention_plan(reader, family, shape.layers, shape.is_mla, bool(d.index_dim))
    mlp = lay.mlp_plan(reader, shape.layers, shape.experts, plan.attention)
    counts = count(d, plan.attention, mlp)
    groups = layer_groups(reader, d, plan.attention, notes)
    has_vision, vision_count = _vision(reader, family, vision, shape.hidden, notes)
    components = ParamBreakdown(
        embedding=counts.embedding,
        lm_head=counts.lm_head,
        attention=counts.attention,
        dense_mlp=counts.dense_mlp,
        routed_experts=counts.routed_experts,
        shared_experts=counts.shared_experts,
        router=counts.router,
        norms=counts.norms,
        vision=vision_count,
        mtp=counts.mtp,
    )
    computed_total = components.total
    # docs/methodology.md §1.4: what one token multiplies; the input embedding only when it is also the head
    active_computed = (
        computed_total
        - (0 if tie else counts.embedding)
        - vision_count
        - counts.mtp
        - counts.routed_experts
        + min(shape.per_token, shape.experts) * counts.per_expert * counts.moe_layers
    )
    quantization = reader.mapping("quantization_config")
    method = quant_method(quantization)
    overhead = storage_overhead(method, quantization, d.linears)
    dtype = native_dtype(quantization, reader.text("torch_dtype", "dtype"))
    if dtype is None:
        dtype = "bf16"
        reader.defaulted.append("native_dtype")

    estimated = [*reader.defaulted, *plan.guessed]
    expert_weights = sum(lin.count * lin.out_features * lin.in_features for lin in d.linears if lin.expert)
    params = _param_counts(
        external, method, overhead, expert_weights, computed_total, active_computed, notes, estimated
    )
    hub_total = _hub_total(external)
    duplicated = 0
    if (
        hub_total
        and tie
        and counts.embedding
        and abs(hub_total - computed_total - counts.embedding) < 0.005 * hub_total
    ):
        duplicated = counts.embedding if params.total == hub_total else 0
        notes.append(SpecNote.of(NoteKey.TIED_HEAD_STORED))
    notes.append(active_note(experts=bool(shape.experts), tied=tie))
    if counts.mtp:
        notes.append(SpecNote.of(NoteKey.MTP_STORED, parameters=counts.mtp))
    if reader.flag("mhc"):
        notes.append(SpecNote.of(NoteKey.MHC_NOT_COUNTED))
        estimated.append("components.other")
    if family == "generic":
        notes.append(SpecNote.of(NoteKey.UNKNOWN_ARCHITECTURE, model_type=model_type))
        estimated += ["family", "layer_groups"]
    return {
        "model_type": model_type,
        "family": family,
        "hidden_size": shape.hidden,
        "num_layers": shape.layers,
        "num_attention_heads": shape.heads,
        "num_kv_heads": shape.kv_heads,
        "head_dim": shape.head_dim,
        "vocab_size": shape.vocab,
        "intermediate_size": shape.intermediate,
        "tie_word_embeddings": tie,
        "max_context": reader.num("max_position_embeddings", "max_sequence_length", "n_positions", "seq_length"),
        "layer_groups": groups,
        "params_total": params.total,
        "params_active": params.active,
        "params_source": params.total_source,
        "params_active_source": params.active_source,
        "components": components,
        "params_not_loaded": counts.mtp,
        "mtp_layers": d.mtp_layers if counts.mtp else 0,
        "mtp_shared_params": d.mtp_layers * 2 * d.vocab * d.hidden if counts.mtp and d.mtp_stores_embeddings else 0,
        "params_duplicated": duplicated,
        "experts_routed": shape.experts,
        "experts_shared": d.shared_experts or (1 if d.shared_intermediate else 0),
        "experts_per_token": shape.per_token,
        "moe_layers": counts.moe_layers,
        "has_vision": has_vision,
        "native_dtype": dtype,
        "estimated_fields": tuple(dict.fromkeys(estimated)),
        "notes": tuple(dict.fromkeys(notes)),
        "params_active_computed": active_computed,
        "params_stored_elements": computed_total + overhead,
        "cross_attention_layers": plan.attention.count(lay.CROSS),
        "vision_encoder": vision_encoder(family, vision, outer) if has_vision else None,
    }


def _dim(reader: ConfigReader, keys: tuple[str, ...], fallback: int, field: str) -> int:
    """The first of ``keys`` the config sets, else ``fallback``, recorded as an estimated ``field``."""
    value = reader.num(*keys)
    if value is None:
        reader.defaulted.append(field)
        return fallback
    return value


def _shape(reader: ConfigReader, family: str) -> _Shape:
    hidden = _dim(reader, ("hidden_size", "d_model", "n_embd", "dim"), 4096, "hidden_size")
    layers = min(_dim(reader, ("num_hidden_layers", "num_layers", "n_layer", "n_layers"), 32, "num_layers"), MAX_LAYERS)
    heads = _dim(
        reader, ("num_attention_heads", "n_head", "num_heads", "n_heads"), max(1, hidden // 128), "num_attention_heads"
    )
    kv_heads = reader.num("num_key_value_heads", "num_kv_heads", "n_kv_heads", "multi_query_group_num") or heads
    vocab = _dim(reader, ("vocab_size", "padded_vocab_size", "n_vocab"), 32000, "vocab_size")
    is_mla = (reader.num("kv_lora_rank") or 0) > 0
    qk_nope = reader.num("qk_nope_head_dim", minimum=0) or 0
    qk_rope = reader.num("qk_rope_head_dim", minimum=0) or 0
    head_dim = (qk_nope + qk_rope) if is_mla and qk_nope + qk_rope else reader.num("head_dim", "attention_head_dim")
    head_dim = head_dim or max(1, hidden // heads)
    experts = reader.num("n_routed_experts", "num_experts", "num_local_experts", "moe_num_experts", "n_experts") or 0
    dense_keys = ("intermediate_size_mlp", "intermediate_size") if family == "llama4" else ("intermediate_size",)
    intermediate = _dim(
        reader,
        (*dense_keys, "ffn_hidden_size", "n_inner", "ffn_dim"),
        4 * hidden if family in _NON_GATED_MLP else 8 * hidden // 3,
        "intermediate_size",
    )
    expert_width = reader.num("moe_intermediate_size", "expert_intermediate_size") or 0
    if experts and not expert_width:
        expert_width = reader.num("intermediate_size") or intermediate
    per_token = 0
    if experts:
        per_token = reader.num("num_experts_per_tok", "experts_per_token", "moe_topk", "num_experts_per_token") or 0
        if not per_token:
            per_token = min(experts, 2)
            reader.defaulted.append("experts_per_token")
    return _Shape(
        hidden=hidden,
        layers=layers,
        heads=heads,
        kv_heads=kv_heads,
        vocab=vocab,
        is_mla=is_mla,
        qk_nope=qk_nope,
        qk_rope=qk_rope,
        head_dim=head_dim,
        experts=experts,
        intermediate=intermediate,
        expert_width=expert_width,
        per_token=per_token,
    )


def _tie_embeddings(reader: ConfigReader, family: str) -> bool:
    tie = reader.flag("tie_word_embeddings")
    if tie is not None:
        return tie
    if family == "generic":
        reader.defaulted.append("tie_word_embeddings")
    return family in _TIED_BY_DEFAULT


def _qk_norm(reader: ConfigReader, family: str) -> str:
    use_qk_norm = reader.flag("use_qk_norm")
    if family in _HEAD_QK_NORM or (family in _GLM and use_qk_norm):
        return "head"
    if family in _FULL_QK_NORM or (family == "minimax_m2" and use_qk_norm is not False):
        return "full"
    return ""


def _mtp_layers(reader: ConfigReader, family: str, notes: list[SpecNote]) -> int:
    layers = reader.num("num_nextn_predict_layers", "mtp_num_hidden_layers", minimum=0) or 0
    if family == "minimax_m2" and reader.flag("use_mtp"):
        notes.append(SpecNote.of(NoteKey.MTP_NOT_STORED))
    if family == "qwen3_next" and not reader.has("num_nextn_predict_layers", "mtp_num_hidden_layers"):
        # The Qwen3-Next checkpoints store one mtp.* layer that config.json does not declare.
        return 1
    return layers


def _dims(reader: ConfigReader, family: str, shape: _Shape, tie: bool, mtp_layers: int) -> Dims:
    attention_bias = reader.flag("attention_bias") is True
    return Dims(
        family=family,
        hidden=shape.hidden,
        layers=shape.layers,
        heads=shape.heads,
        kv_heads=shape.kv_heads,
        head_dim=shape.head_dim,
        vocab=shape.vocab,
        intermediate=shape.intermediate,
        expert_intermediate=shape.expert_width,
        experts=shape.experts,
        experts_per_token=shape.per_token,
        shared_experts=reader.num("n_shared_experts", "num_shared_experts", minimum=0)
        or (1 if family == "llama4" else 0),
        shared_intermediate=reader.num("shared_expert_intermediate_size", "shared_intermediate_size", minimum=0) or 0,
        tie_embeddings=tie,
        qkv_bias=attention_bias or family in _QKV_BIAS or bool(reader.flag("qkv_bias")),
        o_bias=attention_bias and family not in _GLM,
        qk_norm=_qk_norm(reader, family),
        attention_sinks=family == "gpt_oss",
        gated_query=family == "qwen3_next",
        gated_mlp=family not in _NON_GATED_MLP,
        mlp_bias=bool(reader.flag("mlp_bias")) or family in _MLP_BIAS,
        norms_per_layer=4 if family in _FOUR_NORMS_PER_LAYER else 2,
        router_bias=family == "gpt_oss"
        or reader.text("topk_method") == "noaux_tc"
        or bool(reader.flag("use_routing_bias"))
        or family in _GLM,
        expert_bias=family == "gpt_oss",
        q_lora_rank=reader.num("q_lora_rank") or 0,
        kv_lora_rank=reader.num("kv_lora_rank") or 0,
        qk_nope_dim=shape.qk_nope,
        qk_rope_dim=shape.qk_rope,
        v_head_dim=reader.num("v_head_dim") or shape.head_dim,
        index_heads=reader.num("index_n_heads") or 0,
        index_dim=reader.num("index_head_dim") or 0,
        index_pool=int(reader.num("index_kpool", minimum=1) or 1) if reader.flag("index_kpool_compress") else 1,
        mtp_layers=mtp_layers,
        mtp_stores_embeddings=family in _MTP_WITH_EMBEDDINGS,
        embedding_rows=shape.vocab + (8 if family == "mllama" else 0),
    )


def _vision(
    reader: ConfigReader, family: str, vision: Mapping[str, Any], hidden: int, notes: list[SpecNote]
) -> tuple[bool, int]:
    """(whether the model takes images, the vision tower's parameters)."""
    has_vision = bool(vision) or family in _VISION
    if not has_vision:
        return False, 0
    if family == "mllama" and vision and any(key not in vision for key in _MLLAMA_VISION_DEFAULTS):
        vision = {**_MLLAMA_VISION_DEFAULTS, **vision}
        reader.defaulted.append("components.vision")
    vision_count, exact = vision_params(family, vision, hidden)
    if not exact:
        reader.defaulted.append("components.vision")
        notes.append(SpecNote.of(NoteKey.VISION_ESTIMATED if vision_count else NoteKey.VISION_NOT_COUNTED))
    return True, vision_count


def _hub_total(external: Any) -> int | None:
    """The Hub's stored-element total: its ``total``, else the sum of its per-dtype counts."""
    total = getattr(external, "total", None) if external is not None else None
    if isinstance(total, int) and not isinstance(total, bool) and total > 0:
        return total
    by_dtype = _by_dtype(external)
    return sum(v for v in (by_dtype or {}).values() if isinstance(v, int) and not isinstance(v, bool)) or None


def _by_dtype(external: Any) -> Mapping[str, int] | None:
    by_dtype = getattr(external, "by_dtype", None) if external is not None else None
    return by_dtype if isinstance(by_dtype, Mapping) else None


def _param_counts(
    external: Any,
    method: str,
    overhead: int,
    expert_weights: int,
    computed_total: int,
    active_computed: int,
    notes: list[SpecNote],
    estimated: list[str],
) -> _Counts:
    hub_total = _hub_total(external)
    if hub_total:
        total, packing_note = elements_to_params(
            method, overhead, expert_weights, hub_total, _by_dtype(external), computed_total
        )
        if packing_note:
            notes.append(packing_note)
        total_source = as_str(getattr(external, "source", None)) or "safetensors"
    else:
        total, total_source = computed_total, "computed"
        estimated.append("params_total")
    # active parameters are our own count from the config: a model card's or review page's figure is shown beside it
    # where they disagree, never preferred (docs/methodology.md §4.14); a figure the reader gives (the command line's
    # --active-params) is theirs to choose, and one stands in where the config yields no count
    hub_active = getattr(external, "active", None) if external is not None else None
    given = bool(getattr(external, "active_given", False))
    published = hub_active if isinstance(hub_active, int) and not isinstance(hub_active, bool) and hub_active > 0 else 0
    if published and (given or active_computed <= 0):
        return _Counts(total, total_source, published, "model_card")
    estimated.append("params_active")
    return _Counts(total, total_source, active_computed, "computed")


def _linear_dims(reader: ConfigReader, d: Dims) -> None:
    linear = reader.mapping("linear_attn_config")
    if linear:
        d.linear_value_heads = as_int(linear.get("num_heads")) or d.heads
        d.linear_key_heads = d.linear_value_heads
        d.linear_value_dim = as_int(linear.get("head_dim")) or d.head_dim
        d.linear_key_dim = d.linear_value_dim
        d.conv_kernel = as_int(linear.get("short_conv_kernel_size")) or 4
        return
    if reader.has("linear_num_value_heads") or d.family == "qwen3_next":
        d.linear_key_heads = _dim(reader, ("linear_num_key_heads",), d.heads, "linear_num_key_heads")
        d.linear_value_heads = _dim(reader, ("linear_num_value_heads",), d.heads, "linear_num_value_heads")
        d.linear_key_dim = _dim(reader, ("linear_key_head_dim",), d.head_dim, "linear_key_head_dim")
        d.linear_value_dim = _dim(reader, ("linear_value_head_dim",), d.head_dim, "linear_value_head_dim")
        d.conv_kernel = _dim(reader, ("linear_conv_kernel_dim",), 4, "linear_conv_kernel_dim")
        return
    d.ssm_state = reader.num("ssm_state_size", "mamba_d_state", "state_size") or 0
    if d.ssm_state:
        d.ssm_heads = reader.num("mamba_num_heads", "mamba_n_heads") or 0
        d.ssm_head_dim = reader.num("mamba_head_dim", "mamba_d_head") or 0
        d.ssm_groups = reader.num("n_groups", "mamba_n_groups") or 1
        expand = reader.num("mamba_expand", "expand") or 2
        d.ssm_inner = d.ssm_heads * d.ssm_head_dim if d.ssm_heads and d.ssm_head_dim else expand * d.hidden
        d.conv_kernel = reader.num("conv_kernel", "mamba_d_conv", "d_conv") or 4
