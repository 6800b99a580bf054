"""Fine-tuning per framework: each profile's documented defaults change the terms they should, and only those."""

from __future__ import annotations

import pytest

from calculator.estimation import FRAMEWORKS, Framework, LoraTargets, Mode, Optimizer, Workload, estimate
from calculator.estimation.memory.frameworks import lora_params_per_rank
from tests.calculator.estimation_specs import hub_spec


@pytest.fixture(scope="module")
def llama_8b():
    return hub_spec("meta-llama/Llama-3.1-8B-Instruct")


def test_default_framework_is_transformers_with_peft():
    assert Workload().framework == Framework.TRANSFORMERS == "transformers"
    assert set(FRAMEWORKS) == {f.value for f in Framework}


def test_lora_targets_reproduce_the_trainable_counts_peft_and_unsloth_print_for_llama_3_8b(llama_8b):
    # PEFT's r=8 on q_proj, v_proj: "trainable params: 3,407,872"; Unsloth's r=16 on all seven: 41,943,040
    assert 8 * lora_params_per_rank(llama_8b, LoraTargets.QV) == 3_407_872
    assert 16 * lora_params_per_rank(llama_8b, LoraTargets.ALL_LINEAR) == 41_943_040


def test_unknown_framework_falls_back_to_transformers_with_a_warning(llama_8b):
    odd = estimate(llama_8b, Workload(mode=Mode.LORA, framework="axolotl-9"))
    plain = estimate(llama_8b, Workload(mode=Mode.LORA))
    assert odd.total_bytes == plain.total_bytes
    assert any("axolotl-9" in warning for warning in odd.warnings)


def test_unsloth_keeps_checkpoints_in_host_ram_and_never_materialises_the_logits(llama_8b):
    workload = Workload(mode=Mode.QLORA, sequence_length=8192, lora_rank=16)
    unsloth = estimate(llama_8b, Workload(**{**_fields(workload), "framework": "unsloth"}))
    hf = estimate(llama_8b, workload)
    host = unsloth.term("activations_host")
    assert host is not None and not host.on_gpu and host.bytes == 32 * 2 * 8192 * 4096
    assert unsloth.bytes_of("logits") == 0
    # log-softmax output saved, nll_loss's gradient and log_softmax's gradient: 3 fp32 tensors of s × V
    assert hf.bytes_of("logits") == 8192 * 128_256 * 12
    assert unsloth.total_bytes < 0.6 * hf.total_bytes


def test_qlora_casts_wide_tensors_to_fp32_only_under_peft(llama_8b):
    hf = estimate(llama_8b, Workload(mode=Mode.QLORA)).bytes_of("weights")
    tune = estimate(llama_8b, Workload(mode=Mode.QLORA, framework="torchtune")).bytes_of("weights")
    # embedding + head (2 × 525 M parameters) and norms: 4 B under PEFT, 2 B under torchtune
    assert 2.0e9 < hf - tune < 2.2e9


def test_torchtune_trains_in_pure_bf16_without_a_master_copy(llama_8b):
    tune = estimate(llama_8b, Workload(mode=Mode.FULL, framework="torchtune"))
    hf = estimate(llama_8b, Workload(mode=Mode.FULL))
    params = tune.term("weights").inputs["params"]
    assert tune.bytes_of("weights", "gradients", "optimizer") == 8 * params
    assert hf.bytes_of("weights", "gradients", "optimizer") - _step_bytes(hf) == 16 * params


def test_trl_scores_the_loss_in_chunks_of_256_tokens(llama_8b):
    trl = estimate(llama_8b, Workload(mode=Mode.LORA, framework="trl", sequence_length=4096))
    assert trl.bytes_of("logits") == 256 * 128_256 * 8


def test_deepspeed_zero3_shards_20_bytes_per_parameter_and_gathers_the_largest_layer(llama_8b):
    ds = estimate(llama_8b, Workload(mode=Mode.FULL, framework="deepspeed", data_parallel=8))
    params = ds.term("weights").inputs["params"]
    assert ds.bytes_of("weights", "gradients", "optimizer") == 20 * params
    assert ds.term("gather_buffer").bytes == 4 * 128_256 * 4096 * 8
    assert ds.per_gpu_bytes is not None and ds.per_gpu_bytes * 8 >= ds.total_bytes


def test_zero_offload_moves_optimizer_and_gradients_to_host_ram(llama_8b):
    on_gpu = estimate(llama_8b, Workload(mode=Mode.FULL, framework="deepspeed", zero_stage=2, data_parallel=2))
    offload = estimate(llama_8b, Workload(mode=Mode.FULL, framework="deepspeed_offload", zero_stage=2, data_parallel=2))
    assert not offload.term("optimizer").on_gpu and not offload.term("gradients").on_gpu
    assert offload.term("weights").on_gpu
    assert offload.total_bytes < on_gpu.total_bytes - on_gpu.bytes_of("optimizer") / 1.2
    stage3 = estimate(llama_8b, Workload(mode=Mode.FULL, framework="deepspeed_offload", zero_stage=3, data_parallel=2))
    sharded = estimate(llama_8b, Workload(mode=Mode.FULL, framework="deepspeed", zero_stage=3, data_parallel=2))
    assert not stage3.term("weights").on_gpu
    assert stage3.total_bytes < sharded.total_bytes - sharded.bytes_of("weights", "gradients", "optimizer")


def test_each_profile_names_its_sources_and_a_known_optimizer():
    for profile in FRAMEWORKS.values():
        assert profile.source and isinstance(profile.optimizer, Optimizer) and profile.lora_rank >= 8


def _fields(workload: Workload) -> dict[str, object]:
    return {name: getattr(workload, name) for name in workload.__dataclass_fields__}


def _step_bytes(breakdown) -> int:
    """The optimizer step's temporaries, kept under the optimizer's key with the variant "step"."""
    return sum(t.bytes for t in breakdown.terms if (t.key, t.variant) == ("optimizer", "step"))
