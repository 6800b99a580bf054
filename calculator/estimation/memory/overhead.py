"""Runtime overhead per engine, as each allocates it: vLLM's start-up budget, SGLang's reserve, llama.cpp's and
Ollama's buffers, MLX's prefill activations. TensorRT-LLM and Transformers publish no start-up rule: their overhead
is the reference page's 10 % + 1 GB, marked estimated (``reference.py`` keeps that rule for the comparison).

Sources: SOURCES.md next to this file (docs/methodology.md §4).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ..engines.profiles import EngineProfile
from ..engines.releases import (
    CUDAGRAPH_ESTIMATE_BYTES,
    VllmRelease,
    sglang_mem_fraction,
    sglang_release,
    sglang_reserved_mib,
    spec_moe_workspace_bytes,
    vllm_activation_peak,
    vllm_release,
)
from ..facts import SpecFacts
from ..workload import GB, GIB, MIB, Term
from .encoder_profile import vllm_encoder_profile, with_encoder_profile
from .kv import LLAMA_CPP_N_UBATCH
from .saved_tensors import generate_prefill

# The reference page's runtime overhead: 10 % of weights + KV cache, plus 1 GB (seed 000, "So rechnen wir").
OVERHEAD_FRACTION = 0.10
OVERHEAD_FIXED_BYTES = 1 * GB


def reference_overhead_bytes(base: int) -> int:
    """The reference page's allowance on ``base`` bytes of weights and cache."""
    return round(OVERHEAD_FRACTION * base) + OVERHEAD_FIXED_BYTES


# vLLM's start-up budget at `vllm serve`'s defaults on a ≥ 70 GiB GPU (8192 batched tokens, 1024 sequences): the
# profile run's peak, non-torch memory and, from 0.20, the CUDA-graph estimate, each by release line
# (engines/releases.py, §4.12), plus 0.61 GiB in use before vLLM starts (llm-d's H100 logs, §4.1).
VLLM_BATCHED_TOKENS = 8192
VLLM_MAX_NUM_SEQS = 1024
VLLM_PRESTART_BYTES = round(0.61 * GIB)
LLAMA_CPP_FIT_MARGIN_BYTES = 1 * GIB  # common.h fit_params_target, per device (§4.3)
OLLAMA_BATCH = 512
MLX_PREFILL_STEP = 2048  # mlx-lm prefill_step_size (§4.5)


@dataclass(frozen=True, slots=True)
class _Load:
    """What an engine's overhead rule looks at: the model, the engine, the GPU weights and cache, the requests."""

    facts: SpecFacts
    engine: EngineProfile
    weights: int
    cache_bytes: int
    context: int
    concurrency: int
    release: VllmRelease
    release_key: str = ""  # the engine's release or line as the workload names it (SGLang's lines read it)

    @property
    def vocab(self) -> int:
        return max(0, self.facts.spec.vocab_size)

    @property
    def hidden(self) -> int:
        return max(0, self.facts.spec.hidden_size)


def engine_overhead_terms(
    facts: SpecFacts,
    engine: EngineProfile,
    weights: int,
    cache_bytes: int,
    context: int,
    concurrency: int,
    estimated: list[str],
    release: str = "",
) -> list[Term]:
    """The engine's runtime overhead terms; ``release`` names the engine's release line (empty: the current one)."""
    if engine.overhead_estimated:
        estimated.append("overhead")
    rule = _OVERHEAD_RULES.get(engine.overhead_rule, _reference_overhead)
    vllm = vllm_release(release if engine.key == "vllm" else "")
    load = _Load(facts, engine, weights, cache_bytes, context, concurrency, vllm, release)
    return rule(load)


def _reference_overhead(load: _Load) -> list[Term]:
    """For an engine that publishes no start-up rule (TensorRT-LLM, Transformers): the reference allowance,
    marked estimated."""
    base = load.weights + load.cache_bytes
    inputs: dict[str, int | float | str] = {"base": base, "engine": load.engine.name}
    terms = [Term("overhead", reference_overhead_bytes(base), inputs, variant="reference", estimated=True)]
    if load.engine.key == "transformers":
        terms.append(_generate_prefill_term(load))
    return terms


def _generate_prefill_term(load: _Load) -> Term:
    """``model.generate``'s prefill beside the weights and the cache: one layer's working tensors over every prompt
    token of the batch, the padding mask of a batch and the last token's logits (memory/saved_tensors.py, §6.5); the
    prompt is counted as the whole context, the batch as the requests."""
    peak = generate_prefill(load.facts, load.context, load.concurrency)
    inputs: dict[str, int | float | str] = {
        "tokens": load.context,
        "batch": load.concurrency,
        "layer": peak.layer_bytes,
        "mask": peak.mask_bytes,
        "logits": peak.logits_bytes,
    }
    return Term("activations", peak.total, inputs, variant="generate_prefill", estimated=True)


def _vllm_overhead(load: _Load) -> list[Term]:
    """vLLM's start-up budget, what it subtracts from its share of the GPU before it sizes the KV cache (§4.1)."""
    release = load.release
    text_peak = vllm_activation_peak(
        release, load.hidden, load.facts.spec.intermediate_size, load.vocab, VLLM_BATCHED_TOKENS, VLLM_MAX_NUM_SEQS
    ) + spec_moe_workspace_bytes(release, load.facts.spec, VLLM_BATCHED_TOKENS)
    # a vision-language model's encoder profile (§4.13), for the context the command starts it with
    encoder = vllm_encoder_profile(load.facts.spec, release, load.context, VLLM_BATCHED_TOKENS)
    activation = with_encoder_profile(text_peak, encoder)
    cudagraph = CUDAGRAPH_ESTIMATE_BYTES if release.subtracts_cudagraph_estimate else 0
    floor = activation + release.non_torch_one_gpu + cudagraph + VLLM_PRESTART_BYTES
    inputs: dict[str, int | float | str] = {
        "floor": floor,
        "seqs": VLLM_MAX_NUM_SEQS,
        "vocab": load.vocab,
        "activation": activation,
        "buffers": release.sampler_buffers,
        "cudagraph": cudagraph,
        "release": release.label,
    }
    if encoder is not None and activation != text_peak:
        inputs |= {"items": encoder.items, "text_peak": text_peak}
        return [Term("overhead", floor, inputs, variant=f"vllm_encoder_{encoder.modality}")]
    return [Term("overhead", floor, inputs, variant="vllm")]


def _sglang_overhead(load: _Load) -> list[Term]:
    # the GPU that the weights and the cache fill to 90 %: SGLang's reserve depends on the GPU's size
    gpu_mib = (load.weights + load.cache_bytes) / 0.9 / MIB
    release = sglang_release(load.release_key)
    if release.rule == "derived":
        reserved_mib = _sglang_reserved_mib(gpu_mib)
        return [Term("overhead", round(reserved_mib * MIB), {"reserved": reserved_mib}, variant="sglang")]
    # older lines: the rest of the GPU beside their default mem_fraction_static (§4.12)
    fraction = sglang_mem_fraction(release, gpu_mib)
    reserved_mib = gpu_mib * (1 - fraction)
    inputs: dict[str, int | float | str] = {
        "reserved": round(reserved_mib),
        "fraction": fraction,
        "release": release.label,
    }
    return [Term("overhead", round(reserved_mib * MIB), inputs, variant="sglang_fraction")]


def _llama_cpp_overhead(load: _Load) -> list[Term]:
    fit = Term("fit_margin", LLAMA_CPP_FIT_MARGIN_BYTES, {"margin": LLAMA_CPP_FIT_MARGIN_BYTES})
    return [*_llama_cpp_buffers(load), fit]


def _llama_cpp_buffers(load: _Load) -> list[Term]:
    """Before automatic fitting (b7407, §4.12) llama.cpp kept no margin: only its buffers."""
    cells = _cells_total(load.context, load.concurrency)
    ubatch = min(cells, LLAMA_CPP_N_UBATCH)
    h, vocab = load.hidden, load.vocab
    compute = max(4 * ubatch * (1 + 4 * h), 4 * ubatch * (h + vocab))
    return [_compute_buffer(load, compute, ubatch, cells, "llama.cpp"), _output_buffer(load)]


def _ollama_overhead(load: _Load) -> list[Term]:
    cells = _cells_total(load.context, load.concurrency)
    heads = max(0, load.facts.spec.num_attention_heads)
    ubatch = OLLAMA_BATCH
    h, vocab = load.hidden, load.vocab
    compute = max(4 * ubatch * (1 + 4 * h + cells * (1 + heads)), 4 * ubatch * (h + vocab))
    return [_compute_buffer(load, compute, ubatch, cells, "ollama"), _output_buffer(load)]


def _compute_buffer(load: _Load, compute: int, ubatch: int, cells: int, variant: str) -> Term:
    heads = max(0, load.facts.spec.num_attention_heads)
    inputs = {"ubatch": ubatch, "h": load.hidden, "vocab": load.vocab, "cells": cells, "heads": heads}
    return Term("compute_buffer", compute, inputs, variant=variant, estimated=True)


def _output_buffer(load: _Load) -> Term:
    seqs = max(1, load.concurrency)
    return Term("output_buffer_host", load.vocab * seqs * 4, {"vocab": load.vocab, "seqs": seqs}, on_gpu=False)


def _mlx_overhead(load: _Load) -> list[Term]:
    chunk = min(load.context, MLX_PREFILL_STEP)
    mlp = load.facts.active_mlp_width
    width = load.vocab + 4 * load.hidden + 3 * mlp
    inputs = {"chunk": chunk, "vocab": load.vocab, "h": load.hidden, "mlp": mlp}
    return [Term("activations", chunk * width * 2, inputs, variant="prefill", estimated=True)]


_OVERHEAD_RULES: Mapping[str, Callable[[_Load], list[Term]]] = {
    "reference": _reference_overhead,
    "vllm": _vllm_overhead,
    "sglang": _sglang_overhead,
    "llama.cpp": _llama_cpp_overhead,
    "llama.cpp-no-fit": _llama_cpp_buffers,
    "ollama": _ollama_overhead,
    "mlx": _mlx_overhead,
}


def _cells_total(context: int, concurrency: int) -> int:
    n_ctx = context * concurrency
    return -(-n_ctx // 256) * 256


def _sglang_reserved_mib(gpu_mem_mib: float) -> float:
    """SGLang's default reserved memory for a GPU of ``gpu_mem_mib`` (one GPU; §4.2)."""
    return sglang_reserved_mib(gpu_mem_mib)
