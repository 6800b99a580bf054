"""``estimate(spec, workload) -> Breakdown``: the memory a model needs for inference or fine-tuning.

Every term carries the named inputs of its formula so a page can print how the number was made.
Sources of each rule: docs/methodology.md, summarised in SOURCES.md next to this file.
"""

from __future__ import annotations

from models_catalog.architecture import ModelSpec

from ..engines.builds import released_precision
from ..engines.dp_attention import attention_ranks, replicated_weight_bytes
from ..engines.profiles import ENGINES, EngineProfile, KvDtype, get_engine, get_kv_dtype
from ..engines.releases import release_profile, vllm_release
from ..facts import SpecFacts, spec_facts
from ..memo import per_spec
from ..precision import (
    PRECISIONS,
    Precision,
    get_precision,
)
from ..workload import Breakdown, Mode, Term, Workload
from .kv import KvSize, kv_size, with_draft_layers
from .overhead import engine_overhead_terms
from .training import _training_precision, training_terms
from .weights import vllm_mxfp4_layout_bytes, weights_detail

_DEFAULT_WORKLOAD = Workload()


def estimate(spec: ModelSpec, workload: Workload = _DEFAULT_WORKLOAD) -> Breakdown:
    """Memory ``spec`` needs under ``workload``. Never raises on odd input: unknown names fall back to the
    defaults with a warning, counts below 1 count as 1. Remembered per spec object and workload (both immutable):
    one model page asks for the same workload several times (its matrix, ranking, builds and verdicts share
    settings) and, with the spec kept per process, again on the next page of that model."""
    return per_spec("estimate", spec, workload, lambda: _estimate(spec, workload))


def _estimate(spec: ModelSpec, workload: Workload) -> Breakdown:
    facts = spec_facts(spec)
    warnings: list[str] = []
    engine = get_engine(workload.engine)
    if engine is None:
        warnings.append(f"unknown engine {workload.engine!r}: used vLLM")
        engine = ENGINES["vllm"]
    engine = release_profile(engine, workload.engine_release)
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
        precision_used = precision.key
    else:
        terms, per_gpu = training_terms(facts, workload, mode, precision, estimated, warnings)
        # the same substitution training_terms made (its warning is already recorded)
        precision_used = _training_precision(mode, precision, []).key
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
        precision_used=precision_used,
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
    terms, gpu_weights = _weight_terms(facts, workload, engine, precision, estimated)
    draft = drafts_with_mtp(spec, workload, engine.key)
    if draft:
        terms.append(_draft_term(facts, precision, spec.mtp_layers))
        gpu_weights += terms[-1].bytes
    ranks = attention_ranks(spec, engine.key, workload.attention_data_parallel)
    replicated = 0
    if ranks > 1:
        # every rank holds the attention whole and caches only its own requests (engines/dp_attention.py, §4.11): the
        # requests spread evenly, each rank's cache sized for its share rounded up
        per_copy = replicated_weight_bytes(facts, precision, engine.key)
        replicated = per_copy * (ranks - 1)
        concurrency = -(-concurrency // ranks) * ranks
        terms.append(
            Term(
                "replicated_weights",
                replicated,
                {"bytes": per_copy, "ranks": ranks, "copies": ranks - 1, "engine": engine.name},
            )
        )
    kv = kv_size(
        with_draft_layers(spec.layer_groups, spec.mtp_layers) if draft else spec.layer_groups,
        engine,
        kv_dtype,
        context=context,
        concurrency=concurrency,
        tensor_parallel=1 if ranks > 1 else workload.tensor_parallel,
        heads=spec.num_attention_heads,
        head_dim=spec.head_dim,
    )
    terms.extend(_cache_terms(kv, facts, engine, kv_dtype, concurrency, spec.mtp_layers if draft else 0))
    cache_bytes = kv.kv_bytes + kv.state_bytes
    terms.extend(
        engine_overhead_terms(
            facts,
            engine,
            gpu_weights + replicated,
            cache_bytes,
            context,
            concurrency,
            estimated,
            workload.engine_release,
        )
    )
    peak = _load_peak_term(facts, workload, engine, precision, sum(t.bytes for t in terms if t.on_gpu))
    if peak is not None:
        terms.append(peak)
    return terms


# Engines that run a model's own multi-token-prediction layers as the draft of speculative decoding: vLLM
# (--speculative-config method "mtp", vllm-project/recipes GLM/GLM5.md) and SGLang (--speculative-algorithm EAGLE with
# the model's NextN layer, docs basic_usage/deepseek_v3.md).
MTP_DRAFT_ENGINES = frozenset({"vllm", "sglang"})


def drafts_with_mtp(spec: ModelSpec, workload: Workload, engine_key: str) -> bool:
    """Whether ``workload`` runs the model's MTP layers as its draft: asked for, inference, an engine that does, a
    model that has them."""
    return (
        workload.mtp_draft
        and workload.mode is Mode.INFERENCE
        and engine_key in MTP_DRAFT_ENGINES
        and spec.mtp_layers > 0
    )


def _draft_term(facts: SpecFacts, precision: Precision, layers: int) -> Term:
    """The MTP draft's weights: its decoder layer(s) and projections at the weights' precision, the embedding and head
    it stores again shared with the model (vLLM ``deepseek_mtp.py``, SGLang ``deepseek_nextn.py``: the target's)."""
    with_draft, _bits, params_with = weights_detail(facts, precision, load_mtp=False, draft=True)
    without, _bits, params_without = weights_detail(facts, precision, load_mtp=False)
    inputs: dict[str, int | float | str] = {"layers": layers, "params": params_with - params_without}
    return Term("draft_weights", with_draft - without, inputs)


# vLLM lines that load a 16-bit release whole before casting it to FP8 (--quantization fp8): the weights are created in
# the checkpoint's dtype and quantized in process_weights_after_loading once all are loaded (docs/features/
# quantization/fp8.md: "you need enough memory to load the whole model"); vllm#31914 (merged 2026-01-07, in the
# 0.12–0.16 line) creates them on the meta device and quantizes each layer as it is loaded, and the docs dropped the
# warning with vllm#37851 (2026-03). The 0.12–0.16 line is counted as loading first: the fix came within it.
_VLLM_LOADS_WHOLE_BEFORE_FP8 = frozenset({"0.8", "0.9", "0.12"})


def _load_peak_term(
    facts: SpecFacts, workload: Workload, engine: EngineProfile, precision: Precision, steady_bytes: int
) -> Term | None:
    """What loading needs beyond what the engine holds once started, where it casts a 16-bit release to FP8 as it
    loads and holds the 16-bit weights first: SGLang (sglang#2895: DeepSeek-V3's BF16 weights cast with
    --quantization fp8 run out of 8 × H200 while loading) and vLLM before its layer-by-layer loading. None where the
    weights come from a published build (``weights_file_bytes``), the release is not 16-bit, or the engine streams."""
    if precision.key != "fp8" or workload.weights_file_bytes or released_precision(facts.spec.native_dtype) != "fp16":
        return None
    vllm_whole = engine.key == "vllm" and vllm_release(workload.engine_release).key in _VLLM_LOADS_WHOLE_BEFORE_FP8
    if engine.key != "sglang" and not vllm_whole:
        return None
    sixteen_bit = weights_detail(facts, PRECISIONS["fp16"], load_mtp=workload.load_mtp_layers)[0]
    extra = sixteen_bit - steady_bytes
    if extra <= 0:
        return None
    inputs: dict[str, int | float | str] = {"engine": engine.name, "weights": sixteen_bit, "steady": steady_bytes}
    return Term("load_peak", extra, inputs, variant="sglang" if engine.key == "sglang" else "vllm")


def _weight_terms(
    facts: SpecFacts, workload: Workload, engine: EngineProfile, precision: Precision, estimated: list[str]
) -> tuple[list[Term], int]:
    """The weights' terms (the files as measured, or the weights at the precision with vLLM's MXFP4 layout and an
    input embedding the engine keeps in RAM) and the weight bytes on the GPUs."""
    weights, avg_bits, params = weights_detail(facts, precision, load_mtp=workload.load_mtp_layers)
    if workload.weights_file_bytes:
        # the files hold the whole checkpoint; the engine loads all of it onto the GPUs
        weights = gpu_weights = int(workload.weights_file_bytes)
        host_embedding, embed_bits = 0, 0.0
        terms = [Term("weights", weights, {"bytes": weights, "precision": precision.label}, variant="measured")]
    else:
        if precision.estimated:
            estimated.append("weights")
        host_embedding, embed_bits = _host_embedding(facts, engine, precision, weights)
        gpu_weights = weights - (host_embedding if facts.counts.lm_head else 0)
        terms = [_weights_term(precision, params, avg_bits, weights, gpu_weights)]
        swizzled = engine.key == "vllm" and vllm_release(workload.engine_release).mxfp4_swizzled
        if swizzled and precision.family == "mxfp4":
            layout, inputs = vllm_mxfp4_layout_bytes(facts, workload.tensor_parallel)
            if layout:
                terms.append(Term("weights_layout", layout, inputs, variant="vllm_mxfp4"))
    if host_embedding:
        terms.append(
            Term(
                "input_embedding_host",
                host_embedding,
                {"engine": engine.name, "rows": facts.counts.embedding, "bits": embed_bits},
                on_gpu=False,
            )
        )
    return terms, gpu_weights


def _host_embedding(facts: SpecFacts, engine: EngineProfile, precision: Precision, weights: int) -> tuple[int, float]:
    """(bytes, bits per parameter) of the input embedding an engine keeps in host RAM; (0, 0.0) when none."""
    if not (engine.input_embedding_on_host and facts.counts.embedding):
        return 0, 0.0
    embed_bits = precision.bits(facts.counts, facts.layer_facts).embedding
    host_embedding = round(facts.counts.embedding * embed_bits / 8)
    if not facts.counts.lm_head:
        host_embedding = min(host_embedding, weights)  # tied: the head keeps a GPU copy (§2.10)
    return host_embedding, embed_bits


def _weights_term(precision: Precision, params: int, avg_bits: float, weights: int, gpu_weights: int) -> Term:
    return Term(
        "weights",
        gpu_weights,
        {
            "params": params,
            "bits": avg_bits,
            "precision": precision.label,
            "rule": precision.description,
            "host": weights - gpu_weights,
        },
        variant="host_embedding" if weights != gpu_weights else "",
        estimated=precision.estimated,
    )


def _cache_terms(
    kv: KvSize, facts: SpecFacts, engine: EngineProfile, kv_dtype: KvDtype, concurrency: int, draft_layers: int = 0
) -> list[Term]:
    terms = [
        Term(
            "kv_cache",
            kv.kv_bytes,
            {
                "bytes_per_token": kv.bytes_per_token,
                "layers": facts.attention_layers + draft_layers,
                "kv_dtype": kv_dtype.label,
                "cells": kv.tokens_per_sequence,
                "requests": concurrency,
                "engine": engine.name,
            },
        )
    ]
    if kv.state_bytes:
        terms.append(
            Term(
                "linear_state",
                kv.state_bytes,
                {"conv_bytes": engine.conv_state_bytes, "ssm_bytes": engine.ssm_state_bytes, "requests": concurrency},
            )
        )
    return terms
