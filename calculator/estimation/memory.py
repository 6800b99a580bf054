"""``estimate(spec, workload) -> Breakdown``: the memory a model needs for inference or fine-tuning.

Every term carries its formula and inputs (English and German) so a page can print how the number was made.
Sources of each rule: docs/memory-methodology.md, summarised in SOURCES.md next to this file.
"""

from __future__ import annotations

from models_catalog.architecture import ModelSpec

from .engines import ENGINES, EngineProfile, KvDtype, get_engine, get_kv_dtype
from .facts import SpecFacts, spec_facts
from .kv import LLAMA_CPP_N_UBATCH, kv_size
from .precision import (
    NF4_DOUBLE_QUANT_BITS,
    PRECISIONS,
    Precision,
    get_precision,
    weight_bits_total,
)
from .workload import GB, GIB, MIB, Breakdown, Mode, Optimizer, Term, Workload

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
# Optimizer bytes per trainable parameter (§6.1): fp32 master + moments for mixed precision.
ADAM_STATE_BYTES = 8.0  # two fp32 moments
ADAM_8BIT_STATE_BYTES = 2 + 2 * 4 / 256  # two uint8 moments + fp32 absmax per 256 values
MASTER_COPY_BYTES = 4.0
LORA_ADAPTER_BYTES = 4.0  # PEFT keeps adapters in fp32 (autocast_adapter_dtype)

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
        terms, per_gpu = _training_terms(facts, workload, mode, precision, estimated, warnings)
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


_WEIGHT_CACHE: dict[tuple[int, str, bool, str], tuple[SpecFacts, int, float, int]] = {}


def weight_bytes(facts: SpecFacts, precision: Precision, *, load_mtp: bool, variant: str = "") -> int:
    return _weights(facts, precision, load_mtp=load_mtp, variant=variant)[0]


def _weights(facts: SpecFacts, precision: Precision, *, load_mtp: bool, variant: str = "") -> tuple[int, float, int]:
    """(bytes, average bits per parameter, parameters) of the weights, cached per spec and precision."""
    key = (id(facts), precision.key, load_mtp, variant)
    hit = _WEIGHT_CACHE.get(key)
    if hit is not None and hit[0] is facts:
        return hit[1], hit[2], hit[3]
    counts = facts.counts if load_mtp else facts.counts_without_mtp
    bits = precision.bits(counts, facts.layer_facts)
    if variant == "qlora":
        # prepare_model_for_kbit_training casts every non-4-bit parameter to fp32 (§6.4)
        bits = bits._replace(embedding=32.0, lm_head=32.0, norms=32.0, vision=32.0, router=NF4_DOUBLE_QUANT_BITS)
    params = sum(counts)
    total_bits = weight_bits_total(counts, bits)
    result = (round(total_bits / 8), total_bits / params if params else 0.0, params)
    if len(_WEIGHT_CACHE) > 4096:
        _WEIGHT_CACHE.clear()
    _WEIGHT_CACHE[key] = (facts, *result)
    return result


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
    weights, avg_bits, params = _weights(facts, precision, load_mtp=workload.load_mtp_layers)
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
    terms.extend(_engine_overhead(facts, engine, gpu_weights, cache_bytes, context, concurrency, estimated))
    return terms


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


def _engine_overhead(
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


def _training_terms(
    facts: SpecFacts,
    workload: Workload,
    mode: Mode,
    precision: Precision,
    estimated: list[str],
    warnings: list[str],
) -> tuple[list[Term], int | None]:
    load_mtp = workload.load_mtp_layers
    if mode is Mode.QLORA:
        precision = PRECISIONS["nf4"]
        weights, avg_bits, params = _weights(facts, precision, load_mtp=load_mtp, variant="qlora")
    elif mode is Mode.FULL and precision.family not in ("float",):
        warnings.append(f"full fine-tuning trains 16-bit weights, not {precision.label}: used BF16")
        precision = PRECISIONS["bf16"]
        weights, avg_bits, params = _weights(facts, precision, load_mtp=load_mtp)
    else:
        weights, avg_bits, params = _weights(facts, precision, load_mtp=load_mtp)
    fp32 = precision.key == "fp32"
    try:
        optimizer = Optimizer(str(workload.optimizer))
    except ValueError:
        warnings.append(f"unknown optimizer {workload.optimizer!r}: used AdamW")
        optimizer = Optimizer.ADAMW
    data_parallel = max(1, int(workload.data_parallel)) if workload.zero_stage is not None else 1
    stage = workload.zero_stage if workload.zero_stage in (0, 1, 2, 3) else None

    terms: list[Term] = []
    weights_label = {
        Mode.LORA: ("frozen base weights", "eingefrorene Basisgewichte"),
        Mode.QLORA: ("frozen NF4 base, non-4-bit tensors cast to fp32", "eingefrorene NF4-Basis, Rest in fp32"),
        Mode.FULL: ("trained weights", "trainierte Gewichte"),
    }[mode]
    if mode is Mode.FULL:
        trainable = params
        grad_bytes_each = 4.0 if fp32 else 2.0
        state_each = {
            Optimizer.ADAMW: ADAM_STATE_BYTES + (0 if fp32 else MASTER_COPY_BYTES),
            Optimizer.ADAMW_8BIT: ADAM_8BIT_STATE_BYTES + (0 if fp32 else MASTER_COPY_BYTES),
            Optimizer.SGD: 0.0 if fp32 else MASTER_COPY_BYTES,
        }[optimizer]
    else:
        trainable = max(1, int(workload.lora_rank)) * facts.lora_params_per_rank
        grad_bytes_each = LORA_ADAPTER_BYTES
        state_each = {
            Optimizer.ADAMW: ADAM_STATE_BYTES,
            Optimizer.ADAMW_8BIT: ADAM_8BIT_STATE_BYTES,
            Optimizer.SGD: 0.0,
        }[optimizer]

    def shard(amount: float, sharded_from_stage: int) -> tuple[int, str]:
        if stage is not None and stage >= sharded_from_stage:
            return round(amount), f"sharded over {data_parallel} GPUs (ZeRO-{stage})"
        return round(amount * data_parallel), (
            f"replicated on {data_parallel} GPUs" if data_parallel > 1 else "one copy"
        )

    w_bytes, w_note = shard(weights, 3)
    terms.append(
        Term(
            "weights",
            w_bytes,
            "Weights",
            "Gewichte",
            "{params} parameters × {bits} bits ÷ 8 ({what}, {shard})",
            "{params} Parameter × {bits} Bit ÷ 8 ({what_de}, {shard})",
            {
                "params": params,
                "bits": avg_bits,
                "what": weights_label[0],
                "what_de": weights_label[1],
                "shard": w_note,
            },
        )
    )
    if mode is not Mode.FULL:
        a_bytes, a_note = shard(trainable * LORA_ADAPTER_BYTES, 3)
        terms.append(
            Term(
                "adapters",
                a_bytes,
                "LoRA adapters",
                "LoRA-Adapter",
                "rank {rank} × {per_rank} (in + out of every adapted linear layer) = {trainable} parameters "
                "× 4 B (fp32), {shard}",
                "Rang {rank} × {per_rank} (Ein- + Ausgang jeder angepassten linearen Schicht) = {trainable} "
                "Parameter × 4 B (fp32), {shard}",
                {
                    "rank": max(1, int(workload.lora_rank)),
                    "per_rank": facts.lora_params_per_rank,
                    "trainable": trainable,
                    "shard": a_note,
                },
            )
        )
    g_bytes, g_note = shard(trainable * grad_bytes_each, 2)
    terms.append(
        Term(
            "gradients",
            g_bytes,
            "Gradients",
            "Gradienten",
            "{trainable} trainable parameters × {each} B, {shard}",
            "{trainable} trainierbare Parameter × {each} B, {shard}",
            {"trainable": trainable, "each": grad_bytes_each, "shard": g_note},
        )
    )
    o_bytes, o_note = shard(trainable * state_each, 1)
    terms.append(
        Term(
            "optimizer",
            o_bytes,
            "Optimizer state",
            "Optimiererzustand",
            "{trainable} trainable parameters × {each} B ({optimizer}), {shard}",
            "{trainable} trainierbare Parameter × {each} B ({optimizer}), {shard}",
            {"trainable": trainable, "each": state_each, "optimizer": optimizer.value, "shard": o_note},
        )
    )
    terms.extend(_training_activations(facts, workload, data_parallel))
    base = sum(t.bytes for t in terms)
    terms.append(
        Term(
            "overhead",
            round(OVERHEAD_FRACTION * base) + OVERHEAD_FIXED_BYTES * data_parallel,
            "Runtime overhead",
            "Laufzeit-Overhead",
            "10 % × {base} bytes + 1 GB per GPU (CUDA context, allocator fragmentation; the seed's rule)",
            "10 % × {base} Bytes + 1 GB pro GPU (CUDA-Kontext, Fragmentierung; Regel der Vorlage)",
            {"base": base},
            estimated=True,
        )
    )
    estimated.append("activations")
    total = sum(t.bytes for t in terms)
    per_gpu = -(-total // data_parallel) if stage is not None else None
    return terms, per_gpu


def _training_activations(facts: SpecFacts, workload: Workload, data_parallel: int) -> list[Term]:
    spec = facts.spec
    s = max(1, int(workload.tokens_per_sample))
    b = max(1, int(workload.batch_size))
    h = max(0, spec.hidden_size)
    layers = max(1, spec.num_layers)
    heads = max(1, spec.num_attention_heads)
    kv_heads = max(1, spec.num_kv_heads)
    mlp = facts.active_mlp_width
    # Llama-style block with FlashAttention, 16-bit: s·b·(12h + 4h·K/H + 6I) bytes per layer (§6.2, derived)
    per_layer_full = s * b * (12 * h + 4 * h * kv_heads // heads + 6 * mlp)
    if workload.gradient_checkpointing:
        act = layers * 2 * s * b * h + per_layer_full
        formula = (
            "checkpointing: {layers} layers × 2 × {s} tokens × {b} batch × {h} hidden + one layer recomputed "
            "{s} × {b} × (12 × {h} + 4 × {h} × K/H + 6 × {mlp}) bytes"
        )
        formula_de = (
            "Checkpointing: {layers} Schichten × 2 × {s} Tokens × {b} Batch × {h} + eine neu berechnete Schicht "
            "{s} × {b} × (12 × {h} + 4 × {h} × K/H + 6 × {mlp}) Bytes"
        )
    else:
        act = layers * per_layer_full
        formula = "{layers} layers × {s} tokens × {b} batch × (12 × {h} + 4 × {h} × K/H + 6 × {mlp}) bytes"
        formula_de = "{layers} Schichten × {s} Tokens × {b} Batch × (12 × {h} + 4 × {h} × K/H + 6 × {mlp}) Bytes"
    logits = s * b * max(0, spec.vocab_size) * 4
    inputs = {"layers": layers, "s": s, "b": b, "h": h, "mlp": mlp, "vocab": spec.vocab_size}
    return [
        Term(
            "activations",
            act * data_parallel,
            "Activations",
            "Aktivierungen",
            formula,
            formula_de,
            inputs,
            estimated=True,
        ),
        Term(
            "logits",
            logits * data_parallel,
            "Logits for the loss",
            "Logits für den Loss",
            "{s} tokens × {b} batch × {vocab} vocabulary × 4 B (fp32)",
            "{s} Tokens × {b} Batch × {vocab} Vokabular × 4 B (fp32)",
            inputs,
        ),
    ]


def weights_only_bytes(spec: ModelSpec, precision: str, *, load_mtp_layers: bool = True) -> int:
    """Bytes of the weights alone in ``precision`` (the quantized-build ladder); 0 for an unknown name."""
    found = get_precision(precision)
    if found is None:
        return 0
    return _weights(spec_facts(spec), found, load_mtp=load_mtp_layers)[0]
