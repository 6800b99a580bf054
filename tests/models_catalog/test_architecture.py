"""ModelSpec.from_hf_config: known facts, per-layer cache layouts, release dtypes and robustness."""

from __future__ import annotations

import json
import time
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import models_catalog
from models_catalog.architecture import AttentionKind, LayerGroup, ModelSpec, NoteKey, ParamCounts, SpecNote

HUB = Path(models_catalog.__file__).parent / "data" / "hub"


@cache
def _config_text(model_id: str) -> str:
    return (HUB / model_id / "config.json").read_text()


def config(model_id: str) -> dict:
    return json.loads(_config_text(model_id))


def spec(model_id: str, params: ParamCounts | None = None) -> ModelSpec:
    return ModelSpec.from_hf_config(config(model_id), params)


def note(model: ModelSpec, key: NoteKey) -> SpecNote:
    (found,) = (n for n in model.notes if n.key == key)
    return found


def groups_by_kind(model: ModelSpec) -> dict[AttentionKind, list[LayerGroup]]:
    found: dict[AttentionKind, list[LayerGroup]] = {}
    for group in model.layer_groups:
        found.setdefault(group.kind, []).append(group)
    return found


# --- known facts (docs/methodology.md §1.3) ---------------------------------------------------------------


def test_llama_3_1_70b_count_is_exact():
    model = spec("meta-llama/Llama-3.1-70B-Instruct")

    assert model.params_total == 70_553_706_496
    assert model.params_source == "computed"


def test_deepseek_v3_main_model_and_mtp_layer_match_the_published_split():
    model = spec("deepseek-ai/DeepSeek-V3")
    shared_copies = 2 * model.vocab_size * model.hidden_size  # embed + head stored again under layer 61

    assert round(model.params_loaded / 1e7) == 67_103  # 671.03 B
    assert round((model.params_not_loaded - shared_copies) / 1e7) == 1_161  # 11.61 B
    assert model.params_not_loaded == model.components.mtp
    assert note(model, NoteKey.MTP_STORED).values == {"parameters": model.components.mtp}


def test_qwen3_235b_active_parameters_with_and_without_the_input_embedding():
    model = spec("Qwen/Qwen3-235B-A22B")

    assert round(model.params_active_computed / 1e7) == 2_157  # 21.57 B
    assert round((model.params_active_computed + model.components.embedding) / 1e7) == 2_219  # 22.19 B
    assert model.params_active_source == "computed"
    assert SpecNote.of(NoteKey.ACTIVE_MOE) in model.notes
    assert "the input embedding table is excluded" in note(model, NoteKey.ACTIVE_MOE).text


def test_gpt_oss_120b_parameters_and_active_parameters():
    model = spec("openai/gpt-oss-120b")

    assert round(model.params_total / 1e7) == 11_683  # 116.83 B
    assert round(model.params_active / 1e7) == 513  # 5.13 B
    assert (model.experts_routed, model.experts_per_token, model.moe_layers) == (128, 4, 36)


def test_safetensors_counts_given_are_used_and_active_from_our_own_count():
    """A model card's active count is not preferred over our count from the config (docs/methodology.md §4.14)."""
    model = spec("meta-llama/Llama-3.1-8B-Instruct", ParamCounts(total=8_030_261_248, active=8_000_000_000))

    assert (model.params_total, model.params_source) == (8_030_261_248, "safetensors")
    assert (model.params_active, model.params_active_source) == (model.params_active_computed, "computed")
    assert model.params_active != 8_000_000_000
    assert "params_total" not in model.estimated_fields


def test_gpt_oss_hub_element_count_is_converted_to_parameters_with_a_note():
    model = spec("openai/gpt-oss-120b", ParamCounts(total=120_412_337_472))

    assert round(model.params_total / 1e7) == 11_683
    stored = note(model, NoteKey.HUB_ELEMENTS)
    assert stored.values == {"elements": 120_412_337_472, "method": "mxfp4", "parameters": model.params_total}
    assert stored.text == (
        "The Hub counts 120.41 B stored elements; that includes MXFP4 packing and E8M0 scales, "
        "so the checkpoint holds 116.83 B parameters."
    )


def test_mxfp4_dtype_split_from_the_hub_is_converted_to_parameters():
    # BF16 + U8 = 120,412,337,472 (the Hub total); the U8 share holds expert weights plus E8M0 scales.
    hub = {"BF16": 2_167_371_072, "U8": 118_244_966_400}
    model = spec("openai/gpt-oss-120b", ParamCounts(by_dtype=hub))

    assert round(model.params_total / 1e7) == 11_683


def test_gptq_int4_element_count_is_converted_to_parameters():
    dense = spec("Qwen/Qwen2.5-7B-Instruct")
    gptq = {
        **config("Qwen/Qwen2.5-7B-Instruct"),
        "quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": 128},
    }
    quantized = ModelSpec.from_hf_config(gptq)
    hub_elements = quantized.params_stored_elements
    converted = ModelSpec.from_hf_config(gptq, ParamCounts(total=hub_elements))

    assert quantized.native_dtype == "int4"
    assert hub_elements < dense.params_total / 3  # 8 int4 values per I32 element
    assert converted.params_total == dense.params_total
    assert note(converted, NoteKey.HUB_ELEMENTS).values["method"] == "gptq"
    assert "includes gptq packing and scale/zero tensors" in note(converted, NoteKey.HUB_ELEMENTS).text


@pytest.mark.parametrize(
    ("quantization", "scalars"),
    [
        ({"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16}, 2),  # weight and input scale
        (
            {
                "quant_method": "compressed-tensors",
                "format": "nvfp4-pack-quantized",
                "config_groups": {
                    "group_0": {
                        "weights": {"num_bits": 4, "type": "float", "strategy": "tensor_group", "group_size": 16},
                        "input_activations": None,
                    }
                },
            },
            1,  # weight-only (NVFP4A16): the weight's global scale alone
        ),
    ],
)
def test_nvfp4_element_count_is_converted_to_parameters(quantization, scalars):
    # Llama-3.1-8B: 224 linear matrices holding 6,979,321,856 weights, stored as n/2 U8 + n/16 F8_E4M3 elements
    dense = spec("meta-llama/Llama-3.1-8B-Instruct")
    nvfp4 = {**config("meta-llama/Llama-3.1-8B-Instruct"), "quantization_config": quantization}
    quantized = ModelSpec.from_hf_config(nvfp4)
    hub_elements = quantized.params_stored_elements
    converted = ModelSpec.from_hf_config(nvfp4, ParamCounts(total=hub_elements))

    assert quantized.native_dtype == "nvfp4"
    assert hub_elements == dense.params_total - 6_979_321_856 * 7 // 16 + 224 * scalars
    assert converted.params_total == dense.params_total
    assert note(converted, NoteKey.HUB_ELEMENTS).values["method"] == "nvfp4"
    assert "includes NVFP4 packing and FP8 scales" in note(converted, NoteKey.HUB_ELEMENTS).text


def test_tied_head_stored_separately_is_noted_when_the_hub_total_shows_it():
    model = spec("Qwen/Qwen3-0.6B", ParamCounts(total=751_632_384))

    assert model.params_total == 751_632_384
    assert SpecNote.of(NoteKey.TIED_HEAD_STORED) in model.notes
    # engines hold the tied matrix once: vocabulary × hidden = 151,936 × 1,024 is stored twice, loaded once
    assert model.params_duplicated == 151_936 * 1_024
    assert model.params_loaded == 751_632_384 - 151_936 * 1_024


def test_tied_head_is_counted_once_in_memory_and_in_the_gguf_file():
    from calculator.estimation import Workload, estimate
    from calculator.estimation.memory.gguf import gguf_size

    model = spec("Qwen/Qwen3-0.6B", ParamCounts(total=751_632_384))
    bf16 = estimate(model, Workload(precision="bf16")).weights_bytes
    assert bf16 == pytest.approx(2 * (751_632_384 - 151_936 * 1_024), rel=0.001)
    # one token_embd tensor in the file (8.5 bits per weight at Q8_0): ~0.64 GB, not ~0.80 GB with a second copy
    assert gguf_size(model, "q8_0").text_bytes < 0.66e9


# --- layer layouts ---------------------------------------------------------------------------------


def test_gemma_2_alternates_sliding_4096_and_global_layers():
    kinds = groups_by_kind(spec("google/gemma-2-9b-it"))

    assert [(g.count, g.window) for g in kinds[AttentionKind.SLIDING]] == [(21, 4096)]
    assert [(g.count, g.kv_heads, g.key_dim) for g in kinds[AttentionKind.FULL]] == [(21, 8, 256)]


def test_gemma_3_has_five_local_layers_per_global_layer():
    kinds = groups_by_kind(spec("google/gemma-3-27b-it"))

    assert [(g.count, g.window) for g in kinds[AttentionKind.SLIDING]] == [(52, 1024)]
    assert kinds[AttentionKind.FULL][0].count == 10


def test_gpt_oss_alternates_128_token_windows_with_full_attention():
    model = spec("openai/gpt-oss-20b")
    kinds = groups_by_kind(model)

    assert [(g.count, g.window, g.kv_heads, g.key_dim) for g in kinds[AttentionKind.SLIDING]] == [(12, 128, 8, 64)]
    assert kinds[AttentionKind.FULL][0].count == 12
    assert model.native_dtype == "mxfp4"


def test_deepseek_v3_has_61_mla_layers_with_latent_512_and_rope_64():
    model = spec("deepseek-ai/DeepSeek-V3")

    assert model.layer_groups == (LayerGroup(AttentionKind.MLA, 61, latent_dim=512, rope_dim=64),)
    assert model.kv_elements_per_token == 61 * 576  # 70,272 B per token in BF16 (docs/methodology.md §3.2)
    assert model.native_dtype == "fp8"


def test_deepseek_v3_2_layers_carry_the_indexer_key():
    (group,) = spec("deepseek-ai/DeepSeek-V3.2").layer_groups

    assert (group.kind, group.count, group.latent_dim, group.rope_dim, group.indexer_dim) == (
        AttentionKind.MLA,
        61,
        512,
        64,
        128,
    )


def test_kimi_k2_reads_as_deepseek_v3_mla():
    model = spec("moonshotai/Kimi-K2-Instruct")

    assert (model.model_type, model.family) == ("kimi_k2", "deepseek_v3")
    assert model.layer_groups == (LayerGroup(AttentionKind.MLA, 61, latent_dim=512, rope_dim=64),)
    assert (model.experts_routed, model.experts_shared, model.moe_layers) == (384, 1, 60)


def test_qwen3_next_has_36_gated_deltanet_layers_and_12_full_layers():
    model = spec("Qwen/Qwen3-Next-80B-A3B-Thinking")
    kinds = groups_by_kind(model)

    (linear,) = kinds[AttentionKind.LINEAR]
    assert (linear.count, linear.state_elements, linear.conv_elements) == (36, 32 * 128 * 128, 3 * 8192)
    assert [(g.count, g.kv_heads, g.key_dim) for g in kinds[AttentionKind.FULL]] == [(12, 2, 256)]
    assert model.kv_elements_per_token == 12 * 2 * 2 * 256  # 24 KiB/token in BF16 (docs/methodology.md §3.5)


def test_glm_5_3_flash_has_34_kda_layers_and_11_nope_mla_layers_with_indexer():
    model = spec("zai-org/GLM-5.3-Flash")
    kinds = groups_by_kind(model)

    (linear,) = kinds[AttentionKind.LINEAR]
    assert (linear.count, linear.state_elements, linear.conv_elements) == (34, 64 * 128 * 128, 3 * 3 * 64 * 128)
    (mla,) = kinds[AttentionKind.MLA]
    assert (mla.count, mla.latent_dim, mla.rope_dim, mla.indexer_dim) == (11, 512, 0, 128)
    assert (model.experts_routed, model.experts_per_token, model.experts_shared, model.moe_layers) == (288, 8, 1, 42)
    assert model.has_vision


def test_glm_5_3_flash_partial_config_gives_a_computed_total_and_names_its_gaps():
    model = spec("zai-org/GLM-5.3-Flash")

    assert model.params_source == "computed"
    assert model.params_total == model.components.total
    assert 300e9 < model.params_total < 340e9  # the seed documents state 320 B / 321.3 B
    assert {"params_total", "components.vision", "native_dtype"} <= set(model.estimated_fields)
    fp8 = ModelSpec.from_hf_config(
        {
            **config("zai-org/GLM-5.3-Flash"),
            "quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128]},
        }
    )
    assert fp8.native_dtype == "fp8"
    assert "native_dtype" not in fp8.estimated_fields


def test_llama_4_chunked_layers_are_windows_of_one_chunk():
    model = spec("meta-llama/Llama-4-Scout-17B-16E-Instruct")
    kinds = groups_by_kind(model)

    assert [(g.count, g.window) for g in kinds[AttentionKind.SLIDING]] == [(36, 8192)]
    assert kinds[AttentionKind.FULL][0].count == 12
    assert note(model, NoteKey.CHUNKED_ATTENTION).values == {"tokens": 8192}
    assert note(model, NoteKey.CHUNKED_ATTENTION).text == (
        "Chunked local attention layers keep at most one chunk (8,192 tokens), shown as a sliding window."
    )


def test_llama_3_2_vision_cross_attention_layers_keep_no_per_token_cache():
    model = spec("meta-llama/Llama-3.2-90B-Vision-Instruct")
    kinds = groups_by_kind(model)

    assert kinds[AttentionKind.FULL][0].count == 80
    assert kinds[AttentionKind.NONE][0].count == 20
    assert model.cross_attention_layers == 20
    assert SpecNote.of(NoteKey.CROSS_ATTENTION) in model.notes


def test_qwen2_5_sliding_window_switched_off_means_full_attention():
    model = spec("Qwen/Qwen2.5-7B-Instruct")

    assert model.layer_groups == (LayerGroup(AttentionKind.FULL, 28, kv_heads=4, key_dim=128, value_dim=128),)


def test_mistral_style_window_applies_to_every_layer():
    mistral = {**config("mistralai/Mistral-7B-Instruct-v0.3"), "sliding_window": 4096}

    (group,) = ModelSpec.from_hf_config(mistral).layer_groups
    assert (group.kind, group.count, group.window) == (AttentionKind.SLIDING, 32, 4096)


def test_olmo_3_has_three_sliding_layers_per_full_layer():
    kinds = groups_by_kind(spec("allenai/Olmo-3.1-32B-Instruct"))

    assert [(g.count, g.window) for g in kinds[AttentionKind.SLIDING]] == [(48, 4096)]


def test_nemotron_h_style_pattern_gives_mamba_attention_and_mlp_only_layers():
    hybrid = {
        "model_type": "nemotron_h", "hidden_size": 1024, "num_hidden_layers": 6, "num_attention_heads": 8,
        "num_key_value_heads": 2, "head_dim": 128, "vocab_size": 1000, "intermediate_size": 4096,
        "hybrid_override_pattern": "M-M*-M", "mamba_num_heads": 16, "mamba_head_dim": 64, "ssm_state_size": 128,
        "n_groups": 8, "conv_kernel": 4,
    }  # fmt: skip
    kinds = groups_by_kind(ModelSpec.from_hf_config(hybrid))

    (mamba,) = kinds[AttentionKind.LINEAR]
    assert (mamba.count, mamba.state_elements, mamba.conv_elements) == (3, 1024 * 128, 3 * (1024 + 2 * 8 * 128))
    assert kinds[AttentionKind.FULL][0].count == 1
    assert kinds[AttentionKind.NONE][0].count == 2


def test_jamba_style_attention_period_gives_one_attention_layer_in_eight():
    jamba = {
        "model_type": "jamba", "hidden_size": 512, "num_hidden_layers": 16, "num_attention_heads": 8,
        "num_key_value_heads": 8, "vocab_size": 1000, "intermediate_size": 1024, "attn_layer_period": 8,
        "attn_layer_offset": 4, "mamba_d_state": 16, "mamba_d_conv": 4, "mamba_expand": 2, "num_experts": 4,
        "num_experts_per_tok": 2, "expert_layer_period": 2, "expert_layer_offset": 1,
    }  # fmt: skip
    model = ModelSpec.from_hf_config(jamba)
    kinds = groups_by_kind(model)

    assert kinds[AttentionKind.FULL][0].count == 2
    assert kinds[AttentionKind.LINEAR][0].count == 14
    assert model.moe_layers == 8


# --- release dtypes ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model_id", "dtype"),
    [
        ("meta-llama/Llama-3.1-8B-Instruct", "bf16"),
        ("deepseek-ai/DeepSeek-V3", "fp8"),
        ("MiniMaxAI/MiniMax-M2.7", "fp8"),
        ("openai/gpt-oss-120b", "mxfp4"),
        ("allenai/Olmo-3.1-32B-Instruct", "bf16"),
    ],
)
def test_native_dtype_comes_from_quantization_config_or_torch_dtype(model_id, dtype):
    assert spec(model_id).native_dtype == dtype


def test_float16_release_reads_as_fp16():
    assert ModelSpec.from_hf_config({"model_type": "llama", "torch_dtype": "float16"}).native_dtype == "fp16"


# --- robustness ---------------------------------------------------------------------------------------


def test_empty_config_degrades_to_a_generic_estimate():
    model = ModelSpec.from_hf_config({})

    assert model.family == "generic"
    assert model.params_total > 0
    assert {"hidden_size", "num_layers", "vocab_size", "params_total", "family"} <= set(model.estimated_fields)
    assert note(model, NoteKey.UNKNOWN_ARCHITECTURE).text == (
        "Unknown architecture 'unknown': read as a standard decoder-only transformer."
    )


def test_chunked_layers_without_a_chunk_size_make_the_config_unreadable():
    model = ModelSpec.from_hf_config(
        {"model_type": "llama4_text", "layer_types": ["chunked_attention", "full_attention"], "num_hidden_layers": 2}
    )

    assert note(model, NoteKey.CONFIG_UNREADABLE).values == {"error": "TypeError"}
    assert model.model_type == "llama4_text"


def test_notes_are_values_a_spec_can_be_hashed_and_compared_with():
    first, second = spec("deepseek-ai/DeepSeek-V3"), spec("deepseek-ai/DeepSeek-V3")

    assert first.notes == second.notes
    assert hash(first) == hash(second)
    assert SpecNote.of(NoteKey.MTP_STORED, parameters=1) != SpecNote.of(NoteKey.MTP_STORED, parameters=2)
    assert SpecNote.of("hub_elements", method="fp8", elements=3) == SpecNote(
        "hub_elements", (("elements", 3), ("method", "fp8"))
    )


def test_strings_and_nones_where_numbers_belong_are_read_or_estimated():
    model = ModelSpec.from_hf_config(
        {"model_type": "llama", "hidden_size": "4096", "num_hidden_layers": None, "num_attention_heads": "many"}
    )

    assert model.hidden_size == 4096
    assert "num_layers" in model.estimated_fields
    assert "num_attention_heads" in model.estimated_fields


def test_absurd_layer_count_is_bounded():
    started = time.perf_counter()
    model = ModelSpec.from_hf_config({"num_hidden_layers": 10**12, "layer_types": ["full_attention"] * 3})

    assert model.num_layers <= 4096
    assert time.perf_counter() - started < 1.0


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=12), inner, max_size=5),
    max_leaves=30,
)
_keys = st.sampled_from(
    [
        "model_type", "hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads",
        "head_dim", "vocab_size", "intermediate_size", "layer_types", "sliding_window", "kv_lora_rank",
        "q_lora_rank", "qk_rope_head_dim", "n_routed_experts", "num_experts_per_tok", "first_k_dense_replace",
        "moe_layer_freq", "mlp_only_layers", "linear_attn_config", "hybrid_override_pattern", "text_config",
        "vision_config", "quantization_config", "torch_dtype", "tie_word_embeddings", "full_attention_interval",
        "cross_attention_layers", "mlp_layer_types", "attn_type_list", "index_head_dim", "num_nextn_predict_layers",
    ]
)  # fmt: skip


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(_keys | st.text(max_size=8), _json, max_size=12))
def test_from_hf_config_never_raises_for_arbitrary_dicts(raw):
    model = ModelSpec.from_hf_config(raw)

    assert isinstance(model, ModelSpec)
    assert model.params_total >= 0
    assert sum(group.count for group in model.layer_groups) == model.num_layers
    assert all(n.key in set(NoteKey) and n.text for n in model.notes)


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.sampled_from(["text_config", "vision_config", "linear_attn_config"]), _json, max_size=3))
def test_nested_configs_of_any_shape_never_raise(raw):
    assert isinstance(ModelSpec.from_hf_config(raw), ModelSpec)


# --- speed ------------------------------------------------------------------------------------------


def test_parsing_every_recorded_config_takes_milliseconds():
    configs = [json.loads(path.read_text()) for path in sorted(HUB.glob("*/*/config.json"))]
    started = time.perf_counter()
    for _ in range(5):
        for raw in configs:
            ModelSpec.from_hf_config(raw)
    per_call = (time.perf_counter() - started) / (5 * len(configs))

    assert per_call < 0.005
