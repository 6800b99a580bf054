"""Decode and prefill speed from a step-time model per engine (docs/methodology.md §5; SOURCES.md "Speed").

Decode step time = max(bytes read ÷ achieved bandwidth, FLOPs ÷ achieved FLOPs) + decoder layers × a fixed
per-layer cost (+ a per-MoE-layer cost) + a per-step engine cost + tensor-parallel all-reduces (or
expert-parallel all-to-alls) per layer (``speed/step_time.py``). Bytes read are the weights a step actually touches
(for MoE the distinct experts the batch routes to, §5.1) plus the KV cache of every sequence (``speed/work.py``).
Prefill reads the weights once per micro-batch and is compute bound beyond that. Every result is marked estimated;
a GPU without a bandwidth or FLOPs figure yields ``None`` for what needs it and names the missing figure in
``missing``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from models_catalog.architecture import ModelSpec

from ..memory.estimate import drafts_with_mtp, estimate
from ..memory.fit import budget_bytes
from ..workload import Workload
from .step_model import StepModel, step_model
from .step_time import EXPERT_IMBALANCE, EngineSpeed, all_reduce_s, all_to_all_s, engine_speed
from .work import (
    SpeedHardware,
    StepBytes,
    attention_flops_per_token,
    dense_active_params,
    expert_active_params,
    expert_share,
    fixed_step_s,
    link_of,
    measured_peak_flops,
    peak_flops,
    platform_of,
    step_bytes,
    workload_attention_ranks,
)

# The band shown around the point estimate: the validation target for decode per request (±25 %, issue 16),
# rounded to ±20 % for the range readers see.
BAND = 0.2


@dataclass(frozen=True, slots=True)
class Speculative:
    """Speculative decoding (MTP heads or a draft model): ``draft_tokens`` proposed per step, each accepted with
    probability ``acceptance``; a draft step costs ``draft_cost`` of a target step (MTP ≈ one layer)."""

    draft_tokens: int = 1
    acceptance: float = 0.7
    draft_cost: float = 0.05

    def tokens_per_step(self) -> float:
        """Expected tokens per verify step: (1 − α^(k+1)) / (1 − α) (Leviathan et al. 2023, eq. 1)."""
        a = min(0.999, max(0.0, self.acceptance))
        return (1 - a ** (self.draft_tokens + 1)) / (1 - a)


# DeepSeek-V3 Technical Report (arXiv 2412.19437) §5.4.3: with its MTP module predicting one more token, "the acceptance
# rate of the second token prediction ranges between 85% and 90%", and decoding reaches 1.8 times the tokens per
# second; the low end is taken. One draft token per step, as vLLM's GLM-5 recipe (--speculative-config.
# num_speculative_tokens 1) and SGLang's DeepSeek page run it.
MTP_ACCEPTANCE = 0.85
MTP_DRAFT_TOKENS = 1


def mtp_speculative(spec: ModelSpec, workload: Workload) -> Speculative | None:
    """The speculative decoding a workload's MTP draft runs (``Workload.mtp_draft``, memory/estimate.py
    ``drafts_with_mtp``): one draft token a step at DeepSeek-V3's published acceptance, a draft step costing its
    layers' share of the model's; None where the workload runs none."""
    if not drafts_with_mtp(spec, workload, workload.engine.lower()):
        return None
    layers = max(1, spec.num_layers)
    return Speculative(MTP_DRAFT_TOKENS, MTP_ACCEPTANCE, spec.mtp_layers / layers)


@dataclass(frozen=True, slots=True)
class SpeedEstimate:
    decode_tokens_per_s_low: float | None  # all requests together, lower end of the band
    decode_tokens_per_s_high: float | None
    per_request_tokens_per_s_low: float | None
    per_request_tokens_per_s_high: float | None
    prefill_tokens_per_s: float | None
    bytes_read_per_step: int
    bound: str  # "memory" | "compute" | "overhead" | "unknown"
    decode_per_request: float | None = None  # tokens/s one request sees (point estimate)
    decode_total: float | None = None  # tokens/s all ``concurrency`` requests together
    ttft_s: float | None = None  # time to first token for a prompt of ``prompt_tokens``
    step_s: float | None = None  # one decode step
    max_concurrency: int | None = None  # requests whose KV cache fits beside the weights (None: memory unknown)
    engine_profile: str = ""
    speculative: Speculative | None = None
    missing: tuple[str, ...] = ()  # hardware figures the estimate lacked ("memory_bandwidth_gbps", "tflops")
    estimated: bool = True
    # where the FLOPs behind prefill and batched decode come from: "spec" (the vendor's dense figure), "measured"
    # (a published llama.cpp prompt-processing run on this hardware), "" (none)
    flops_basis: str = ""


def _decode_step_s(
    spec: ModelSpec,
    b: StepBytes,
    batch: int,
    context: int,
    bandwidth: float,
    flops: float | None,
    gpus: int,
    profile: EngineSpeed,
    hardware: SpeedHardware,
    expert_parallel: bool,
    tokens_per_sequence: int = 1,
) -> tuple[float, str]:
    tokens = batch * tokens_per_sequence
    parallel = 1 if profile.layer_split else gpus
    efficiency = profile.quant_bandwidth_efficiency if b.quantized else profile.bandwidth_efficiency
    share = expert_share(spec, tokens)
    experts = b.experts * share
    if expert_parallel and gpus > 1 and tokens > 1:
        experts *= EXPERT_IMBALANCE
    kv_split = 1 if spec.num_kv_heads <= 0 else min(parallel, max(1, spec.num_kv_heads))
    per_gpu_bytes = (b.dense + experts) / parallel + b.kv_per_request * batch / kv_split
    if b.attention_ranks > 1 and parallel > 1:
        # each rank reads the layers it holds whole, its share of the rest, and only its own requests' cache
        own = -(-batch // b.attention_ranks)
        per_gpu_bytes = b.replicated + (b.dense - b.replicated + experts) / parallel + b.kv_per_request * own
    memory_s = per_gpu_bytes / (bandwidth * efficiency)
    compute_s = 0.0
    if flops:
        work = 2 * dense_active_params(spec) * tokens + attention_flops_per_token(spec, context) * tokens
        work += 2 * expert_active_params(spec) * tokens / max(1e-3, profile.moe_gemm_share)
        compute_s = work / (flops * parallel * profile.compute_efficiency)
    fixed = fixed_step_s(spec, profile)
    comm = _decode_comm_s(spec, b, hardware, gpus, parallel, tokens, expert_parallel)
    roofline = max(memory_s, compute_s)
    fixed += profile.sequence_layer_us * max(1, spec.num_layers) * batch * 1e-6
    bound = "compute" if compute_s >= memory_s else "memory"
    if fixed + comm > roofline:
        bound = "overhead"
    return roofline + fixed + comm, bound


def _decode_comm_s(
    spec: ModelSpec,
    b: StepBytes,
    hardware: SpeedHardware,
    gpus: int,
    parallel: int,
    tokens: int,
    expert_parallel: bool,
) -> float:
    """What one decode step of ``tokens`` tokens spends between the GPUs: all-reduces between tensor-parallel
    ranks, or all-to-alls to the experts (expert parallelism, data-parallel attention); one activation hop per
    boundary when the layers are split instead."""
    comm = 0.0
    if parallel > 1:
        link = link_of(hardware, parallel)
        payload = tokens * spec.hidden_size * 2  # one BF16 activation row per token
        layers = max(1, spec.num_layers)
        if b.attention_ranks > 1 and spec.moe_layers:
            # attention runs locally; tokens meet the experts through a dispatch and a combine per MoE layer
            dense_layers = layers - spec.moe_layers
            comm += 2 * dense_layers * all_reduce_s(link, parallel, payload)
            comm += 2 * spec.moe_layers * all_to_all_s(link, parallel, payload * max(1, spec.experts_per_token))
        elif expert_parallel and spec.moe_layers:
            dense_layers = layers - spec.moe_layers
            comm += 2 * dense_layers * all_reduce_s(link, parallel, payload)
            comm += spec.moe_layers * all_reduce_s(link, parallel, payload)  # attention output
            dispatch = payload * max(1, spec.experts_per_token)
            comm += 2 * spec.moe_layers * all_to_all_s(link, parallel, dispatch)
        else:
            comm += 2 * layers * all_reduce_s(link, parallel, payload)  # attention output + MLP output
    elif gpus > 1:  # layer split: one activation hop per boundary, latency-bound
        comm += (gpus - 1) * 20e-6
    return comm


def _prefill_s(
    spec: ModelSpec,
    b: StepBytes,
    tokens: int,
    bandwidth: float,
    flops: float,
    gpus: int,
    profile: EngineSpeed,
    hardware: SpeedHardware,
) -> float:
    """Time to prefill ``tokens`` prompt tokens of one request."""
    parallel = 1 if profile.layer_split else gpus
    # causal QKᵀ and AV: 2·T·span·H·d per layer, half of T tokens each attending to the whole span, §5.3
    attention = tokens * attention_flops_per_token(spec, tokens) / 2
    work = 2 * dense_active_params(spec) * tokens + attention
    work += 2 * expert_active_params(spec) * tokens / max(1e-3, profile.moe_gemm_share)
    compute_s = work / (flops * parallel * profile.prefill_mfu)
    chunks = -(-tokens // max(1, profile.prefill_ubatch))
    chunk_tokens = min(tokens, profile.prefill_ubatch)
    weights = b.dense + b.experts * expert_share(spec, chunk_tokens)
    memory_s = chunks * weights / parallel / (bandwidth * profile.bandwidth_efficiency)
    comm = 0.0
    if parallel > 1:
        link = link_of(hardware, parallel)
        comm = 2 * max(1, spec.num_layers) * chunks * all_reduce_s(link, parallel, chunk_tokens * spec.hidden_size * 2)
    return max(compute_s, memory_s) + chunks * fixed_step_s(spec, profile) + comm


def max_concurrency(spec: ModelSpec, workload: Workload, hardware: SpeedHardware, gpu_count: int) -> int | None:
    """Requests of ``workload.context`` tokens whose KV cache fits beside the weights on ``gpu_count`` GPUs."""
    if not hardware.capacity_bytes:
        return None
    budget = budget_bytes(hardware, workload.engine)
    step = workload_attention_ranks(spec, workload)  # data-parallel attention: requests spread over the ranks evenly
    one = estimate(spec, replace(workload, concurrency=step))
    two = estimate(spec, replace(workload, concurrency=2 * step))
    per_request = max(1.0, (two.total_bytes - one.total_bytes) / step)
    room = budget * max(1, gpu_count) - (one.total_bytes - per_request * step)
    return max(0, int(room // per_request))


def decode_rates(
    spec: ModelSpec, workload: Workload, hardware: SpeedHardware, gpu_count: int, batches: tuple[int, ...]
) -> dict[int, tuple[float, float]] | None:
    """{batch: (per-request tokens/s, all requests' tokens/s)}, low ends, for each batch size: the decode part of
    ``speed`` alone (same step time, no prefill or capacity), for searches along the batch curve; None without a
    bandwidth figure."""
    bandwidth = (hardware.memory_bandwidth_gbps or 0) * 1e9
    if bandwidth <= 0:
        return None
    count = max(1, gpu_count)
    context = max(1, int(workload.context))
    profile = engine_speed(workload.engine.lower(), platform_of(hardware))
    b = step_bytes(spec, workload)
    flops = peak_flops(hardware, workload.precision.lower(), workload.engine.lower()) or measured_peak_flops(hardware)
    measured = _measured_model(spec, workload, hardware, count, b)
    rates: dict[int, tuple[float, float]] = {}
    for batch in batches:
        if measured is not None:
            step = measured.seconds(max(1, batch), max(1, batch) * context, 0, 0.0)
        else:
            step, _ = _decode_step_s(spec, b, max(1, batch), context, bandwidth, flops, count, profile, hardware, False)
        per_request = 1.0 / step
        rates[batch] = (per_request * (1 - BAND), per_request * max(1, batch) * (1 - BAND))
    return rates


def _measured_model(
    spec: ModelSpec, workload: Workload, hardware: SpeedHardware, gpus: int, b: StepBytes
) -> StepModel | None:
    """The step model from measured kernels, where this GPU and engine have them and every GPU runs the layers
    tensor parallel (data-parallel attention keeps the roofline path, which models its ranks); None otherwise."""
    if b.attention_ranks > 1:
        return None
    model = step_model(spec, workload, hardware, gpus)
    return model if model is not None and model.measured is not None else None


def measured_prefill_s(model: StepModel, prompt: int, chunk: int) -> float:
    """One prompt of ``prompt`` tokens alone, in chunks of ``chunk`` tokens, each attending to those before it."""
    total, done = 0.0, 0
    while done < prompt:
        tokens = min(max(1, chunk), prompt - done)
        total += model.seconds(0, 0, tokens, tokens * done + tokens * (tokens - 1) / 2)
        done += tokens
    return total


def _flops_and_basis(hardware: SpeedHardware, workload: Workload) -> tuple[float | None, str]:
    """The peak FLOPs prefill and batched decode are computed from, and where they come from: "spec" (the vendor's
    dense figure), "measured" (a published prefill run on this hardware) or "" (none)."""
    flops = peak_flops(hardware, workload.precision.lower(), workload.engine.lower())
    flops_basis = "spec" if flops else ""
    if not flops:
        flops = measured_peak_flops(hardware)
        flops_basis = "measured" if flops else ""
    return flops, flops_basis


def _drafted(step: float, speculative: Speculative | None) -> tuple[float, float]:
    """A decode step with ``speculative``'s draft: (its time, the tokens it yields on average)."""
    if speculative is None:
        return step, 1.0
    return step * (1 + speculative.draft_tokens * speculative.draft_cost), speculative.tokens_per_step()


def _one_prompt_s(
    spec: ModelSpec,
    b: StepBytes,
    prompt: int,
    peaks: tuple[float, float],
    gpus: int,
    profile: EngineSpeed,
    hardware: SpeedHardware,
    measured: StepModel | None,
) -> float:
    """One prompt's prefill: from the measured kernels where ``measured`` holds them, the roofline otherwise
    (``peaks``: bandwidth and FLOPs per second)."""
    if measured is not None:
        return measured_prefill_s(measured, prompt, profile.prefill_ubatch)
    return _prefill_s(spec, b, prompt, peaks[0], peaks[1], gpus, profile, hardware)


def speed(
    spec: ModelSpec,
    workload: Workload,
    hardware: SpeedHardware,
    gpu_count: int = 1,
    *,
    prompt_tokens: int | None = None,
    speculative: Speculative | None = None,
    expert_parallel: bool = False,
) -> SpeedEstimate:
    """Decode tokens/s (per request and in total at ``workload.concurrency``), prefill tokens/s and the time to
    first token of a ``prompt_tokens`` prompt (default: half the context) on ``gpu_count`` GPUs of ``hardware``
    running ``workload.engine``."""
    count = max(1, gpu_count)
    batch = max(1, int(workload.concurrency))
    context = max(1, int(workload.context))
    profile = engine_speed(workload.engine.lower(), platform_of(hardware))
    speculative = speculative or mtp_speculative(spec, workload)
    b = step_bytes(spec, workload)
    bytes_per_step = round(b.dense + b.experts * expert_share(spec, batch) + b.kv_per_request * batch)
    bandwidth = (hardware.memory_bandwidth_gbps or 0) * 1e9
    flops, flops_basis = _flops_and_basis(hardware, workload)
    missing = tuple(name for name, value in (("memory_bandwidth_gbps", bandwidth), ("tflops", flops)) if not value)
    per_request = total = step = ttft = prefill = None
    bound = "unknown"
    if bandwidth > 0:
        k = 1 + (speculative.draft_tokens if speculative else 0)
        step, bound = _decode_step_s(
            spec, b, batch, context, bandwidth, flops, count, profile, hardware, expert_parallel, k
        )
        measured = None if expert_parallel else _measured_model(spec, workload, hardware, count, b)
        step = measured.seconds(batch * k, batch * k * context, 0, 0.0) if measured is not None else step
        step, tokens_per_step = _drafted(step, speculative)
        per_request = tokens_per_step / step
        total = per_request * batch
        if flops:
            prompt = max(1, prompt_tokens if prompt_tokens is not None else context // 2)
            prefill_time = _one_prompt_s(spec, b, prompt, (bandwidth, flops), count, profile, hardware, measured)
            prefill, ttft = prompt / prefill_time, prefill_time + step
    return SpeedEstimate(
        decode_tokens_per_s_low=None if total is None else total * (1 - BAND),
        decode_tokens_per_s_high=None if total is None else total * (1 + BAND),
        per_request_tokens_per_s_low=None if per_request is None else per_request * (1 - BAND),
        per_request_tokens_per_s_high=None if per_request is None else per_request * (1 + BAND),
        prefill_tokens_per_s=prefill,
        bytes_read_per_step=bytes_per_step,
        bound=bound,
        decode_per_request=per_request,
        decode_total=total,
        ttft_s=ttft,
        step_s=step,
        max_concurrency=max_concurrency(spec, workload, hardware, count),
        engine_profile=profile.key,
        speculative=speculative,
        missing=missing,
        flops_basis=flops_basis,
    )
