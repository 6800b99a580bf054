"""Which attention and which MLP each decoder layer has, read from the config's layer-layout keys.

Every layout key the Hub uses is read in one place: ``layer_types`` (Gemma 3, Olmo 3, gpt-oss, Qwen3-Next,
GLM-5.3-Flash), ``hybrid_override_pattern`` (Nemotron-H), ``attn_layer_period``/``attn_layer_offset`` (Jamba),
``full_attention_interval`` (Qwen3-Next), ``linear_attn_config`` (KDA layers), ``attn_type_list`` (MiniMax),
``cross_attention_layers`` (Llama 3.2 Vision), ``sliding_window_pattern`` (Gemma 2/3), ``no_rope_layers`` /
``attention_chunk_size`` (Llama 4), and for the MLP ``mlp_layer_types``, ``first_k_dense_replace`` +
``moe_layer_freq`` (DeepSeek, GLM), ``decoder_sparse_step`` + ``mlp_only_layers`` (Qwen MoE),
``interleave_moe_layer_step`` (Llama 4) and ``expert_layer_period`` (Jamba). Layer selection rules follow the
transformers / vLLM implementations cited in docs/methodology.md §1.2.
"""

from __future__ import annotations

from dataclasses import dataclass

from models_catalog.architecture.config import ConfigReader, as_int

# Attention kinds of one decoder layer (finer than AttentionKind: the parameter count differs).
FULL = "full"
SLIDING = "sliding"
CHUNKED = "chunked"  # Llama 4 chunked local attention
MLA = "mla"
MLA_INDEXED = "mla_indexed"  # MLA plus a DeepSeek-style sparse-attention indexer
GATED_DELTANET = "gated_deltanet"  # Qwen3-Next linear attention
KDA = "kda"  # Kimi Delta Attention linear layers
MAMBA = "mamba"
MAMBA2 = "mamba2"
LIGHTNING = "lightning"  # MiniMax-01 linear attention
CROSS = "cross"  # cross-attention to image tokens (Llama 3.2 Vision)
NO_ATTENTION = "none"

DENSE = "dense"
MOE = "moe"
NO_MLP = "none"

_LAYER_TYPE_NAMES = {
    "full_attention": FULL,
    "attention": FULL,
    "global": FULL,
    "global_attention": FULL,
    "full": FULL,
    "sliding_attention": SLIDING,
    "sliding_window": SLIDING,
    "sliding": SLIDING,
    "local": SLIDING,
    "local_attention": SLIDING,
    "chunked_attention": CHUNKED,
    "deepseek_sparse_attention": MLA_INDEXED,
    "sparse_attention": MLA_INDEXED,
    "cross_attention": CROSS,
    "mamba": MAMBA,
    "mamba2": MAMBA2,
    "linear_attention": GATED_DELTANET,
}


@dataclass(frozen=True, slots=True)
class LayerPlan:
    attention: tuple[str, ...]
    mlp: tuple[str, ...]
    guessed: tuple[str, ...]  # layout facts that were not in the config


def _index_set(values: object, layers: int) -> set[int]:
    if not isinstance(values, (list, tuple)):
        return set()
    found = set()
    for value in values[:layers]:
        index = as_int(value, minimum=0, maximum=layers - 1)
        if index is not None:
            found.add(index)
    return found


def _linear_kind(reader: ConfigReader) -> str:
    if reader.mapping("linear_attn_config"):
        return KDA
    if reader.has("linear_num_value_heads", "linear_key_head_dim"):
        return GATED_DELTANET
    if reader.has("mamba_num_heads", "ssm_state_size", "mamba_d_state", "state_size"):
        return MAMBA2 if reader.has("mamba_num_heads", "n_groups") else MAMBA
    return LIGHTNING


def attention_plan(reader: ConfigReader, family: str, layers: int, is_mla: bool, has_indexer: bool) -> LayerPlan:
    guessed: list[str] = []
    kinds: list[str] | None = None
    base = (MLA_INDEXED if has_indexer else MLA) if is_mla else FULL

    linear_cfg = reader.mapping("linear_attn_config")
    kda_layers = _index_set(linear_cfg.get("kda_layers"), layers) if linear_cfg else set()
    layer_types = reader.items("layer_types")
    pattern = reader.raw("hybrid_override_pattern")
    attn_types = reader.items("attn_type_list")

    if kda_layers:
        kinds = [KDA if i in kda_layers else base for i in range(layers)]
    elif layer_types:
        linear = _linear_kind(reader)
        kinds = []
        for i in range(layers):
            name = layer_types[i] if i < len(layer_types) else None
            kind = _LAYER_TYPE_NAMES.get(name.lower()) if isinstance(name, str) else None
            if kind is None:
                guessed.append("layer_types")
                kind = base
            elif kind == GATED_DELTANET:
                kind = linear
            elif kind in (FULL, MLA_INDEXED) and is_mla:
                kind = MLA_INDEXED if has_indexer else MLA
            elif kind == MLA_INDEXED:
                kind = FULL
            kinds.append(kind)
        if len(layer_types) != layers:
            guessed.append("layer_types")
    elif isinstance(pattern, str) and pattern:
        kinds = [
            {"M": MAMBA2, "*": FULL, "-": NO_ATTENTION, "E": NO_ATTENTION}.get(pattern[i], FULL)
            if i < len(pattern)
            else FULL
            for i in range(layers)
        ]
        if len(pattern) != layers:
            guessed.append("hybrid_override_pattern")
    elif reader.num("attn_layer_period") is not None:
        period = reader.num("attn_layer_period") or 1
        offset = reader.num("attn_layer_offset", minimum=0) or 0
        ssm = MAMBA2 if reader.has("mamba_num_heads") else MAMBA
        kinds = [base if i % period == offset else ssm for i in range(layers)]
    elif reader.num("full_attention_interval") is not None:
        interval = reader.num("full_attention_interval") or 1
        kinds = [base if (i + 1) % interval == 0 else _linear_kind(reader) for i in range(layers)]
    elif attn_types:
        kinds = [
            LIGHTNING if i < len(attn_types) and as_int(attn_types[i], minimum=0) == 0 else base for i in range(layers)
        ]
    elif family == "qwen3_next":
        # Qwen3NextConfig default: full_attention_interval 4 (3 Gated DeltaNet layers : 1 full).
        guessed.append("full_attention_interval")
        kinds = [base if (i + 1) % 4 == 0 else GATED_DELTANET for i in range(layers)]
    else:
        kinds = [base] * layers
        window = reader.num("sliding_window")
        if family in ("gemma2", "gemma3") and window:
            # Gemma 2 alternates local/global starting with a local layer; Gemma 3 has one global layer
            # every sliding_window_pattern layers (transformers default 6).
            step = 2 if family == "gemma2" else reader.num("sliding_window_pattern")
            if step is None:
                step = 6
                guessed.append("sliding_window_pattern")
            kinds = [FULL if (i + 1) % step == 0 else SLIDING for i in range(layers)]
        elif family == "llama4" and reader.num("attention_chunk_size"):
            no_rope = reader.items("no_rope_layers")
            if no_rope is None:
                guessed.append("no_rope_layers")
            kinds = []
            for i in range(layers):
                uses_rope = (i + 1) % 4 != 0
                if no_rope is not None and i < len(no_rope):
                    uses_rope = as_int(no_rope[i], minimum=0) != 0
                kinds.append(CHUNKED if uses_rope else FULL)
        elif window and reader.flag("use_sliding_window") is not False and not is_mla:
            first_sliding = 0
            if reader.has("use_sliding_window"):
                first_sliding = reader.num("max_window_layers", minimum=0) or 0
            kinds = [SLIDING if i >= first_sliding else FULL for i in range(layers)]

    cross = _index_set(reader.raw("cross_attention_layers"), layers)
    if cross:
        kinds = [CROSS if i in cross else kind for i, kind in enumerate(kinds)]
    return LayerPlan(attention=tuple(kinds), mlp=(), guessed=tuple(dict.fromkeys(guessed)))


def mlp_plan(reader: ConfigReader, layers: int, experts: int, attention: tuple[str, ...]) -> tuple[str, ...]:
    if experts <= 0:
        pattern = reader.raw("hybrid_override_pattern")
        if isinstance(pattern, str) and pattern:
            return tuple(DENSE if i < len(pattern) and pattern[i] == "-" else NO_MLP for i in range(layers))
        return tuple(DENSE for _ in range(layers))

    mlp_types = reader.items("mlp_layer_types")
    if mlp_types:
        return tuple(
            MOE
            if i < len(mlp_types) and isinstance(mlp_types[i], str) and mlp_types[i].lower() in ("sparse", "moe")
            else DENSE
            for i in range(layers)
        )
    pattern = reader.raw("hybrid_override_pattern")
    if isinstance(pattern, str) and pattern:
        return tuple(
            (MOE if pattern[i] == "E" else DENSE if pattern[i] == "-" else NO_MLP) if i < len(pattern) else MOE
            for i in range(layers)
        )
    explicit = reader.items("moe_layers")
    if explicit:
        chosen = _index_set(explicit, layers)
        return tuple(MOE if i in chosen else DENSE for i in range(layers))
    if reader.num("interleave_moe_layer_step") is not None:
        step = reader.num("interleave_moe_layer_step") or 1
        return tuple(MOE if (i + 1) % step == 0 else DENSE for i in range(layers))
    if reader.num("expert_layer_period") is not None:
        period = reader.num("expert_layer_period") or 1
        offset = reader.num("expert_layer_offset", minimum=0) or 0
        return tuple(MOE if i % period == offset else DENSE for i in range(layers))
    first_dense = reader.num("first_k_dense_replace", minimum=0) or 0
    frequency = reader.num("moe_layer_freq") or 1
    sparse_step = reader.num("decoder_sparse_step") or 1
    mlp_only = _index_set(reader.raw("mlp_only_layers"), layers)
    return tuple(
        MOE if i >= first_dense and i % frequency == 0 and (i + 1) % sparse_step == 0 and i not in mlp_only else DENSE
        for i in range(layers)
    )
