"""The work one step of a model asks of the hardware (docs/methodology.md §5): the bytes a decode step reads (weights,
the routed experts a batch touches, §5.1, each sequence's KV cache), the FLOPs per token through the active
parameters and attention, the fixed costs per step, and the hardware figures they meet: its peak FLOPs (or the peak
a measured prefill run implies, §5.5), its platform and interconnect. ``estimate`` turns these into step times.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol

from models_catalog.architecture import AttentionKind, ModelSpec

from ..engines.dp_attention import attention_ranks, replicated_weight_bytes
from ..facts import spec_facts
from ..memory.estimate import estimate
from ..memory.fit import HasCapacity
from ..precision import PRECISIONS, get_precision
from ..workload import Workload
from .step_time import EngineSpeed, Link, engine_speed, link_for


class PrefillMeasurement(Protocol):
    """A measured llama.cpp prompt-processing run on the hardware (``pricing.gpus.PrefillRun``)."""

    @property
    def achieved_flops(self) -> float: ...


class SpeedHardware(HasCapacity, Protocol):
    """Everything the speed model reads from a GPU or machine (``pricing.gpus.GpuSpec``, the estimate report's
    ``Machine``): its identity and platform (slug, vendor, segment, form factor pick the engine profile and the
    interconnect), its runtime memory (``capacity_bytes``, for the requests that fit), its bandwidth and dense
    FLOPs, and a measured prefill run where no FLOPs figure is on record."""

    @property
    def slug(self) -> str: ...

    @property
    def vendor(self) -> str: ...  # "NVIDIA", "AMD", "Apple", ...; "" when unknown

    @property
    def segment(self) -> str: ...  # "datacenter", "consumer", "apple", ...; "" when unknown

    @property
    def form_factor(self) -> str | None: ...  # "SXM", "PCIe", ...

    @property
    def memory_bandwidth_gbps(self) -> float | None: ...

    @property
    def bf16_dense_tflops(self) -> float | None: ...

    @property
    def fp8_dense_tflops(self) -> float | None: ...

    @property
    def fp4_dense_tflops(self) -> float | None: ...  # Blackwell's FP4 tensor cores; None elsewhere

    @property
    def fp16_tensor_dense_tflops(self) -> float | None: ...  # cards without BF16 (T4, V100)

    @property
    def prefill_run(self) -> PrefillMeasurement | None: ...


# GeForce cards run FP16 tensor math with FP32 accumulation at half the rate of FP16 accumulation (NVIDIA Ampere
# GA102 whitepaper: RTX 3090 71 vs 142 dense TFLOPS; Ada whitepaper: RTX 4090 165.2 vs 330.3); the BF16 figure on
# record is the FP32-accumulate one. llama.cpp's CUDA matrix products are not held to it: its quantized kernels
# (MMQ) multiply on the INT8 tensor cores and its FP16 products accumulate in FP16 (ggml-cuda), §5.5.
GEFORCE_FP16_ACCUMULATE = 2.0
_FULL_RATE_ENGINES = frozenset({"llama.cpp", "ollama"})


def peak_flops(hardware: SpeedHardware, precision_key: str, engine: str = "") -> float | None:
    """The vendor's dense FLOPs/s for ``precision_key`` (FP8 where it has an FP8 figure, NVFP4 at the FP4 figure
    where it has one, else BF16 or FP16); None without a figure."""
    tflops = None
    if precision_key == "fp8":
        tflops = hardware.fp8_dense_tflops
    if precision_key == "nvfp4" and hardware.vendor != "AMD":
        # FP4 tensor cores on Blackwell; elsewhere vLLM and SGLang run NVFP4 weight-only through Marlin, multiplying
        # in 16 bits (vllm-project/vllm#18000, sgl-project/sglang#19652; docs/methodology.md §2.11). An AMD GPU's FP4
        # figure is for MXFP4: no source shows NVFP4 computed natively there, so it gets the 16-bit figure
        tflops = hardware.fp4_dense_tflops
    if tflops is None:
        tflops = hardware.bf16_dense_tflops or hardware.fp16_tensor_dense_tflops
    if not tflops:
        return None
    geforce = hardware.vendor == "NVIDIA" and hardware.segment == "consumer"
    if geforce and engine in _FULL_RATE_ENGINES:
        tflops *= GEFORCE_FP16_ACCUMULATE
    return tflops * 1e12


def measured_peak_flops(hardware: SpeedHardware) -> float | None:
    """For hardware without vendor FLOPs on record: the peak that llama.cpp's prefill efficiency on its platform
    turns into its measured prompt-processing rate (the GPU's ``prefill_run``, §5.5), so every engine's own
    efficiency then applies to it."""
    run = hardware.prefill_run
    achieved = run.achieved_flops if run is not None else None
    if not achieved:
        return None
    return achieved / engine_speed("llama.cpp", platform_of(hardware)).prefill_mfu


def platform_of(hardware: SpeedHardware) -> str:
    """The platform whose engine profiles apply: "metal" on Apple silicon, "cuda" for every other GPU."""
    return "metal" if hardware.vendor == "Apple" else "cuda"


def link_of(hardware: SpeedHardware, gpus: int) -> Link:
    """The interconnect ``gpus`` of ``hardware`` all-reduce over as one tensor-parallel replica."""
    return link_for(hardware.slug, hardware.form_factor, hardware.vendor, gpus)


@dataclass(frozen=True, slots=True)
class StepBytes:
    """What one decode step reads, by kind, before the batch is known."""

    dense: float  # non-expert weights a step reads (input embedding excluded: one row per token)
    experts: float  # all routed-expert weights
    kv_per_request: float  # KV cache (and linear-attention state) of one sequence at ``context`` tokens
    quantized: bool  # weights under 8 bits: the engine's dequantizing GEMV reaches less of the bandwidth
    replicated: float = 0.0  # of ``dense``, what each data-parallel attention rank reads whole (dp_attention.py)
    attention_ranks: int = 1  # data-parallel attention ranks (1: none)


def step_bytes(spec: ModelSpec, workload: Workload) -> StepBytes:
    """The bytes a decode step of ``spec`` reads at ``workload``'s precision, engine and attention layout."""
    facts = spec_facts(spec)
    precision = get_precision(workload.precision) or PRECISIONS["fp16"]
    # a decoding step runs the main model only: multi-token-prediction layers run with MTP speculative decoding,
    # which this model does not assume (vLLM skips their weights unless a speculative config asks for them,
    # vllm/model_executor/models/deepseek_v2.py load_weights, get_spec_layer_idx_from_weight_name); whether they
    # sit in memory (Workload.load_mtp_layers) changes the memory, not the bytes a step reads
    counts = facts.counts_without_mtp
    bits = precision.bits(counts, facts.layer_facts)
    expert_bits = counts.experts * bits.experts + counts.experts_down * bits.experts_down
    dense_bits = sum(c * b for c, b in zip(counts, bits, strict=True)) - expert_bits
    if counts.lm_head:  # the input embedding is read one row per token
        dense_bits -= counts.embedding * bits.embedding
    dense_bits -= counts.vision * bits.vision
    one = replace(workload, concurrency=1, attention_data_parallel=1)
    kv = estimate(spec, one).kv_cache_bytes
    quantized = precision.nominal_bits < 8
    ranks = workload_attention_ranks(spec, workload)
    replicated = 0.0
    if ranks > 1:
        # the input embedding each rank holds is read one row per token, like the one it replaces
        embedding = counts.embedding * bits.embedding if counts.lm_head else 0.0
        whole = replicated_weight_bytes(facts, precision, workload.engine) - embedding / 8
        replicated = min(dense_bits / 8, max(0.0, whole))
    return StepBytes(dense_bits / 8, expert_bits / 8, float(kv), quantized, replicated, ranks)


def workload_attention_ranks(spec: ModelSpec, workload: Workload) -> int:
    """Data-parallel attention ranks ``workload`` runs ``spec`` with (1: none)."""
    return attention_ranks(spec, workload.engine, workload.attention_data_parallel)


def expert_share(spec: ModelSpec, tokens: int) -> float:
    """Share of the routed experts ``tokens`` tokens touch in one layer: 1 − (1 − k/E)^B (§5.1, uniform)."""
    experts = spec.experts_routed
    if not experts or not spec.experts_per_token:
        return 1.0
    return 1 - (1 - min(1.0, spec.experts_per_token / experts)) ** max(1, tokens)


def decode_bytes_per_step(spec: ModelSpec, workload: Workload) -> int:
    """Weight and cache bytes one decode step reads for ``workload.concurrency`` sequences (§5.1)."""
    b = step_bytes(spec, workload)
    batch = max(1, int(workload.concurrency))
    return round(b.dense + b.experts * expert_share(spec, batch) + b.kv_per_request * batch)


def active_params(spec: ModelSpec) -> int:
    """Parameters one token multiplies (all of them for a dense model without an active count)."""
    return spec.params_active if spec.params_active > 0 else spec.params_total


def expert_active_params(spec: ModelSpec) -> float:
    """Routed-expert parameters one token multiplies: the experts' share k ÷ E of all routed-expert weights."""
    if not (spec.experts_routed and spec.experts_per_token):
        return 0.0
    share = min(1.0, spec.experts_per_token / spec.experts_routed)
    return min(spec.components.routed_experts * share, float(active_params(spec)))


def dense_active_params(spec: ModelSpec) -> float:
    """Active parameters outside the routed experts."""
    return active_params(spec) - expert_active_params(spec)


def attention_flops_per_token(spec: ModelSpec, span_tokens: int) -> float:
    """QKᵀ and AV for one new token against ``span_tokens`` cached ones, all attention layers: 4·span·H·d."""
    total = 0.0
    for group in spec.layer_groups:
        if group.kind not in (AttentionKind.FULL, AttentionKind.SLIDING, AttentionKind.MLA):
            continue
        span = span_tokens
        if group.kind is AttentionKind.SLIDING and group.window:
            span = min(span, group.window)
        total += group.count * 4 * span * spec.num_attention_heads * spec.head_dim
    return total


def fixed_step_s(spec: ModelSpec, profile: EngineSpeed) -> float:
    """Per step: layers × per-layer cost + MoE layers × dispatch cost + the engine's step cost."""
    layers = max(1, spec.num_layers)
    return (layers * profile.layer_us + spec.moe_layers * profile.moe_layer_us) * 1e-6 + profile.step_ms * 1e-3
