"""The words of a breakdown: every term's label and formula in English and German, numbers as each locale writes
them."""

from __future__ import annotations

import re

import pytest
from django.utils import translation

from calculator.estimation import ENGINES, Mode, Term, Workload, estimate
from calculator.term_text import term_formula, term_label
from tests.calculator.estimation_specs import glm_53_flash, hub_spec, llama_31_8b

LEFT_OVER_PLACEHOLDER = re.compile(r"\{\w+\}")


def every_term_shape() -> dict[tuple[str, str], Term]:
    """One term of each (key, variant) the core makes: every engine, every mode, with and without ZeRO."""
    workloads = [Workload(engine=engine) for engine in ENGINES]
    workloads += [Workload(engine="llama.cpp", precision="q4_k_m")]  # untied embedding kept in host RAM
    for mode in (Mode.LORA, Mode.QLORA, Mode.FULL):
        workloads += [
            Workload(mode=mode),
            Workload(mode=mode, gradient_checkpointing=False, zero_stage=3, data_parallel=4),
            Workload(mode=mode, zero_stage=1, data_parallel=2),
            Workload(mode=mode, framework="torchtune"),  # the per-layer listing of frameworks with their own kernels
        ]
    shapes: dict[tuple[str, str], Term] = {}
    for spec in (llama_31_8b(), glm_53_flash(), hub_spec("Qwen/Qwen3-Next-80B-A3B-Instruct")):
        for workload in workloads:
            for term in estimate(spec, workload).terms:
                shapes.setdefault((term.key, term.variant), term)
    return shapes


SHAPES = every_term_shape()


def test_the_core_makes_every_formula_shape_the_catalog_words():
    assert {
        ("weights", "host_embedding"),
        ("weights", "qlora"),
        ("overhead", "vllm"),
        ("overhead", "sglang"),
        ("overhead", "reference"),
        ("overhead", "training"),
        ("compute_buffer", "ollama"),
        ("activations", "prefill"),
        ("activations", "checkpointing"),
        ("linear_state", ""),
    } <= set(SHAPES)


@pytest.mark.parametrize("shape", sorted(SHAPES), ids=lambda shape: ":".join(filter(None, shape)))
def test_every_term_explains_itself_in_english_and_german(shape):
    term = SHAPES[shape]
    worded = {}
    for language in ("en", "de"):
        with translation.override(language):
            worded[language] = (term_label(term), term_formula(term))
    (label_en, formula_en), (label_de, formula_de) = worded["en"], worded["de"]
    assert label_en != term.key and label_de != label_en
    assert formula_de != formula_en
    assert not LEFT_OVER_PLACEHOLDER.search(formula_en) and not LEFT_OVER_PLACEHOLDER.search(formula_de)


def test_formula_numbers_follow_the_locale():
    weights = estimate(llama_31_8b()).term("weights")
    assert weights is not None
    with translation.override("en"):
        assert term_label(weights) == "Weights"
        assert term_formula(weights).startswith("8,030,261,248 parameters × 16 bits ÷ 8 (FP16 / BF16: ")
    with translation.override("de"):
        assert term_label(weights) == "Gewichte"
        assert term_formula(weights).startswith("8.030.261.248 Parameter × 16 Bit ÷ 8 (FP16 / BF16: ")


def test_fractions_keep_four_significant_digits():
    term = Term("gradients", 0, {"trainable": 1234, "each": 2.03125, "shard": "single", "gpus": 1})
    with translation.override("en"):
        assert term_formula(term) == "1,234 trainable parameters × 2.031 B, one copy"
    with translation.override("de"):
        assert term_formula(term) == "1.234 trainierbare Parameter × 2,031 B, eine Kopie"


def test_zero_sharding_is_worded_in_each_language():
    breakdown = estimate(llama_31_8b(), Workload(mode=Mode.FULL, zero_stage=3, data_parallel=4))
    optimizer = breakdown.term("optimizer")
    assert optimizer is not None
    with translation.override("en"):
        assert term_formula(optimizer).endswith("(adamw), sharded over 4 GPUs (ZeRO-3)")
    with translation.override("de"):
        assert term_formula(optimizer).endswith("(adamw), auf 4 GPUs verteilt (ZeRO-3)")


def test_unknown_term_falls_back_to_its_key_and_inputs():
    term = Term("mystery_buffer", 10, {"cells": 4096, "share": 0.5})
    with translation.override("de"):
        assert term_label(term) == "mystery_buffer"
        assert term_formula(term) == "cells = 4.096, share = 0,5"


def test_every_term_on_the_gpu_has_a_colour_in_the_memory_bar():
    """The breakdown's bar and legend colour each segment by its term (static/css/site.css .seg-<key>); a term
    without one draws black."""
    from pathlib import Path

    from calculator.term_text import _LABELS

    css = (Path(__file__).resolve().parents[2] / "static" / "css" / "site.css").read_text()
    host_only = {"input_embedding_host", "output_buffer_host", "activations_host"}
    keys = {key for key, _variant in _LABELS} - host_only
    assert [key for key in sorted(keys) if f".seg-{key}" not in css] == []
