"""Transformers + PEFT peaks sized from what the code allocates: the tensors autograd saves per decoder layer, the
loss's fp32 logits, torch AdamW's foreach temporaries and generate's prefill (memory/saved_tensors.py,
docs/methodology.md §6.5)."""

from __future__ import annotations

import pytest

from calculator.estimation import Mode, Workload, estimate
from calculator.estimation.facts import spec_facts
from calculator.estimation.memory.saved_tensors import (
    LayerShape,
    generate_prefill,
    layer_saved_bytes,
)
from calculator.estimation.workload import LoraTargets
from tests.calculator.estimation_specs import hub_spec

H, KV, MLP, LAYERS, VOCAB = 4096, 1024, 14336, 32, 128_256  # Llama-3.1-8B: h, h·K/H, I, L, V


@pytest.fixture(scope="module")
def llama_8b():
    return hub_spec("meta-llama/Llama-3.1-8B-Instruct")


def test_a_llama_layer_saves_fp32_norm_inputs_sdpa_tensors_and_the_swiglu_factors(llama_8b):
    shape = LayerShape.of(spec_facts(llama_8b))
    # 2 × 4h (RMSNorm fp32 inputs) + 2h + 4·kv + 2h (q, k, v, out) + 3 × 2I (SiLU input, both product factors)
    assert layer_saved_bytes(shape, trained_weights=False) == 8 * H + 4 * H + 4 * KV + 6 * MLP
    # full fine-tuning adds the norms' fp32 outputs, the bf16 casts of the linear inputs and down's input
    assert layer_saved_bytes(shape, trained_weights=True) == 26 * H + 4 * KV + 8 * MLP


def test_lora_without_checkpointing_holds_every_layers_saved_tensors_and_adapter_inputs(llama_8b):
    s, b = 2048, 8
    workload = Workload(mode=Mode.LORA, gradient_checkpointing=False, sequence_length=s, batch_size=b)
    breakdown = estimate(llama_8b, workload)
    activations = breakdown.term("activations")
    assert activations is not None and activations.variant == "saved"
    # PEFT's default q, v adapters each keep their input cast to the fp32 adapter dtype: 2 × 4 B × h per token
    per_layer = 12 * H + 4 * KV + 6 * MLP + 2 * 4 * H
    assert activations.bytes == LAYERS * s * b * per_layer


def test_more_adapted_layers_keep_more_inputs(llama_8b):
    shape = LayerShape.of(spec_facts(llama_8b))
    qv = layer_saved_bytes(shape, trained_weights=False, adapted_width=2 * H)
    workload = {"mode": Mode.LORA, "gradient_checkpointing": False, "sequence_length": 1024}
    narrow = estimate(llama_8b, Workload(**workload, lora_targets=LoraTargets.QV)).bytes_of("activations")
    wide = estimate(llama_8b, Workload(**workload, lora_targets=LoraTargets.ALL_LINEAR)).bytes_of("activations")
    assert narrow == LAYERS * 1024 * qv
    assert wide - narrow == LAYERS * 1024 * 4 * (4 * H + MLP)  # k, o, gate, up (h wide) and down (I wide)


def test_the_loss_holds_three_fp32_tensors_of_the_vocabulary_per_token(llama_8b):
    breakdown = estimate(llama_8b, Workload(mode=Mode.LORA, sequence_length=4096, batch_size=2))
    assert breakdown.bytes_of("logits") == 4096 * 2 * VOCAB * 12


def test_qlora_checkpoints_the_fp32_residual_stream_peft_leaves_behind(llama_8b):
    lora = estimate(llama_8b, Workload(mode=Mode.LORA, sequence_length=8192)).term("activations")
    qlora = estimate(llama_8b, Workload(mode=Mode.QLORA, sequence_length=8192)).term("activations")
    assert lora is not None and lora.inputs["checkpoint"] == 2 * H
    assert qlora is not None and qlora.inputs["checkpoint"] == 4 * H
    assert qlora.bytes - lora.bytes == LAYERS * 8192 * 2 * H


def test_full_fine_tuning_adds_adamw_foreach_temporaries_beyond_the_freed_activations(llama_8b):
    breakdown = estimate(llama_8b, Workload(mode=Mode.FULL, sequence_length=1024))
    params = breakdown.term("weights").inputs["params"]
    step = [t for t in breakdown.terms if (t.key, t.variant) == ("optimizer", "step")]
    freed = breakdown.bytes_of("activations", "logits")
    assert len(step) == 1 and step[0].inputs["temporaries"] == 4 * params
    assert step[0].bytes == 4 * params - freed


def test_no_step_temporaries_where_the_activations_freed_before_the_step_are_larger(llama_8b):
    small = hub_spec("meta-llama/Llama-3.2-1B-Instruct")
    long_run = estimate(small, Workload(mode=Mode.FULL, sequence_length=8192, batch_size=8))
    assert not [t for t in long_run.terms if t.variant == "step"]
    lora = estimate(llama_8b, Workload(mode=Mode.LORA))
    assert not [t for t in lora.terms if t.variant == "step"]  # adapters' temporaries: far below the activations


def test_frameworks_with_their_own_kernels_keep_the_per_layer_listing(llama_8b):
    workload = {"mode": Mode.LORA, "sequence_length": 2048, "batch_size": 2}
    tune = estimate(llama_8b, Workload(**workload, framework="torchtune")).term("activations")
    assert tune is not None and tune.variant == "checkpointing"
    assert tune.bytes == LAYERS * 2 * 4096 * H + 4096 * (16 * H + 4 * KV + 10 * MLP)


def test_generate_prefill_with_a_large_batch_counts_one_layers_working_tensors(llama_8b):
    peak = generate_prefill(spec_facts(llama_8b), prompt_tokens=1024, batch=64)
    # the MLP's moment of most memory: residual and normed input, SiLU output, up output and their product
    assert peak.layer_bytes == 1024 * 64 * 2 * (2 * H + 3 * MLP)
    assert peak.mask_bytes == 64 * 1024 * 1024  # left-padded prompts: one bool b × s × s mask
    assert peak.logits_bytes == 64 * VOCAB * 6  # only the last token's logits (logits_to_keep=1), bf16 + fp32
    assert peak.total > 5.6e9
    single = generate_prefill(spec_facts(llama_8b), prompt_tokens=1024, batch=1)
    assert single.mask_bytes == 0


def test_transformers_inference_counts_generates_prefill_beside_the_reference_allowance():
    """A batch of 32 prompts of 4,096 tokens on Qwen2.5-7B: the MLP's working tensors over every prompt token (16.8 GB)
    and the padding mask (b × s × s bytes) sit beside the weights and the cache; engines with their own start-up
    rule count no such term."""
    from calculator.estimation import Workload, estimate
    from tests.calculator.estimation_specs import hub_spec

    spec = hub_spec("Qwen/Qwen2.5-7B-Instruct")
    batch = estimate(spec, Workload(engine="transformers", context=4096, concurrency=32))
    prefill = [t for t in batch.terms if t.key == "activations" and t.variant == "generate_prefill"]
    assert len(prefill) == 1 and prefill[0].inputs["mask"] == 32 * 4096 * 4096
    assert prefill[0].bytes > 16 * 10**9 and prefill[0].estimated
    vllm = estimate(spec, Workload(context=4096, concurrency=32))
    assert not [t for t in vllm.terms if t.variant == "generate_prefill"]
