"""Turns a config mapping into the field values of ``ModelSpec`` (see ``ModelSpec.from_hf_config``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from models_catalog import _arch_layers as lay
from models_catalog._arch_config import MAX_LAYERS, ConfigReader, as_int, as_str, split_wrapper
from models_catalog._arch_groups import layer_groups
from models_catalog._arch_params import Dims, count
from models_catalog._arch_quant import elements_to_params, native_dtype, quant_method, storage_overhead
from models_catalog._arch_vision import vision_params
from models_catalog.architecture import ParamBreakdown

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
    "gemma3": {"vocab_size": 262208},
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


def build(config: Mapping[str, Any], external: Any) -> dict[str, Any]:
    text, outer, vision = split_wrapper(config)
    model_type = as_str(config.get("model_type")) or as_str(text.get("model_type")) or "unknown"
    family = _family(as_str(config.get("model_type")) or "", as_str(text.get("model_type")) or "")
    reader = ConfigReader(text, outer, _FAMILY_DEFAULTS.get(family, {}))
    notes: list[str] = []

    def dim(keys: tuple[str, ...], fallback: int, field: str) -> int:
        value = reader.num(*keys)
        if value is None:
            reader.defaulted.append(field)
            return fallback
        return value

    hidden = dim(("hidden_size", "d_model", "n_embd", "dim"), 4096, "hidden_size")
    layers = dim(("num_hidden_layers", "num_layers", "n_layer", "n_layers"), 32, "num_layers")
    layers = min(layers, MAX_LAYERS)
    heads = dim(("num_attention_heads", "n_head", "num_heads", "n_heads"), max(1, hidden // 128), "num_attention_heads")
    kv_heads = reader.num("num_key_value_heads", "num_kv_heads", "n_kv_heads", "multi_query_group_num") or heads
    vocab = dim(("vocab_size", "padded_vocab_size", "n_vocab"), 32000, "vocab_size")
    is_mla = (reader.num("kv_lora_rank") or 0) > 0
    qk_nope = reader.num("qk_nope_head_dim", minimum=0) or 0
    qk_rope = reader.num("qk_rope_head_dim", minimum=0) or 0
    head_dim = (qk_nope + qk_rope) if is_mla and qk_nope + qk_rope else reader.num("head_dim", "attention_head_dim")
    head_dim = head_dim or max(1, hidden // heads)
    experts = reader.num("n_routed_experts", "num_experts", "num_local_experts", "moe_num_experts", "n_experts") or 0
    dense_keys = ("intermediate_size_mlp", "intermediate_size") if family == "llama4" else ("intermediate_size",)
    non_gated = family in _NON_GATED_MLP
    intermediate = dim(
        (*dense_keys, "ffn_hidden_size", "n_inner", "ffn_dim"),
        4 * hidden if non_gated else 8 * hidden // 3,
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
    tie = reader.flag("tie_word_embeddings")
    if tie is None:
        tie = family in ("gemma", "gemma2", "gemma3")
        if family == "generic":
            reader.defaulted.append("tie_word_embeddings")
    attention_bias = reader.flag("attention_bias") is True
    use_qk_norm = reader.flag("use_qk_norm")
    qk_norm = ""
    if family in ("qwen3", "qwen3_moe", "qwen3_next", "gemma3") or (family in _GLM and use_qk_norm):
        qk_norm = "head"
    elif family in ("olmo2", "olmo3") or (family == "minimax_m2" and use_qk_norm is not False):
        qk_norm = "full"

    mtp_layers = reader.num("num_nextn_predict_layers", "mtp_num_hidden_layers", minimum=0) or 0
    if family == "minimax_m2" and reader.flag("use_mtp"):
        notes.append("MiniMax declares multi-token-prediction modules that its Hub checkpoint does not store.")
    if family == "qwen3_next" and not reader.has("num_nextn_predict_layers", "mtp_num_hidden_layers"):
        # The Qwen3-Next checkpoints store one mtp.* layer that config.json does not declare.
        mtp_layers = 1

    d = Dims(
        family=family,
        hidden=hidden,
        layers=layers,
        heads=heads,
        kv_heads=kv_heads,
        head_dim=head_dim,
        vocab=vocab,
        intermediate=intermediate,
        expert_intermediate=expert_width,
        experts=experts,
        experts_per_token=per_token,
        shared_experts=reader.num("n_shared_experts", "num_shared_experts", minimum=0)
        or (1 if family == "llama4" else 0),
        shared_intermediate=reader.num("shared_expert_intermediate_size", "shared_intermediate_size", minimum=0) or 0,
        tie_embeddings=tie,
        qkv_bias=attention_bias
        or family in ("qwen2", "qwen2_moe", "qwen2_5_vl", "qwen2_vl")
        or bool(reader.flag("qkv_bias")),
        o_bias=attention_bias and family not in _GLM,
        qk_norm=qk_norm,
        attention_sinks=family == "gpt_oss",
        gated_query=family == "qwen3_next",
        gated_mlp=not non_gated,
        mlp_bias=bool(reader.flag("mlp_bias")) or family in ("phi", "starcoder2", "gpt2", "gpt_neox", "gpt_bigcode"),
        norms_per_layer=4 if family in ("gemma2", "gemma3") else 2,
        router_bias=family == "gpt_oss"
        or reader.text("topk_method") == "noaux_tc"
        or bool(reader.flag("use_routing_bias"))
        or family in _GLM,
        expert_bias=family == "gpt_oss",
        q_lora_rank=reader.num("q_lora_rank") or 0,
        kv_lora_rank=reader.num("kv_lora_rank") or 0,
        qk_nope_dim=qk_nope,
        qk_rope_dim=qk_rope,
        v_head_dim=reader.num("v_head_dim") or head_dim,
        index_heads=reader.num("index_n_heads") or 0,
        index_dim=reader.num("index_head_dim") or 0,
        mtp_layers=mtp_layers,
        mtp_stores_embeddings=family in _MTP_WITH_EMBEDDINGS,
        embedding_rows=vocab + (8 if family == "mllama" else 0),
    )
    _linear_dims(reader, d, dim)
    plan = lay.attention_plan(reader, family, layers, is_mla, bool(d.index_dim))
    mlp = lay.mlp_plan(reader, layers, experts, plan.attention)
    counts = count(d, plan.attention, mlp)

    groups = layer_groups(reader, d, plan.attention, notes)
    has_vision = bool(vision) or family in (
        "mllama",
        "llama4",
        "gemma3",
        "qwen2_5_vl",
        "qwen2_vl",
        "glm4v_moe",
        "glm5_next",
    )
    if family == "mllama" and vision and any(key not in vision for key in _MLLAMA_VISION_DEFAULTS):
        vision = {**_MLLAMA_VISION_DEFAULTS, **vision}
        reader.defaulted.append("components.vision")
    vision_count, vision_exact = vision_params(family, vision, hidden) if has_vision else (0, True)
    if has_vision and not vision_exact:
        reader.defaulted.append("components.vision")
        notes.append(
            "The vision tower is not fully described by this config.json; "
            + ("its parameters are a plain-ViT estimate." if vision_count else "its parameters are not counted.")
        )
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
    active_computed = (
        computed_total
        - (0 if tie else counts.embedding)
        - vision_count
        - counts.mtp
        - counts.routed_experts
        + min(per_token, experts) * counts.per_expert * counts.moe_layers
    )
    quantization = reader.mapping("quantization_config")
    method = quant_method(quantization)
    overhead = storage_overhead(method, quantization, d.linears)
    expert_weights = sum(lin.count * lin.out_features * lin.in_features for lin in d.linears if lin.expert)
    dtype = native_dtype(quantization, reader.text("torch_dtype", "dtype"))
    if dtype is None:
        dtype = "bf16"
        reader.defaulted.append("native_dtype")

    estimated = [*reader.defaulted, *plan.guessed]
    by_dtype = getattr(external, "by_dtype", None) if external is not None else None
    by_dtype = by_dtype if isinstance(by_dtype, Mapping) else None
    hub_total = getattr(external, "total", None) if external is not None else None
    if not isinstance(hub_total, int) or isinstance(hub_total, bool) or hub_total <= 0:
        hub_total = sum(v for v in (by_dtype or {}).values() if isinstance(v, int) and not isinstance(v, bool)) or None
    if hub_total:
        params_total, packing_note = elements_to_params(
            method, overhead, expert_weights, hub_total, by_dtype, computed_total
        )
        if packing_note:
            notes.append(packing_note)
        params_source = as_str(getattr(external, "source", None)) or "safetensors"
        if tie and counts.embedding and abs(hub_total - computed_total - counts.embedding) < 0.005 * hub_total:
            notes.append("The checkpoint stores lm_head.weight separately although tie_word_embeddings is true.")
    else:
        params_total, params_source = computed_total, "computed"
        estimated.append("params_total")
    hub_active = getattr(external, "active", None) if external is not None else None
    if isinstance(hub_active, int) and not isinstance(hub_active, bool) and hub_active > 0:
        params_active, active_source = hub_active, "model_card"
    else:
        params_active, active_source = active_computed, "computed"
        estimated.append("params_active")
    notes.append(
        "Computed active parameters count what one token multiplies: attention, norms, "
        + ("the router, shared experts and the routed experts it is sent to, " if experts else "the MLP, ")
        + (
            "and the output head; the input embedding table is excluded (one row is read per token), "
            "the convention OpenAI uses for gpt-oss."
            if not tie
            else "and the tied embedding, read in full as the output head."
        )
    )
    if counts.mtp:
        notes.append(
            f"The checkpoint stores {counts.mtp / 1e9:.2f} B parameters of multi-token-prediction layers; "
            "engines skip them unless MTP speculative decoding is on."
        )
    if reader.flag("mhc"):
        notes.append("The hyper-connection (mHC) mixing parameters are not counted (the config does not size them).")
        estimated.append("components.other")
    if family == "generic":
        notes.append(f"Unknown architecture {model_type!r}: read as a standard decoder-only transformer.")
        estimated += ["family", "layer_groups"]
    return {
        "model_type": model_type,
        "family": family,
        "hidden_size": hidden,
        "num_layers": layers,
        "num_attention_heads": heads,
        "num_kv_heads": kv_heads,
        "head_dim": head_dim,
        "vocab_size": vocab,
        "intermediate_size": intermediate,
        "tie_word_embeddings": tie,
        "max_context": reader.num("max_position_embeddings", "max_sequence_length", "n_positions", "seq_length"),
        "layer_groups": groups,
        "params_total": params_total,
        "params_active": params_active,
        "params_source": params_source,
        "params_active_source": active_source,
        "components": components,
        "params_not_loaded": counts.mtp,
        "experts_routed": experts,
        "experts_shared": d.shared_experts or (1 if d.shared_intermediate else 0),
        "experts_per_token": per_token,
        "moe_layers": counts.moe_layers,
        "has_vision": has_vision,
        "native_dtype": dtype,
        "estimated_fields": tuple(dict.fromkeys(estimated)),
        "notes": tuple(dict.fromkeys(notes)),
        "params_active_computed": active_computed,
        "params_stored_elements": computed_total + overhead,
        "cross_attention_layers": plan.attention.count(lay.CROSS),
    }


def _linear_dims(reader: ConfigReader, d: Dims, dim: Any) -> None:
    linear = reader.mapping("linear_attn_config")
    if linear:
        d.linear_value_heads = as_int(linear.get("num_heads")) or d.heads
        d.linear_key_heads = d.linear_value_heads
        d.linear_value_dim = as_int(linear.get("head_dim")) or d.head_dim
        d.linear_key_dim = d.linear_value_dim
        d.conv_kernel = as_int(linear.get("short_conv_kernel_size")) or 4
        return
    if reader.has("linear_num_value_heads") or d.family == "qwen3_next":
        d.linear_key_heads = dim(("linear_num_key_heads",), d.heads, "linear_num_key_heads")
        d.linear_value_heads = dim(("linear_num_value_heads",), d.heads, "linear_num_value_heads")
        d.linear_key_dim = dim(("linear_key_head_dim",), d.head_dim, "linear_key_head_dim")
        d.linear_value_dim = dim(("linear_value_head_dim",), d.head_dim, "linear_value_head_dim")
        d.conv_kernel = dim(("linear_conv_kernel_dim",), 4, "linear_conv_kernel_dim")
        return
    d.ssm_state = reader.num("ssm_state_size", "mamba_d_state", "state_size") or 0
    if d.ssm_state:
        d.ssm_heads = reader.num("mamba_num_heads", "mamba_n_heads") or 0
        d.ssm_head_dim = reader.num("mamba_head_dim", "mamba_d_head") or 0
        d.ssm_groups = reader.num("n_groups", "mamba_n_groups") or 1
        expand = reader.num("mamba_expand", "expand") or 2
        d.ssm_inner = d.ssm_heads * d.ssm_head_dim if d.ssm_heads and d.ssm_head_dim else expand * d.hidden
        d.conv_kernel = reader.num("conv_kernel", "mamba_d_conv", "d_conv") or 4
