"""Runtime overhead per engine: the seed's 10 % + 1 GB, vLLM's profiled peak, llama.cpp, Ollama, SGLang, MLX.

Sources: SOURCES.md next to this file (docs/methodology.md §4).
"""

from __future__ import annotations

from .engines import EngineProfile
from .facts import SpecFacts
from .kv import LLAMA_CPP_N_UBATCH
from .workload import GB, GIB, MIB, Term

# The seed page's runtime overhead: 10 % of weights + KV cache, plus 1 GB (seed 000, "So rechnen wir").
OVERHEAD_FRACTION = 0.10
OVERHEAD_FIXED_BYTES = 1 * GB
# vLLM's profiled peak on H100 (llm-d measurements, §4.1): ≈ 9.7 fp32 logits buffers of max_num_seqs (1024 on
# GPUs ≥ 70 GiB) × vocabulary, plus 0.13 GiB non-torch memory and 0.61 GiB in use before vLLM starts.
VLLM_SAMPLER_BUFFERS = 9.7
VLLM_MAX_NUM_SEQS = 1024
VLLM_NON_TORCH_BYTES = round(0.13 * GIB)
VLLM_PRESTART_BYTES = round(0.61 * GIB)
LLAMA_CPP_FIT_MARGIN_BYTES = 1 * GIB  # common.h fit_params_target, per device (§4.3)
OLLAMA_BATCH = 512
MLX_PREFILL_STEP = 2048  # mlx-lm prefill_step_size (§4.5)


def _seed_overhead(base: int, estimated_flag: bool, engine: EngineProfile) -> Term:
    return Term(
        "overhead",
        round(OVERHEAD_FRACTION * base) + OVERHEAD_FIXED_BYTES,
        "Runtime overhead",
        "Laufzeit-Overhead",
        "10 % × (weights + KV cache = {base} bytes) + 1 GB ({engine}: activations, CUDA graphs, context)",
        "10 % × (Gewichte + KV-Cache = {base} Bytes) + 1 GB ({engine}: Aktivierungen, CUDA-Graphen, Kontext)",
        {"base": base, "engine": engine.name},
        estimated=estimated_flag,
    )


def engine_overhead_terms(
    facts: SpecFacts,
    engine: EngineProfile,
    weights: int,
    cache_bytes: int,
    context: int,
    concurrency: int,
    estimated: list[str],
) -> list[Term]:
    spec = facts.spec
    rule = engine.overhead_rule
    vocab = max(0, spec.vocab_size)
    h = max(0, spec.hidden_size)
    if engine.overhead_estimated:
        estimated.append("overhead")
    if rule == "vllm":
        seed = round(OVERHEAD_FRACTION * (weights + cache_bytes)) + OVERHEAD_FIXED_BYTES
        sampler = round(VLLM_SAMPLER_BUFFERS * VLLM_MAX_NUM_SEQS * vocab * 4)
        floor = sampler + VLLM_NON_TORCH_BYTES + VLLM_PRESTART_BYTES
        return [
            Term(
                "overhead",
                max(seed, floor),
                "Runtime overhead",
                "Laufzeit-Overhead",
                "larger of 10 % × (weights + KV cache) + 1 GB = {seed} bytes and vLLM's profiled peak "
                "9.7 × {seqs} sequences × {vocab} vocabulary × 4 B + non-torch and CUDA context = {floor} bytes",
                "größerer Wert aus 10 % × (Gewichte + KV-Cache) + 1 GB = {seed} Bytes und vLLMs gemessener "
                "Spitze 9,7 × {seqs} Sequenzen × {vocab} Vokabular × 4 B + Nicht-Torch und CUDA-Kontext = "
                "{floor} Bytes",
                {"seed": seed, "floor": floor, "seqs": VLLM_MAX_NUM_SEQS, "vocab": vocab},
            )
        ]
    if rule == "sglang":
        reserved_mib = _sglang_reserved_mib((weights + cache_bytes) / 0.9 / MIB)
        return [
            Term(
                "overhead",
                round(reserved_mib * MIB),
                "Reserved for activations and CUDA graphs",
                "Reserviert für Aktivierungen und CUDA-Graphen",
                "SGLang reserved_mem = 512 + 1.5 × chunked_prefill + 2 × cuda_graph_max_bs + 128 MiB, at least "
                "10 GiB on GPUs over 60 GiB = {reserved} MiB",
                "SGLang reserved_mem = 512 + 1,5 × chunked_prefill + 2 × cuda_graph_max_bs + 128 MiB, "
                "mindestens 10 GiB auf GPUs über 60 GiB = {reserved} MiB",
                {"reserved": reserved_mib},
            )
        ]
    if rule in ("llama.cpp", "ollama"):
        cells = _cells_total(context, concurrency)
        heads = max(0, spec.num_attention_heads)
        if rule == "llama.cpp":
            ubatch = min(cells, LLAMA_CPP_N_UBATCH)
            compute = max(4 * ubatch * (1 + 4 * h), 4 * ubatch * (h + vocab))
            compute_formula = "max(4 × {ubatch} × (1 + 4 × {h}), 4 × {ubatch} × ({h} + {vocab})) bytes"
            compute_formula_de = compute_formula.replace("bytes", "Bytes")
        else:
            ubatch = OLLAMA_BATCH
            compute = max(4 * ubatch * (1 + 4 * h + cells * (1 + heads)), 4 * ubatch * (h + vocab))
            compute_formula = (
                "Ollama's graph estimate max(4 × {ubatch} × (1 + 4 × {h} + {cells} × (1 + {heads})), "
                "4 × {ubatch} × ({h} + {vocab})) bytes"
            )
            compute_formula_de = compute_formula.replace("Ollama's graph estimate", "Ollamas Graph-Schätzung")
            compute_formula_de = compute_formula_de.replace("bytes", "Bytes")
        terms = [
            Term(
                "compute_buffer",
                compute,
                "Compute buffer",
                "Rechenpuffer",
                compute_formula,
                compute_formula_de,
                {"ubatch": ubatch, "h": h, "vocab": vocab, "cells": cells, "heads": heads},
                estimated=True,
            ),
            Term(
                "output_buffer_host",
                vocab * max(1, concurrency) * 4,
                "Logits buffer (host RAM)",
                "Logits-Puffer (Arbeitsspeicher)",
                "{vocab} vocabulary × {seqs} sequences × 4 B",
                "{vocab} Vokabular × {seqs} Sequenzen × 4 B",
                {"vocab": vocab, "seqs": max(1, concurrency)},
                on_gpu=False,
            ),
        ]
        if rule == "llama.cpp":
            terms.append(
                Term(
                    "fit_margin",
                    LLAMA_CPP_FIT_MARGIN_BYTES,
                    "Free margin",
                    "Freier Puffer",
                    "llama.cpp auto-fit keeps {margin} bytes free per device",
                    "llama.cpp auto-fit lässt {margin} Bytes pro Gerät frei",
                    {"margin": LLAMA_CPP_FIT_MARGIN_BYTES},
                )
            )
        return terms
    if rule == "mlx":
        chunk = min(context, MLX_PREFILL_STEP)
        width = vocab + 4 * h + 3 * facts.active_mlp_width
        return [
            Term(
                "activations",
                chunk * width * 2,
                "Prefill activations",
                "Aktivierungen beim Prefill",
                "{chunk} tokens per prefill step × ({vocab} logits + 4 × {h} + 3 × {mlp} MLP) × 2 B",
                "{chunk} Tokens pro Prefill-Schritt × ({vocab} Logits + 4 × {h} + 3 × {mlp} MLP) × 2 B",
                {"chunk": chunk, "vocab": vocab, "h": h, "mlp": facts.active_mlp_width},
                estimated=True,
            )
        ]
    return [_seed_overhead(weights + cache_bytes, engine.overhead_estimated, engine)]


def _cells_total(context: int, concurrency: int) -> int:
    n_ctx = context * concurrency
    return -(-n_ctx // 256) * 256


def _sglang_reserved_mib(gpu_mem_mib: float) -> float:
    """SGLang's default reserved memory for a GPU of ``gpu_mem_mib`` (tp < 4; §4.2)."""
    if gpu_mem_mib < 20 * 1024:
        chunked, graph_bs = 2048, 8
    elif gpu_mem_mib < 35 * 1024:
        chunked, graph_bs = 2048, 24
    elif gpu_mem_mib < 60 * 1024:
        chunked, graph_bs = 4096, 32
    elif gpu_mem_mib < 160 * 1024:
        chunked, graph_bs = 8192, 256
    else:
        chunked, graph_bs = 16384, 512
    reserved = 512 + 1.5 * max(chunked, 2048) + 2 * graph_bs + 1024 / 8
    if gpu_mem_mib > 60 * 1024:
        reserved = max(reserved, 10 * 1024)
    return reserved
