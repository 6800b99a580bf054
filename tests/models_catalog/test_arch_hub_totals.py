"""Parameter counts computed from each recorded config.json against the Hub's exact safetensors totals.

One test per model in models_catalog/data/hub that has a config and an exact ``total_params``. Partial
configs that lack a key the count needs are listed below with the reason; they are expected to fail.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import models_catalog
from models_catalog.architecture import ModelSpec

HUB = Path(models_catalog.__file__).parent / "data" / "hub"

# gpt-oss: the Hub's element count includes one E8M0 scale per 32 MXFP4 expert weights; the parameter counts
# are 116.83 B and 20.91 B (models_catalog/data/hub/README.md; derived in docs/methodology.md §1.3).
PARAMETERS_OF_PACKED = {
    "openai/gpt-oss-120b": 116_830_000_000,
    "openai/gpt-oss-20b": 20_910_000_000,
}

EXPECTED_MISMATCH = {
    "Qwen/Qwen3-0.6B": "the checkpoint stores lm_head.weight although tie_word_embeddings is true (meta.json "
    "note); no config key reveals that",
    "zai-org/GLM-4.5-Air": "partial config lacks num_nextn_predict_layers (the checkpoint stores one MTP layer) "
    "and attention_bias",
    "zai-org/GLM-4.5V": "partial config lacks vision_config sizes, intermediate_size, first_k_dense_replace and "
    "num_nextn_predict_layers",
    "zai-org/GLM-4.6": "partial config lacks first_k_dense_replace, intermediate_size, n_shared_experts and "
    "num_nextn_predict_layers",
    "zai-org/GLM-4.7-Flash": "partial config lacks num_nextn_predict_layers (the checkpoint stores one MTP layer)",
}


def _models_with_totals() -> list[tuple[str, dict, int]]:
    found = []
    for meta_path in sorted(HUB.glob("*/*/meta.json")):
        meta = json.loads(meta_path.read_text())
        config_path = meta_path.with_name("config.json")
        if meta.get("total_params") and config_path.exists():
            found.append((meta["id"], json.loads(config_path.read_text()), meta["total_params"]))
    return found


MODELS = _models_with_totals()


def _params(model_id: str) -> list:
    return [
        pytest.param(
            config,
            total,
            id=mid,
            marks=[pytest.mark.xfail(strict=True, reason=EXPECTED_MISMATCH[mid])] if mid in EXPECTED_MISMATCH else [],
        )
        for mid, config, total in MODELS
        if model_id in ("", mid)
    ]


def test_every_recorded_model_with_a_total_is_checked():
    assert len(MODELS) >= 40
    assert set(EXPECTED_MISMATCH) <= {mid for mid, _, _ in MODELS}


@pytest.mark.parametrize(("config", "hub_total"), _params(""))
def test_config_count_is_within_half_a_percent_of_the_safetensors_total(request, config, hub_total):
    model_id = request.node.callspec.id
    spec = ModelSpec.from_hf_config(config)
    expected = PARAMETERS_OF_PACKED.get(model_id, hub_total)

    assert spec.params_source == "computed"
    assert "params_total" in spec.estimated_fields
    assert spec.params_total == spec.components.total
    assert abs(spec.params_total - expected) <= 0.005 * expected


@pytest.mark.parametrize("model_id", sorted(PARAMETERS_OF_PACKED))
def test_gpt_oss_hub_element_count_is_parameters_plus_one_scale_per_32_expert_weights(model_id):
    config, hub_total = next((config, total) for mid, config, total in MODELS if mid == model_id)
    spec = ModelSpec.from_hf_config(config)
    expert_weights = spec.components.routed_experts - spec.moe_layers * spec.experts_routed * (
        2 * spec.intermediate_size + spec.hidden_size
    )

    assert abs(spec.params_total - PARAMETERS_OF_PACKED[model_id]) < 5_000_000  # equal to the 2nd decimal
    assert spec.params_stored_elements == hub_total
    assert hub_total - spec.params_total == expert_weights // 32


@pytest.mark.parametrize(
    "model_id", ["deepseek-ai/DeepSeek-V3", "deepseek-ai/DeepSeek-V3.2", "moonshotai/Kimi-K2-Instruct"]
)
def test_fp8_block_checkpoint_element_count_is_parameters_plus_block_scales(model_id):
    config, hub_total = next((config, total) for mid, config, total in MODELS if mid == model_id)
    spec = ModelSpec.from_hf_config(config)

    assert spec.native_dtype == "fp8"
    # exact for DeepSeek; Kimi-K2's record holds 3,416 more elements (56 per layer) than the block rule gives
    assert abs(spec.params_stored_elements - hub_total) <= hub_total / 100_000_000
    assert 0 < hub_total - spec.params_total < hub_total / 10_000


def test_qwen3_small_checkpoint_total_is_the_config_count_plus_a_separate_head():
    config, hub_total = next((config, total) for mid, config, total in MODELS if mid == "Qwen/Qwen3-0.6B")
    spec = ModelSpec.from_hf_config(config)

    assert spec.tie_word_embeddings is True
    assert spec.params_total + spec.vocab_size * spec.hidden_size == hub_total


@pytest.mark.parametrize(
    ("model_id", "missing", "gap"),
    [
        ("zai-org/GLM-4.7-Flash", {"num_nextn_predict_layers": 1}, 0),
        # the remaining 673,792 are GLM-4.5-Air's q/k/v biases (47 layers × 14,336), also absent from the record
        ("zai-org/GLM-4.5-Air", {"num_nextn_predict_layers": 1}, 47 * (96 * 128 + 2 * 8 * 128)),
    ],
)
def test_partial_glm_configs_miss_exactly_the_keys_listed_as_the_reason(model_id, missing, gap):
    config, hub_total = next((config, total) for mid, config, total in MODELS if mid == model_id)
    spec = ModelSpec.from_hf_config({**config, **missing})

    assert hub_total - spec.params_total == gap
