"""Decode and prefill speed from memory bandwidth and FLOPs (docs/methodology.md §5).

Decode reads every active weight byte and the KV cache once per step; prefill is compute bound. Efficiencies
are ranges, not constants: η_BW 0.5–0.8 (§5.4, a rule of thumb calibrated per engine) and an assumed prefill
MFU of 0.4 (PaLM reached 46.2 % in training, §5.4). Every result is marked estimated.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from models_catalog.architecture import AttentionKind, ModelSpec

from .facts import spec_facts
from .memory import estimate
from .precision import PRECISIONS, get_precision
from .workload import Workload

BANDWIDTH_EFFICIENCY_LOW = 0.5
BANDWIDTH_EFFICIENCY_HIGH = 0.8
COMPUTE_EFFICIENCY = 0.5  # decode above the ridge point (assumed)
PREFILL_MFU = 0.4  # assumed


class SpeedHardware(Protocol):
    @property
    def memory_bandwidth_gbps(self) -> float | None: ...

    @property
    def bf16_dense_tflops(self) -> float | None: ...

    @property
    def fp8_dense_tflops(self) -> float | None: ...


@dataclass(frozen=True, slots=True)
class SpeedEstimate:
    decode_tokens_per_s_low: float | None  # all requests together, η_BW = 0.5
    decode_tokens_per_s_high: float | None  # η_BW = 0.8
    per_request_tokens_per_s_low: float | None
    per_request_tokens_per_s_high: float | None
    prefill_tokens_per_s: float | None
    bytes_read_per_step: int
    bound: str  # "memory" | "compute" | "unknown"
    # named inputs of the decode and prefill formulas, worded by the site's translations (calculator/term_text.py)
    formula_inputs: Mapping[str, int | float]


def _peak_flops(hardware: SpeedHardware, precision_key: str) -> float | None:
    tflops = None
    if precision_key == "fp8":
        tflops = hardware.fp8_dense_tflops
    if tflops is None:
        tflops = hardware.bf16_dense_tflops or getattr(hardware, "fp16_tensor_dense_tflops", None)
    return tflops * 1e12 if tflops else None


def decode_bytes_per_step(spec: ModelSpec, workload: Workload) -> int:
    """Weight and cache bytes one decode step reads for ``workload.concurrency`` sequences (§5.1)."""
    facts = spec_facts(spec)
    precision = get_precision(workload.precision) or PRECISIONS["fp16"]
    counts = facts.counts if workload.load_mtp_layers else facts.counts_without_mtp
    bits = precision.bits(counts, facts.layer_facts)
    expert_bits = counts.experts * bits.experts + counts.experts_down * bits.experts_down
    dense_bits = sum(c * b for c, b in zip(counts, bits, strict=True)) - expert_bits
    if counts.lm_head:  # the input embedding is read one row per token
        dense_bits -= counts.embedding * bits.embedding
    dense_bits -= counts.vision * bits.vision
    batch = max(1, int(workload.concurrency))
    experts = facts.layer_facts.experts_routed
    share = 1.0
    if experts and spec.experts_per_token:
        # distinct experts a step touches under uniform routing: E·(1 − (1 − k/E)^B) (§5.1)
        share = 1 - (1 - min(1.0, spec.experts_per_token / experts)) ** batch
    cache = estimate(spec, workload).kv_cache_bytes
    return round((dense_bits + expert_bits * share) / 8) + cache


def speed(spec: ModelSpec, workload: Workload, hardware: SpeedHardware, gpu_count: int = 1) -> SpeedEstimate:
    """Decode tokens/s (range) and prefill tokens/s for ``workload`` on ``gpu_count`` GPUs of ``hardware``."""
    count = max(1, gpu_count)
    bytes_per_step = decode_bytes_per_step(spec, workload)
    bandwidth = (hardware.memory_bandwidth_gbps or 0) * 1e9 * count
    flops = _peak_flops(hardware, workload.precision.lower())
    batch = max(1, int(workload.concurrency))
    active = spec.params_active if spec.params_active > 0 else spec.params_total
    compute_time = 2 * active * batch / (flops * count * COMPUTE_EFFICIENCY) if flops else 0.0
    low = high = per_low = per_high = None
    bound = "unknown"
    if bandwidth > 0:
        t_low = max(bytes_per_step / (bandwidth * BANDWIDTH_EFFICIENCY_LOW), compute_time)
        t_high = max(bytes_per_step / (bandwidth * BANDWIDTH_EFFICIENCY_HIGH), compute_time)
        bound = "compute" if compute_time >= bytes_per_step / (bandwidth * BANDWIDTH_EFFICIENCY_HIGH) else "memory"
        low, high = batch / t_low, batch / t_high
        per_low, per_high = 1 / t_low, 1 / t_high
    prefill = None
    if flops:
        tokens = max(1, int(workload.context))
        attention = 0
        for group in spec.layer_groups:
            span = tokens
            if group.kind is AttentionKind.SLIDING and group.window:
                span = min(tokens, group.window)
            if group.kind in (AttentionKind.FULL, AttentionKind.SLIDING, AttentionKind.MLA):
                # causal QKᵀ and AV: 2·T·span·H·d per layer (half of 4·T·span·H·d)
                attention += group.count * 2 * tokens * span * spec.num_attention_heads * spec.head_dim
        total_flops = 2 * active * tokens + attention
        prefill = tokens / (total_flops / (flops * count * PREFILL_MFU))
    return SpeedEstimate(
        decode_tokens_per_s_low=low,
        decode_tokens_per_s_high=high,
        per_request_tokens_per_s_low=per_low,
        per_request_tokens_per_s_high=per_high,
        prefill_tokens_per_s=prefill,
        bytes_read_per_step=bytes_per_step,
        bound=bound,
        formula_inputs={
            "batch": batch,
            "bytes_per_step": bytes_per_step,
            "gpus": count,
            "bandwidth_gbps": hardware.memory_bandwidth_gbps or 0,
            "efficiency_low": BANDWIDTH_EFFICIENCY_LOW,
            "efficiency_high": BANDWIDTH_EFFICIENCY_HIGH,
            "active": active,
            "mfu": PREFILL_MFU,
        },
    )
