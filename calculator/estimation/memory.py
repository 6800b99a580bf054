"""``estimate(spec, workload) -> Breakdown``: the memory a model needs for inference or fine-tuning.

Every term carries its formula and inputs (English and German) so a page can print how the number was made.
Sources of each rule: docs/methodology.md, summarised in SOURCES.md next to this file.
"""

from __future__ import annotations

from models_catalog.architecture import ModelSpec

from .engines import ENGINES, EngineProfile, KvDtype, get_engine, get_kv_dtype
from .facts import SpecFacts, spec_facts
from .kv import kv_size
from .overhead import engine_overhead_terms
from .precision import (
    PRECISIONS,
    Precision,
    get_precision,
)
from .training import training_terms
from .weights import weights_detail
from .workload import Breakdown, Mode, Term, Workload

_DEFAULT_WORKLOAD = Workload()


def estimate(spec: ModelSpec, workload: Workload = _DEFAULT_WORKLOAD) -> Breakdown:
    """Memory ``spec`` needs under ``workload``. Never raises on odd input: unknown names fall back to the
    defaults with a warning, counts below 1 count as 1."""
    facts = spec_facts(spec)
    warnings: list[str] = []
    engine = get_engine(workload.engine)
    if engine is None:
        warnings.append(f"unknown engine {workload.engine!r}: used vLLM")
        engine = ENGINES["vllm"]
    kv_dtype = get_kv_dtype(workload.kv_dtype)
    if kv_dtype is None:
        warnings.append(f"unknown KV-cache type {workload.kv_dtype!r}: used FP16")
        kv_dtype = get_kv_dtype("fp16")
        assert kv_dtype is not None
    elif kv_dtype.key not in engine.kv_dtypes:
        warnings.append(f"{engine.name} has no {kv_dtype.label} KV cache; computed as if it had")
    precision = get_precision(workload.precision)
    if precision is None:
        warnings.append(f"unknown precision {workload.precision!r}: used FP16")
        precision = PRECISIONS["fp16"]
    elif precision.family not in engine.formats and workload.mode == Mode.INFERENCE:
        warnings.append(f"{engine.name} does not load {precision.label} weights; computed as if it did")
    mode = workload.mode if isinstance(workload.mode, Mode) else _mode(workload.mode, warnings)
    context = max(1, int(workload.context))
    concurrency = max(1, int(workload.concurrency))
    estimated: list[str] = list(spec.estimated_fields)

    if mode is Mode.INFERENCE:
        terms = _inference_terms(facts, workload, engine, kv_dtype, precision, context, concurrency, estimated)
        per_gpu = None
    else:
        terms, per_gpu = training_terms(facts, workload, mode, precision, estimated, warnings)
    total = sum(t.bytes for t in terms if t.on_gpu)
    host = sum(t.bytes for t in terms if not t.on_gpu)
    return Breakdown(
        workload=workload,
        terms=tuple(terms),
        total_bytes=total,
        host_bytes=host,
        params_total=spec.params_total,
        params_active=spec.params_active,
        params_source=spec.params_source,
        params_active_source=spec.params_active_source,
        estimated_fields=tuple(dict.fromkeys(estimated)),
        warnings=tuple(warnings),
        per_gpu_bytes=per_gpu,
    )


def _mode(value: object, warnings: list[str]) -> Mode:
    try:
        return Mode(str(value))
    except ValueError:
        warnings.append(f"unknown mode {value!r}: used inference")
        return Mode.INFERENCE


def _inference_terms(
    facts: SpecFacts,
    workload: Workload,
    engine: EngineProfile,
    kv_dtype: KvDtype,
    precision: Precision,
    context: int,
    concurrency: int,
    estimated: list[str],
) -> list[Term]:
    spec = facts.spec
    weights, avg_bits, params = weights_detail(facts, precision, load_mtp=workload.load_mtp_layers)
    if precision.estimated:
        estimated.append("weights")
    terms: list[Term] = []
    host_embedding = 0
    if engine.input_embedding_on_host and facts.counts.embedding:
        embed_bits = precision.bits(facts.counts, facts.layer_facts).embedding
        host_embedding = round(facts.counts.embedding * embed_bits / 8)
        if not facts.counts.lm_head:
            host_embedding = min(host_embedding, weights)  # tied: the head keeps a GPU copy (§2.10)
    gpu_weights = weights - (host_embedding if facts.counts.lm_head else 0)
    terms.append(
        Term(
            "weights",
            gpu_weights,
            "Weights",
            "Gewichte",
            "{params} parameters × {bits} bits ÷ 8 ({precision}: {rule})"
            + (" − {host} bytes kept in host RAM" if weights != gpu_weights else ""),
            "{params} Parameter × {bits} Bit ÷ 8 ({precision}: {rule})"
            + (" − {host} Bytes im Arbeitsspeicher" if weights != gpu_weights else ""),
            {
                "params": params,
                "bits": avg_bits,
                "precision": precision.label,
                "rule": precision.description,
                "host": weights - gpu_weights,
            },
            estimated=precision.estimated,
        )
    )
    if host_embedding:
        terms.append(
            Term(
                "input_embedding_host",
                host_embedding,
                "Input embedding (host RAM)",
                "Eingabe-Embedding (Arbeitsspeicher)",
                "{engine} keeps token_embd in CPU memory: {rows} parameters × {bits} bits ÷ 8",
                "{engine} hält token_embd im CPU-Speicher: {rows} Parameter × {bits} Bit ÷ 8",
                {"engine": engine.name, "rows": facts.counts.embedding, "bits": embed_bits},
                on_gpu=False,
            )
        )
    kv = kv_size(
        spec.layer_groups,
        engine,
        kv_dtype,
        context=context,
        concurrency=concurrency,
        tensor_parallel=workload.tensor_parallel,
        heads=spec.num_attention_heads,
        head_dim=spec.head_dim,
    )
    terms.append(
        Term(
            "kv_cache",
            kv.kv_bytes,
            "KV cache",
            "KV-Cache",
            "{bytes_per_token} bytes per token ({layers} cached layers, {kv_dtype}) × {cells} cells "
            "× {requests} requests ({engine} paging)",
            "{bytes_per_token} Bytes pro Token ({layers} Schichten mit Cache, {kv_dtype}) × {cells} Zellen "
            "× {requests} Anfragen ({engine}-Seitenverwaltung)",
            {
                "bytes_per_token": kv.bytes_per_token,
                "layers": facts.attention_layers,
                "kv_dtype": kv_dtype.label,
                "cells": kv.tokens_per_sequence,
                "requests": concurrency,
                "engine": engine.name,
            },
        )
    )
    if kv.state_bytes:
        terms.append(
            Term(
                "linear_state",
                kv.state_bytes,
                "Linear-attention state",
                "Zustand der linearen Attention",
                "fixed state per sequence (conv × {conv_bytes} B + recurrent × {ssm_bytes} B per element) "
                "× {requests} requests",
                "fester Zustand pro Sequenz (Faltung × {conv_bytes} B + rekurrent × {ssm_bytes} B pro "
                "Element) × {requests} Anfragen",
                {
                    "conv_bytes": engine.conv_state_bytes,
                    "ssm_bytes": engine.ssm_state_bytes,
                    "requests": concurrency,
                },
            )
        )
    cache_bytes = kv.kv_bytes + kv.state_bytes
    terms.extend(engine_overhead_terms(facts, engine, gpu_weights, cache_bytes, context, concurrency, estimated))
    return terms
