"""Fine-tuning memory: LoRA, QLoRA and full fine-tuning (weights, adapters, gradients, optimizer, activations).

What each term holds depends on the framework (memory/frameworks.py): its adapter and optimizer dtypes, where
checkpointed activations live, how the loss materialises the logits and how DeepSpeed shards or offloads model states.
Sources: SOURCES.md next to this file (docs/methodology.md §6).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from ..facts import SpecFacts
from ..precision import (
    PRECISIONS,
    Precision,
)
from ..workload import Framework, LoraTargets, Mode, Optimizer, Term, Workload
from .frameworks import (
    FRAMEWORKS,
    HF_LOGIT_BYTES,
    FrameworkProfile,
    get_framework,
    largest_layer_params,
    lora_params_per_rank,
)
from .frameworks import lora_targets as resolve_targets
from .overhead import OVERHEAD_FIXED_BYTES, OVERHEAD_FRACTION
from .saved_tensors import (
    LayerShape,
    adamw_foreach_bytes,
    adapted_input_width,
    checkpoint_bytes,
    layer_backward_bytes,
    layer_saved_bytes,
)
from .weights import weights_detail

# Optimizer bytes per trainable parameter (§6.1): fp32 master + moments for mixed precision.
ADAM_STATE_BYTES = 8.0  # two fp32 moments
ADAM_8BIT_STATE_BYTES = 2 + 2 * 4 / 256  # two uint8 moments + fp32 absmax per 256 values
MASTER_COPY_BYTES = 4.0
# Optimizer moments per trainable parameter in fp32; full fine-tuning in 16 bit adds the fp32 master copy (§6.1).
_MOMENT_BYTES: Mapping[Optimizer, float] = {
    Optimizer.ADAMW: ADAM_STATE_BYTES,
    Optimizer.ADAMW_8BIT: ADAM_8BIT_STATE_BYTES,
    Optimizer.SGD: 0.0,
}
# ZeRO shards optimizer state from stage 1, gradients from stage 2, weights (and adapters) from stage 3.
ZERO_SHARDS_OPTIMIZER, ZERO_SHARDS_GRADIENTS, ZERO_SHARDS_WEIGHTS = 1, 2, 3
# DeepSpeed's mixed-precision step adds fp32 gradients to the 16-bit ones (estimate_zero2_model_states_mem_needs)
DEEPSPEED_FP32_GRADIENT_BYTES = 4.0
# DeepSpeed ZeRO-3 gathers the largest layer's parameters: 4 B each (estimate_zero3_model_states_mem_needs)
ZERO3_GATHER_BYTES_PER_PARAM = 4

_ShardInputs = dict[str, int | float | str]


@dataclass(frozen=True, slots=True)
class _Sharding:
    """How model states spread over ``gpus`` data-parallel GPUs: ZeRO ``stage`` shards, no stage replicates;
    ``offload`` moves the optimizer side (and with stage 3 the weights) to host RAM."""

    stage: int | None
    gpus: int
    offload: bool = False

    def place(self, amount: float, sharded_from_stage: int) -> tuple[int, _ShardInputs]:
        """(bytes over all GPUs, the inputs that say how) of a state of ``amount`` bytes per copy."""
        if self.stage is not None and self.stage >= sharded_from_stage:
            return round(amount), {"shard": "sharded", "gpus": self.gpus, "zero_stage": self.stage}
        return round(amount * self.gpus), {"shard": "replicated" if self.gpus > 1 else "single", "gpus": self.gpus}

    def on_host(self, sharded_from_stage: int) -> bool:
        """ZeRO-Offload keeps gradients and optimizer in host RAM; with offload_param (stage 3) the weights too."""
        if not self.offload:
            return False
        return sharded_from_stage < ZERO_SHARDS_WEIGHTS or self.stage == ZERO_SHARDS_WEIGHTS


@dataclass(frozen=True, slots=True)
class _Trainable:
    params: int
    weight_bytes: float  # per trainable parameter as stored (adapters); 0 for full fine-tuning (in the weights)
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
    profile = _framework(workload, warnings)
    precision = _training_precision(mode, precision, warnings)
    qlora_variant = "qlora" if mode is Mode.QLORA and profile.nf4_wide_tensors_fp32 else ""
    weights, avg_bits, params = weights_detail(
        facts, precision, load_mtp=workload.load_mtp_layers, variant=qlora_variant
    )
    optimizer = _optimizer(workload, warnings)
    stage = workload.zero_stage if workload.zero_stage in (0, 1, 2, 3) else None
    if stage is None and profile.deepspeed:
        stage = ZERO_SHARDS_WEIGHTS  # the sharding a reader picks DeepSpeed or FSDP for
    data_parallel = max(1, int(workload.data_parallel)) if stage is not None else 1
    sharding = _Sharding(stage, data_parallel, profile.offload)
    trainable = _trainable(facts, workload, mode, optimizer, profile, params=params, fp32=precision.key == "fp32")
    rank = max(1, int(workload.lora_rank))

    weights_variant = mode.value if mode is not Mode.QLORA or qlora_variant else "qlora_16bit"
    terms = [
        _state(
            "weights",
            weights,
            ZERO_SHARDS_WEIGHTS,
            sharding,
            {"params": params, "bits": avg_bits},
            variant=weights_variant,
        )
    ]
    if mode is not Mode.FULL:
        a_bytes, a_shard = sharding.place(trainable.params * trainable.weight_bytes, ZERO_SHARDS_WEIGHTS)
        inputs = {"rank": rank, "per_rank": trainable.params // rank, "trainable": trainable.params}
        terms.append(Term("adapters", a_bytes, {**inputs, "each": trainable.weight_bytes, **a_shard}))
    g_inputs: _ShardInputs = {"trainable": trainable.params, "each": trainable.gradient_bytes}
    terms.append(
        _state("gradients", trainable.params * trainable.gradient_bytes, ZERO_SHARDS_GRADIENTS, sharding, g_inputs)
    )
    o_inputs: _ShardInputs = {
        "trainable": trainable.params,
        "each": trainable.state_bytes,
        "optimizer": optimizer.value,
    }
    terms.append(
        _state("optimizer", trainable.params * trainable.state_bytes, ZERO_SHARDS_OPTIMIZER, sharding, o_inputs)
    )
    terms.extend(_gather_terms(facts, profile, stage, data_parallel))
    activations = _training_activations(facts, workload, profile, data_parallel, mode)
    terms.extend(activations)
    freed = sum(t.bytes for t in activations if t.on_gpu)
    terms.extend(_step_term(profile, optimizer, trainable, sharding, freed))
    terms.append(_training_overhead(sum(t.bytes for t in terms if t.on_gpu), data_parallel))
    estimated.append("activations")
    total = sum(t.bytes for t in terms if t.on_gpu)
    per_gpu = -(-total // data_parallel) if stage is not None else None
    return terms, per_gpu


def _gather_terms(facts: SpecFacts, profile: FrameworkProfile, stage: int | None, data_parallel: int) -> list[Term]:
    """ZeRO-3's gathered layer on each GPU (DeepSpeed profiles with the weights sharded); none otherwise."""
    if not (profile.deepspeed and stage == ZERO_SHARDS_WEIGHTS):
        return []
    largest = largest_layer_params(facts.spec)
    gather = ZERO3_GATHER_BYTES_PER_PARAM * largest * data_parallel
    return [Term("gather_buffer", gather, {"largest": largest, "gpus": data_parallel}, estimated=True)]


def _state(
    key: str, amount: float, sharded_from_stage: int, sharding: _Sharding, inputs: _ShardInputs, variant: str = ""
) -> Term:
    placed, shard = sharding.place(amount, sharded_from_stage)
    if sharding.on_host(sharded_from_stage):
        shard = {**shard, "shard": "offloaded"}
        return Term(key, placed, {**inputs, **shard}, variant=variant, on_gpu=False)
    return Term(key, placed, {**inputs, **shard}, variant=variant)


def _framework(workload: Workload, warnings: list[str]) -> FrameworkProfile:
    profile = get_framework(workload.framework)
    if profile is None:
        warnings.append(f"unknown fine-tuning framework {workload.framework!r}: used Transformers + PEFT")
        return FRAMEWORKS[Framework.TRANSFORMERS]
    return profile


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
    facts: SpecFacts,
    workload: Workload,
    mode: Mode,
    optimizer: Optimizer,
    profile: FrameworkProfile,
    *,
    params: int,
    fp32: bool,
) -> _Trainable:
    """Full fine-tuning trains every loaded parameter; LoRA and QLoRA train the adapters only.

    Mixed precision (Transformers, Unsloth, DeepSpeed) keeps fp32 moments and, for 16-bit trained weights, an fp32
    master copy; torchtune trains in pure bf16, so its AdamW moments are bf16 and no master copy exists."""
    moments = _MOMENT_BYTES[optimizer]
    if not profile.float_states and optimizer is Optimizer.ADAMW and not fp32:
        moments /= 2
    if mode is Mode.FULL:
        gradient = 4.0 if fp32 else 2.0
        master = 0.0 if fp32 or not profile.float_states else MASTER_COPY_BYTES
        if profile.deepspeed and not fp32:
            gradient += DEEPSPEED_FP32_GRADIENT_BYTES
        return _Trainable(params, 0.0, gradient, moments + master)
    targets = resolve_targets(str(workload.lora_targets), profile)
    if targets is None:
        targets = profile.lora_targets
    per_rank = (
        facts.lora_params_per_rank if targets is LoraTargets.ALL_LINEAR else lora_params_per_rank(facts.spec, targets)
    )
    rank = max(1, int(workload.lora_rank))
    adapter = profile.adapter_bytes
    return _Trainable(rank * per_rank, adapter, adapter, moments)


def _training_overhead(base: int, data_parallel: int) -> Term:
    """The seed's rule, 1 GB per GPU for CUDA context and allocator fragmentation."""
    overhead = round(OVERHEAD_FRACTION * base) + OVERHEAD_FIXED_BYTES * data_parallel
    return Term("overhead", overhead, {"base": base}, variant="training", estimated=True)


def _training_activations(
    facts: SpecFacts, workload: Workload, profile: FrameworkProfile, data_parallel: int, mode: Mode
) -> list[Term]:
    spec = facts.spec
    s = max(1, int(workload.tokens_per_sample))
    b = max(1, int(workload.batch_size))
    vocab = max(0, spec.vocab_size)
    inputs: dict[str, int | float | str] = {
        "layers": max(1, spec.num_layers),
        "s": s,
        "b": b,
        "h": max(0, spec.hidden_size),
        "mlp": facts.active_mlp_width,
        "vocab": vocab,
    }
    logits = _logits_term(profile, s * b, vocab, inputs, data_parallel)
    if profile.transformers_layers:
        terms = _saved_activations(facts, workload, profile, mode, logits.bytes // data_parallel, inputs)
    else:
        terms = _listed_activations(facts, workload, profile, inputs)
    return [*(replace(t, bytes=t.bytes * data_parallel) for t in terms), logits]


def _listed_activations(
    facts: SpecFacts, workload: Workload, profile: FrameworkProfile, inputs: dict[str, int | float | str]
) -> list[Term]:
    """Frameworks with their own modules (torchtune, Unsloth): the per-layer listing of §6.2."""
    spec = facts.spec
    s, b, h, mlp = int(inputs["s"]), int(inputs["b"]), int(inputs["h"]), facts.active_mlp_width
    layers = int(inputs["layers"])
    kv_heads, heads = max(1, spec.num_kv_heads), max(1, spec.num_attention_heads)
    # Llama-style block with FlashAttention, 16-bit: s·b·(12h + 4h·K/H + 6I) bytes per layer (§6.2, derived);
    # its backward adds the gradients of the gate and up outputs and of the layer's input and output, s·b·(4h + 4I)
    stored = s * b * (12 * h + 4 * h * kv_heads // heads + 6 * mlp)
    one_layer = stored + s * b * (4 * h + 4 * mlp)
    checkpoints = layers * 2 * s * b * h
    if not workload.gradient_checkpointing:
        return [Term("activations", (layers - 1) * stored + one_layer, inputs, estimated=True)]
    if profile.offload_checkpoints:
        return [
            Term("activations", one_layer, inputs, variant="offloaded", estimated=True),
            Term("activations_host", checkpoints, inputs, estimated=True, on_gpu=False),
        ]
    return [Term("activations", checkpoints + one_layer, inputs, variant="checkpointing", estimated=True)]


def _saved_activations(
    facts: SpecFacts,
    workload: Workload,
    profile: FrameworkProfile,
    mode: Mode,
    logits: int,
    inputs: dict[str, int | float | str],
) -> list[Term]:
    """Transformers models: what autograd saves per decoder layer (memory/saved_tensors.py, §6.5).

    Without checkpointing every layer's saved tensors are live at the loss backward. With it, each layer's input
    stays, plus one layer recomputed with its backward, counted beside the logits: the loss frees them before the
    recompute runs, but the published Transformers QLoRA capacities (SOURCES.md) read 12-21 % low without it."""
    shape = LayerShape.of(facts)
    tokens = int(inputs["s"]) * int(inputs["b"])
    layers = int(inputs["layers"])
    full = mode is Mode.FULL
    adapted = 0
    if not full:
        targets = resolve_targets(str(workload.lora_targets), profile) or profile.lora_targets
        adapted = adapted_input_width(shape, targets)
    saved = layer_saved_bytes(shape, trained_weights=full, adapted_width=adapted)
    recomputed = tokens * (saved + layer_backward_bytes(shape))
    inputs = {**inputs, "per_layer": saved, "adapted": adapted, "layer": recomputed, "logits": logits}
    if not workload.gradient_checkpointing:
        # the last layer's backward starts once the loss has freed its logits
        stored = layers * tokens * saved + max(0, tokens * layer_backward_bytes(shape) - logits)
        return [Term("activations", stored, {**inputs, "stored": stored}, variant="saved", estimated=True)]
    # the residual stream is fp32 under Trainer's mixed precision (fp32 weights) and under PEFT's QLoRA preparation,
    # which casts the embedding, the norms and the head to fp32 (§6.4)
    wide = full or (mode is Mode.QLORA and profile.nf4_wide_tensors_fp32)
    inputs["checkpoint"] = checkpoint_bytes(shape, trained_weights=wide)
    checkpoints = layers * tokens * int(inputs["checkpoint"])
    layer_extra = recomputed
    if profile.offload_checkpoints:
        return [
            Term("activations", layer_extra, inputs, variant="saved_offloaded", estimated=True),
            Term("activations_host", checkpoints, inputs, estimated=True, on_gpu=False),
        ]
    act = checkpoints + layer_extra
    return [Term("activations", act, {**inputs, "stored": checkpoints}, variant="saved_checkpointing", estimated=True)]


def _logits_term(
    profile: FrameworkProfile, tokens: int, vocab: int, inputs: dict[str, int | float | str], data_parallel: int
) -> Term:
    live = tokens if not profile.logit_chunk else min(tokens, profile.logit_chunk)
    logits = round(live * vocab * profile.logit_bytes)
    if profile.logit_chunk:
        logit_variant = "chunked"
    elif not profile.logit_bytes:
        logit_variant = "fused"
    else:
        logit_variant = "" if profile.logit_bytes == HF_LOGIT_BYTES else "output_chunks"
    l_inputs = {**inputs, "tokens": live, "each": profile.logit_bytes}
    return Term("logits", logits * data_parallel, l_inputs, variant=logit_variant, estimated=True)


def _step_term(
    profile: FrameworkProfile, optimizer: Optimizer, trainable: _Trainable, sharding: _Sharding, freed: int
) -> list[Term]:
    """torch AdamW's foreach step (Trainer's default optimizer) allocates a temporary the size of the trainable
    parameters in their dtype; the activations and logits are freed before it runs, so it counts only beyond them."""
    if not profile.foreach_adamw or optimizer is not Optimizer.ADAMW:
        return []
    each = trainable.weight_bytes or MASTER_COPY_BYTES
    placed, shard = sharding.place(adamw_foreach_bytes(trainable.params, each), ZERO_SHARDS_OPTIMIZER)
    if sharding.on_host(ZERO_SHARDS_OPTIMIZER) or placed <= freed:
        return []
    inputs: _ShardInputs = {
        "trainable": trainable.params,
        "each": each,
        "optimizer": optimizer.value,
        "temporaries": placed,
        "freed": freed,
        **shard,
    }
    return [Term("optimizer", placed - freed, inputs, variant="step", estimated=True)]
