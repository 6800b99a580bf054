"""Fine-tuning memory: LoRA, QLoRA and full fine-tuning (weights, adapters, gradients, optimizer, activations).

Sources: SOURCES.md next to this file (docs/methodology.md §6).
"""

from __future__ import annotations

from .facts import SpecFacts
from .overhead import OVERHEAD_FIXED_BYTES, OVERHEAD_FRACTION
from .precision import (
    PRECISIONS,
    Precision,
)
from .weights import weights_detail
from .workload import Mode, Optimizer, Term, Workload

# Optimizer bytes per trainable parameter (§6.1): fp32 master + moments for mixed precision.
ADAM_STATE_BYTES = 8.0  # two fp32 moments
ADAM_8BIT_STATE_BYTES = 2 + 2 * 4 / 256  # two uint8 moments + fp32 absmax per 256 values
MASTER_COPY_BYTES = 4.0
LORA_ADAPTER_BYTES = 4.0  # PEFT keeps adapters in fp32 (autocast_adapter_dtype)


def training_terms(
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
        weights, avg_bits, params = weights_detail(facts, precision, load_mtp=load_mtp, variant="qlora")
    elif mode is Mode.FULL and precision.family not in ("float",):
        warnings.append(f"full fine-tuning trains 16-bit weights, not {precision.label}: used BF16")
        precision = PRECISIONS["bf16"]
        weights, avg_bits, params = weights_detail(facts, precision, load_mtp=load_mtp)
    else:
        weights, avg_bits, params = weights_detail(facts, precision, load_mtp=load_mtp)
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
