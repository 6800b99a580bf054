"""GGUF file types and plain dtypes: distinct names, the precision actually used, llama.cpp's per-tensor rules."""

from __future__ import annotations

import pytest

from calculator.estimation import PRECISIONS, Mode, Workload, estimate, get_precision, weights_only_bytes
from calculator.estimation.memory.gguf import FTYPE_DEFAULT, gguf_size, tensor_types
from calculator.estimation.memory.gguf import Role as R
from tests.calculator.estimation_specs import hub_spec, llama_31_8b

EVERY_FTYPE = (
    "F32",
    "F16",
    "BF16",
    "Q8_0",
    "Q6_K",
    "Q5_K_M",
    "Q5_K_S",
    "Q5_1",
    "Q5_0",
    "Q4_K_M",
    "Q4_K_S",
    "Q4_1",
    "Q4_0",
    "Q3_K_L",
    "Q3_K_M",
    "Q3_K_S",
    "Q2_K",
    "Q2_K_S",
    "IQ4_XS",
    "IQ4_NL",
    "IQ3_M",
    "IQ3_S",
    "IQ3_XS",
    "IQ3_XXS",
    "IQ2_M",
    "IQ2_S",
    "IQ2_XS",
    "IQ2_XXS",
    "IQ1_M",
    "IQ1_S",
    "TQ1_0",
    "TQ2_0",
    "MXFP4_MOE",
)


@pytest.mark.parametrize("name", ["bf16", "fp16", "f32", "BF16", "F16"])
def test_plain_dtype_names_never_resolve_to_a_gguf_file_type(name):
    found = get_precision(name)
    assert found is not None and found.family == "float"


@pytest.mark.parametrize(("key", "ftype"), [("gguf:bf16", "BF16"), ("gguf:f16", "F16"), ("gguf:f32", "F32")])
def test_gguf_float_file_types_have_their_own_keys(key, ftype):
    found = get_precision(key)
    assert found is not None and found.family == "gguf" and found.gguf_ftype == ftype


def test_every_gguf_file_type_answers_to_its_gguf_prefix_too():
    assert get_precision("gguf:Q4_K_M") is PRECISIONS["q4_k_m"]
    assert get_precision("gguf:awq") is None


@pytest.mark.parametrize("ftype", EVERY_FTYPE)
def test_every_llama_cpp_file_type_a_user_meets_is_a_precision(ftype):
    found = get_precision(f"gguf:{ftype}")
    assert found is not None and found.gguf_ftype == ftype and ftype in FTYPE_DEFAULT
    assert weights_only_bytes(llama_31_8b(), found.key) > 0


def test_bf16_under_vllm_sizes_plain_bfloat16_and_reports_it():
    spec = llama_31_8b()
    breakdown = estimate(spec, Workload(precision="bf16", engine="vllm"))
    assert breakdown.precision_used == "bf16"
    assert breakdown.weights_bytes == spec.params_total * 2
    assert not breakdown.warnings


def test_unknown_precision_reports_the_fp16_it_used():
    assert estimate(llama_31_8b(), Workload(precision="fp3")).precision_used == "fp16"


def test_full_fine_tuning_of_a_quantized_choice_reports_plain_bf16():
    breakdown = estimate(llama_31_8b(), Workload(mode=Mode.FULL, precision="q4_k_m"))
    assert breakdown.precision_used == "bf16"
    assert PRECISIONS[breakdown.precision_used].family == "float"
    assert any("used BF16" in w for w in breakdown.warnings)


def test_qlora_reports_nf4():
    assert estimate(llama_31_8b(), Workload(mode=Mode.QLORA, precision="int4")).precision_used == "nf4"


def test_tied_embedding_is_stored_once_in_the_output_type():
    types = list(tensor_types(hub_spec("meta-llama/Llama-3.2-3B-Instruct"), "Q4_K_M"))
    assert not [t for t, _ in types if t.role is R.OUTPUT]
    assert [kind for t, kind in types if t.role is R.TOKEN_EMBD] == ["Q6_K"]


def test_untied_embedding_keeps_the_body_type_and_the_head_gets_q6_k():
    types = dict((t.role, kind) for t, kind in tensor_types(llama_31_8b(), "Q4_K_M") if t.layer < 0)
    assert types[R.TOKEN_EMBD] == "Q4_K" and types[R.OUTPUT] == "Q6_K"


def test_vision_tower_is_a_separate_mmproj_file():
    size = gguf_size(hub_spec("google/gemma-3-4b-it"), "Q4_K_M")
    spec = hub_spec("google/gemma-3-4b-it")
    assert size.mmproj_bytes == spec.components.vision * 2
    text_params_bytes = sum(size.bytes_by_type.values())
    assert text_params_bytes < (spec.params_total - spec.components.vision) * 2  # no vision tensor in the text file


def test_mxfp4_moe_puts_routed_experts_in_mxfp4_and_the_rest_in_q8_0():
    types = {kind for t, kind in tensor_types(hub_spec("openai/gpt-oss-20b"), "MXFP4_MOE") if t.experts > 1}
    assert types == {"MXFP4"}
    rest = {kind for t, kind in tensor_types(hub_spec("openai/gpt-oss-20b"), "MXFP4_MOE") if t.experts == 1}
    assert rest <= {"Q8_0", "F32"}


def test_rows_not_divisible_by_256_fall_back_to_32_wide_blocks():
    # DeepSeek-V2-Lite's routed experts are 1408 wide: ffn_down_exps cannot hold Q4_K blocks, so Q5_0
    downs = {kind for t, kind in tensor_types(hub_spec("deepseek-ai/DeepSeek-V2-Lite"), "Q4_K_S") if t.experts > 1}
    assert "Q5_0" in downs and "Q4_K" in downs


def test_eight_expert_models_keep_attention_k_and_v_at_q8_0():
    types = {(t.role, kind) for t, kind in tensor_types(hub_spec("mistralai/Mixtral-8x7B-v0.1"), "Q4_K_M")}
    assert {kind for role, kind in types if role in (R.ATTENTION_K, R.ATTENTION_V)} == {"Q8_0"}


def test_gguf_weights_in_the_estimate_are_the_file_sizes():
    spec = hub_spec("google/gemma-3-4b-it")
    size = gguf_size(spec, "Q8_0")
    assert weights_only_bytes(spec, "q8_0") == size.text_bytes + size.mmproj_bytes
