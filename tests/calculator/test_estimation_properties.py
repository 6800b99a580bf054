"""Properties of the estimate that must hold for every model and every calculator state."""

from __future__ import annotations

from dataclasses import replace
from functools import cache

import pytest
from django.utils import translation
from hypothesis import given, settings
from hypothesis import strategies as st

from calculator.estimation import ENGINES, KV_DTYPES, PRECISIONS, Mode, Optimizer, Workload, estimate
from calculator.estimation.precision import GENERIC_LADDER, GGUF_LADDER, MLX_LADDER
from calculator.term_text import term_formula, term_label
from tests.calculator.estimation_specs import glm_53_flash, hub_spec, llama_31_8b

HUB_IDS = (
    "meta-llama/Llama-3.1-8B-Instruct",
    "deepseek-ai/DeepSeek-V3.2",
    "Qwen/Qwen3-Next-80B-A3B-Instruct",
    "openai/gpt-oss-20b",
    "google/gemma-3-27b-it",
    "mistralai/Mixtral-8x7B-Instruct-v0.1",
    "zai-org/GLM-5.3-Flash",
    "Qwen/Qwen3-30B-A3B",
)


@cache
def specs():
    return (llama_31_8b(), glm_53_flash(), *(hub_spec(hub_id) for hub_id in HUB_IDS))


spec_index = st.integers(min_value=0, max_value=len(HUB_IDS) + 1)
workloads = st.builds(
    Workload,
    mode=st.sampled_from(list(Mode)),
    precision=st.sampled_from(sorted(PRECISIONS)),
    context=st.integers(min_value=1, max_value=2_000_000),
    concurrency=st.integers(min_value=1, max_value=512),
    engine=st.sampled_from(sorted(ENGINES)),
    kv_dtype=st.sampled_from(sorted(KV_DTYPES)),
    tensor_parallel=st.integers(min_value=1, max_value=16),
    load_mtp_layers=st.booleans(),
    batch_size=st.integers(min_value=1, max_value=64),
    lora_rank=st.integers(min_value=1, max_value=256),
    gradient_checkpointing=st.booleans(),
    optimizer=st.sampled_from(list(Optimizer)),
    zero_stage=st.sampled_from([None, 0, 1, 2, 3]),
    data_parallel=st.integers(min_value=1, max_value=64),
)


@settings(max_examples=300, deadline=None)
@given(index=spec_index, workload=workloads, extra=st.integers(min_value=1, max_value=500_000))
def test_memory_never_decreases_with_context(index, workload, extra):
    spec = specs()[index]
    shorter = estimate(spec, workload).total_bytes
    longer = estimate(spec, replace(workload, context=workload.context + extra)).total_bytes
    assert longer >= shorter


@settings(max_examples=300, deadline=None)
@given(index=spec_index, workload=workloads, extra=st.integers(min_value=1, max_value=256))
def test_memory_never_decreases_with_concurrency(index, workload, extra):
    spec = specs()[index]
    fewer = estimate(spec, workload).total_bytes
    more = estimate(spec, replace(workload, concurrency=workload.concurrency + extra)).total_bytes
    assert more >= fewer


@settings(max_examples=200, deadline=None)
@given(
    index=spec_index,
    workload=workloads.filter(lambda w: w.mode in (Mode.INFERENCE, Mode.LORA)),
    ladder=st.sampled_from([GENERIC_LADDER, GGUF_LADDER, MLX_LADDER]),
)
def test_memory_never_decreases_with_precision_bits(index, workload, ladder):
    spec = specs()[index]
    totals = [estimate(spec, replace(workload, precision=name)).total_bytes for name in ladder]
    assert totals == sorted(totals)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(
    index=spec_index,
    workload=workloads,
    context=st.integers(min_value=-(10**9), max_value=10**12),
    concurrency=st.integers(min_value=-5, max_value=10**6),
    name=st.text(max_size=12),
)
def test_no_input_combination_raises(index, workload, context, concurrency, name):
    spec = specs()[index]
    odd = replace(workload, context=context, concurrency=concurrency, precision=name, engine=name, kv_dtype=name)
    for candidate in (workload, odd):
        breakdown = estimate(spec, candidate)
        assert breakdown.total_bytes > 0
        assert all(term.bytes >= 0 for term in breakdown.terms)
        for language in ("en", "de"):
            with translation.override(language):
                assert all(term_label(term) and term_formula(term) for term in breakdown.terms)


def test_unknown_names_fall_back_to_defaults_with_a_warning():
    breakdown = estimate(llama_31_8b(), Workload(precision="fp3", engine="nope", kv_dtype="q1"))
    assert breakdown.total_bytes == estimate(llama_31_8b()).total_bytes
    assert len(breakdown.warnings) == 3


def test_modes_and_optimizers_may_be_given_as_plain_strings():
    spec = llama_31_8b()
    as_text = estimate(spec, Workload(mode="full", optimizer="sgd"))
    as_enum = estimate(spec, Workload(mode=Mode.FULL, optimizer=Optimizer.SGD))
    assert as_text.total_bytes == as_enum.total_bytes
    assert as_text.bytes_of("optimizer") == 4 * spec.params_total  # SGD keeps only the fp32 master copy


def test_a_measured_weight_file_size_replaces_the_computed_weights():
    spec = hub_spec("meta-llama/Llama-3.1-8B-Instruct")
    computed = estimate(spec, Workload(precision="q4_k_m"))
    measured = estimate(spec, Workload(precision="q4_k_m", weights_file_bytes=4_920_734_016))
    weights = measured.term("weights")
    assert weights is not None and weights.bytes == 4_920_734_016 and weights.variant == "measured"
    assert not weights.estimated
    # everything else is sized as before; only the weights (and the overhead that scales with them) move
    assert measured.kv_cache_bytes == computed.kv_cache_bytes
    assert measured.total_bytes - computed.total_bytes == pytest.approx(
        4_920_734_016 - computed.bytes_of("weights"), rel=0.15
    )


def test_estimates_are_remembered_per_spec_object_and_workload():
    """The same spec object and workload give the very same breakdown; an equal spec built anew, another workload
    or a full store compute afresh, with equal results."""
    from calculator.estimation import memo
    from calculator.estimation.memory import estimate as memory

    spec = llama_31_8b()
    workload = Workload(context=12_345)
    first = memory.estimate(spec, workload)
    assert memory.estimate(spec, workload) is first
    assert memory.estimate(spec, Workload(context=12_345)) is first  # equal workloads are one key
    again = memory.estimate(replace(spec), workload)
    assert again is not first and again == first
    assert memory.estimate(spec, Workload(context=20_000)).total_bytes > first.total_bytes
    memo.forget()
    assert memory.estimate(spec, workload) == first
