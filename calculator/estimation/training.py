"""Fine-tuning memory: LoRA, QLoRA and full fine-tuning (weights, adapters, gradients, optimizer, activations).

Sources: SOURCES.md next to this file (docs/methodology.md §6).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

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
# Optimizer moments per trainable parameter; full fine-tuning in 16 bit adds the fp32 master copy (§6.1).
_MOMENT_BYTES: Mapping[Optimizer, float] = {
    Optimizer.ADAMW: ADAM_STATE_BYTES,
    Optimizer.ADAMW_8BIT: ADAM_8BIT_STATE_BYTES,
    Optimizer.SGD: 0.0,
}
# ZeRO shards optimizer state from stage 1, gradients from stage 2, weights (and adapters) from stage 3.
ZERO_SHARDS_OPTIMIZER, ZERO_SHARDS_GRADIENTS, ZERO_SHARDS_WEIGHTS = 1, 2, 3

_ShardInputs = dict[str, int | float | str]


@dataclass(frozen=True, slots=True)
class _Sharding:
    """How model states spread over ``gpus`` data-parallel GPUs: ZeRO ``stage`` shards, no stage replicates."""

    stage: int | None
    gpus: int

    def place(self, amount: float, sharded_from_stage: int) -> tuple[int, _ShardInputs]:
        """(bytes over all GPUs, the inputs that say how) of a state of ``amount`` bytes per copy."""
        if self.stage is not None and self.stage >= sharded_from_stage:
            return round(amount), {"shard": "sharded", "gpus": self.gpus, "zero_stage": self.stage}
        return round(amount * self.gpus), {"shard": "replicated" if self.gpus > 1 else "single", "gpus": self.gpus}


@dataclass(frozen=True, slots=True)
class _Trainable:
    params: int
    gradient_bytes: float  # per trainable parameter
    state_bytes: float  # optimizer state per trainable parameter


def training_terms(
    facts: SpecFacts,
    workload: Workload,
    mode: Mode,
    precision: Precision,
    estimated: list[str],
    warnings: list[str],
) -> tuple[list[Term], int | None]:
    precision = _training_precision(mode, precision, warnings)
    weights, avg_bits, params = weights_detail(
        facts, precision, load_mtp=workload.load_mtp_layers, variant="qlora" if mode is Mode.QLORA else ""
    )
    optimizer = _optimizer(workload, warnings)
    stage = workload.zero_stage if workload.zero_stage in (0, 1, 2, 3) else None
    data_parallel = max(1, int(workload.data_parallel)) if workload.zero_stage is not None else 1
    sharding = _Sharding(stage, data_parallel)
    trainable = _trainable(facts, workload, mode, optimizer, params=params, fp32=precision.key == "fp32")

    w_bytes, w_shard = sharding.place(weights, ZERO_SHARDS_WEIGHTS)
    terms = [Term("weights", w_bytes, {"params": params, "bits": avg_bits, **w_shard}, variant=mode.value)]
    if mode is not Mode.FULL:
        terms.append(_adapters_term(facts, workload, trainable, sharding))
    g_bytes, g_shard = sharding.place(trainable.params * trainable.gradient_bytes, ZERO_SHARDS_GRADIENTS)
    terms.append(
        Term("gradients", g_bytes, {"trainable": trainable.params, "each": trainable.gradient_bytes, **g_shard})
    )
    o_bytes, o_shard = sharding.place(trainable.params * trainable.state_bytes, ZERO_SHARDS_OPTIMIZER)
    o_inputs = {"trainable": trainable.params, "each": trainable.state_bytes, "optimizer": optimizer.value, **o_shard}
    terms.append(Term("optimizer", o_bytes, o_inputs))
    terms.extend(_training_activations(facts, workload, data_parallel))
    terms.append(_training_overhead(sum(t.bytes for t in terms), data_parallel))
    estimated.append("activations")
    total = sum(t.bytes for t in terms)
    per_gpu = -(-total // data_parallel) if stage is not None else None
    return terms, per_gpu


def _training_precision(mode: Mode, precision: Precision, warnings: list[str]) -> Precision:
    """QLoRA always loads NF4; full fine-tuning trains floats, so a quantized choice becomes BF16."""
    if mode is Mode.QLORA:
        return PRECISIONS["nf4"]
    if mode is Mode.FULL and precision.family not in ("float",):
        warnings.append(f"full fine-tuning trains 16-bit weights, not {precision.label}: used BF16")
        return PRECISIONS["bf16"]
    return precision


def _optimizer(workload: Workload, warnings: list[str]) -> Optimizer:
    try:
        return Optimizer(str(workload.optimizer))
    except ValueError:
        warnings.append(f"unknown optimizer {workload.optimizer!r}: used AdamW")
        return Optimizer.ADAMW


def _trainable(
    facts: SpecFacts, workload: Workload, mode: Mode, optimizer: Optimizer, *, params: int, fp32: bool
) -> _Trainable:
    """Full fine-tuning trains every loaded parameter; LoRA and QLoRA train the fp32 adapters only."""
    moments = _MOMENT_BYTES[optimizer]
    if mode is Mode.FULL:
        return _Trainable(params, 4.0 if fp32 else 2.0, moments + (0 if fp32 else MASTER_COPY_BYTES))
    rank = max(1, int(workload.lora_rank))
    return _Trainable(rank * facts.lora_params_per_rank, LORA_ADAPTER_BYTES, moments)


def _adapters_term(facts: SpecFacts, workload: Workload, trainable: _Trainable, sharding: _Sharding) -> Term:
    a_bytes, a_shard = sharding.place(trainable.params * LORA_ADAPTER_BYTES, ZERO_SHARDS_WEIGHTS)
    inputs = {
        "rank": max(1, int(workload.lora_rank)),
        "per_rank": facts.lora_params_per_rank,
        "trainable": trainable.params,
        **a_shard,
    }
    return Term("adapters", a_bytes, inputs)


def _training_overhead(base: int, data_parallel: int) -> Term:
    """The seed's rule, 1 GB per GPU for CUDA context and allocator fragmentation."""
    overhead = round(OVERHEAD_FRACTION * base) + OVERHEAD_FIXED_BYTES * data_parallel
    return Term("overhead", overhead, {"base": base}, variant="training", estimated=True)


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
        act, variant = layers * 2 * s * b * h + per_layer_full, "checkpointing"
    else:
        act, variant = layers * per_layer_full, ""
    logits = s * b * max(0, spec.vocab_size) * 4
    inputs = {"layers": layers, "s": s, "b": b, "h": h, "mlp": mlp, "vocab": spec.vocab_size}
    return [
        Term("activations", act * data_parallel, inputs, variant=variant, estimated=True),
        Term("logits", logits * data_parallel, inputs),
    ]
