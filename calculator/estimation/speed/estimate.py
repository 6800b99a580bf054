"""Decode and prefill speed from a step-time model per engine (docs/methodology.md §5; SOURCES.md "Speed").

Decode step time = max(bytes read ÷ achieved bandwidth, FLOPs ÷ achieved FLOPs) + decoder layers × a fixed
per-layer cost (+ a per-MoE-layer cost) + a per-step engine cost + tensor-parallel all-reduces (or
expert-parallel all-to-alls) per layer (``speed/step_time.py``). Bytes read are the weights a step actually touches
(for MoE the distinct experts the batch routes to, §5.1) plus the KV cache of every sequence. Prefill reads the
weights once per micro-batch and is compute bound beyond that. Every result is marked estimated; a GPU without a
bandwidth or FLOPs figure yields ``None`` for what needs it and names the missing figure in ``missing``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol, cast

from models_catalog.architecture import AttentionKind, ModelSpec

from ..engines.dp_attention import attention_ranks, replicated_weight_bytes
from ..facts import spec_facts
from ..memory.estimate import estimate
from ..memory.fit import GpuLike, budget_bytes
from ..precision import PRECISIONS, get_precision
from ..workload import Workload
from .step_time import (
    EXPERT_IMBALANCE,
    EngineSpeed,
    Link,
    all_reduce_s,
    all_to_all_s,
    engine_speed,
    link_for,
)

# The band shown around the point estimate: the validation target for decode per request (±25 %, issue 16),
# rounded to ±20 % for the range readers see.
BAND = 0.2


class SpeedHardware(Protocol):
    @property
    def memory_bandwidth_gbps(self) -> float | None: ...

    @property
    def bf16_dense_tflops(self) -> float | None: ...

    @property
    def fp8_dense_tflops(self) -> float | None: ...


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


# GeForce cards run FP16 tensor math with FP32 accumulation at half the rate of FP16 accumulation (NVIDIA Ampere
# GA102 whitepaper: RTX 3090 71 vs 142 dense TFLOPS; Ada whitepaper: RTX 4090 165.2 vs 330.3); the BF16 figure on
# record is the FP32-accumulate one. llama.cpp's CUDA matrix products are not held to it: its quantized kernels
# (MMQ) multiply on the INT8 tensor cores and its FP16 products accumulate in FP16 (ggml-cuda), §5.5.
GEFORCE_FP16_ACCUMULATE = 2.0
_FULL_RATE_ENGINES = frozenset({"llama.cpp", "ollama"})


def _peak_flops(hardware: SpeedHardware, precision_key: str, engine: str = "") -> float | None:
    tflops = None
    if precision_key == "fp8":
        tflops = hardware.fp8_dense_tflops
    if tflops is None:
        tflops = hardware.bf16_dense_tflops or getattr(hardware, "fp16_tensor_dense_tflops", None)
    if not tflops:
        return None
    geforce = getattr(hardware, "vendor", "") == "NVIDIA" and getattr(hardware, "segment", "") == "consumer"
    if geforce and engine in _FULL_RATE_ENGINES:
        tflops *= GEFORCE_FP16_ACCUMULATE
    return tflops * 1e12


def _measured_peak_flops(hardware: object) -> float | None:
    """For hardware without vendor FLOPs on record: the peak that llama.cpp's prefill efficiency on its platform
    turns into its measured prompt-processing rate (the GPU's ``prefill_run``, §5.5), so every engine's own
    efficiency then applies to it."""
    run = getattr(hardware, "prefill_run", None)
    achieved = getattr(run, "achieved_flops", None)
    if not achieved:
        return None
    return float(achieved) / engine_speed("llama.cpp", _platform(hardware)).prefill_mfu


def _platform(hardware: object) -> str:
    return "metal" if getattr(hardware, "vendor", "") == "Apple" else "cuda"


@dataclass(frozen=True, slots=True)
class _Bytes:
    dense: float  # non-expert weights a step reads (input embedding excluded: one row per token)
    experts: float  # all routed-expert weights
    kv_per_request: float  # KV cache (and linear-attention state) of one sequence at ``context`` tokens
    quantized: bool  # weights under 8 bits: the engine's dequantizing GEMV reaches less of the bandwidth
    replicated: float = 0.0  # of ``dense``, what each data-parallel attention rank reads whole (dp_attention.py)
    attention_ranks: int = 1  # data-parallel attention ranks (1: none)


def _bytes(spec: ModelSpec, workload: Workload) -> _Bytes:
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
    ranks = _attention_ranks(spec, workload)
    replicated = 0.0
    if ranks > 1:
        # the input embedding each rank holds is read one row per token, like the one it replaces
        embedding = counts.embedding * bits.embedding if counts.lm_head else 0.0
        whole = replicated_weight_bytes(facts, precision, workload.engine) - embedding / 8
        replicated = min(dense_bits / 8, max(0.0, whole))
    return _Bytes(dense_bits / 8, expert_bits / 8, float(kv), quantized, replicated, ranks)


def _attention_ranks(spec: ModelSpec, workload: Workload) -> int:
    return attention_ranks(spec, workload.engine, workload.attention_data_parallel)


def _expert_share(spec: ModelSpec, tokens: int) -> float:
    """Share of the routed experts ``tokens`` tokens touch in one layer: 1 − (1 − k/E)^B (§5.1, uniform)."""
    experts = spec.experts_routed
    if not experts or not spec.experts_per_token:
        return 1.0
    return 1 - (1 - min(1.0, spec.experts_per_token / experts)) ** max(1, tokens)


def decode_bytes_per_step(spec: ModelSpec, workload: Workload) -> int:
    """Weight and cache bytes one decode step reads for ``workload.concurrency`` sequences (§5.1)."""
    b = _bytes(spec, workload)
    batch = max(1, int(workload.concurrency))
    return round(b.dense + b.experts * _expert_share(spec, batch) + b.kv_per_request * batch)


def _active_params(spec: ModelSpec) -> int:
    return spec.params_active if spec.params_active > 0 else spec.params_total


def _expert_active_params(spec: ModelSpec) -> float:
    """Routed-expert parameters one token multiplies: the experts' share k ÷ E of all routed-expert weights."""
    if not (spec.experts_routed and spec.experts_per_token):
        return 0.0
    share = min(1.0, spec.experts_per_token / spec.experts_routed)
    return min(spec.components.routed_experts * share, float(_active_params(spec)))


def _dense_active_params(spec: ModelSpec) -> float:
    return _active_params(spec) - _expert_active_params(spec)


def _attention_flops_per_token(spec: ModelSpec, span_tokens: int) -> float:
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


def _fixed_s(spec: ModelSpec, profile: EngineSpeed) -> float:
    """Per step: layers × per-layer cost + MoE layers × dispatch cost + the engine's step cost."""
    layers = max(1, spec.num_layers)
    return (layers * profile.layer_us + spec.moe_layers * profile.moe_layer_us) * 1e-6 + profile.step_ms * 1e-3


def _decode_step_s(
    spec: ModelSpec,
    b: _Bytes,
    batch: int,
    context: int,
    bandwidth: float,
    flops: float | None,
    gpus: int,
    profile: EngineSpeed,
    hardware: object,
    expert_parallel: bool,
    tokens_per_sequence: int = 1,
) -> tuple[float, str]:
    tokens = batch * tokens_per_sequence
    parallel = 1 if profile.layer_split else gpus
    efficiency = profile.quant_bandwidth_efficiency if b.quantized else profile.bandwidth_efficiency
    share = _expert_share(spec, tokens)
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
        work = 2 * _dense_active_params(spec) * tokens + _attention_flops_per_token(spec, context) * tokens
        work += 2 * _expert_active_params(spec) * tokens / max(1e-3, profile.moe_gemm_share)
        compute_s = work / (flops * parallel * profile.compute_efficiency)
    fixed = _fixed_s(spec, profile)
    comm = 0.0
    if parallel > 1:
        link = link_for(
            str(getattr(hardware, "slug", "")),
            getattr(hardware, "form_factor", None),
            str(getattr(hardware, "vendor", "")),
            parallel,
        )
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
    roofline = max(memory_s, compute_s)
    fixed += profile.sequence_layer_us * max(1, spec.num_layers) * batch * 1e-6
    bound = "compute" if compute_s >= memory_s else "memory"
    if fixed + comm > roofline:
        bound = "overhead"
    return roofline + fixed + comm, bound


def _prefill_s(
    spec: ModelSpec,
    b: _Bytes,
    tokens: int,
    bandwidth: float,
    flops: float,
    gpus: int,
    profile: EngineSpeed,
    hardware: object,
) -> float:
    """Time to prefill ``tokens`` prompt tokens of one request."""
    parallel = 1 if profile.layer_split else gpus
    # causal QKᵀ and AV: 2·T·span·H·d per layer, half of T tokens each attending to the whole span, §5.3
    attention = tokens * _attention_flops_per_token(spec, tokens) / 2
    work = 2 * _dense_active_params(spec) * tokens + attention
    work += 2 * _expert_active_params(spec) * tokens / max(1e-3, profile.moe_gemm_share)
    compute_s = work / (flops * parallel * profile.prefill_mfu)
    chunks = -(-tokens // max(1, profile.prefill_ubatch))
    chunk_tokens = min(tokens, profile.prefill_ubatch)
    weights = b.dense + b.experts * _expert_share(spec, chunk_tokens)
    memory_s = chunks * weights / parallel / (bandwidth * profile.bandwidth_efficiency)
    comm = 0.0
    if parallel > 1:
        link = link_for(
            str(getattr(hardware, "slug", "")),
            getattr(hardware, "form_factor", None),
            str(getattr(hardware, "vendor", "")),
            parallel,
        )
        comm = 2 * max(1, spec.num_layers) * chunks * all_reduce_s(link, parallel, chunk_tokens * spec.hidden_size * 2)
    return max(compute_s, memory_s) + chunks * _fixed_s(spec, profile) + comm


def max_concurrency(spec: ModelSpec, workload: Workload, hardware: object, gpu_count: int) -> int | None:
    """Requests of ``workload.context`` tokens whose KV cache fits beside the weights on ``gpu_count`` GPUs."""
    if not getattr(hardware, "capacity_bytes", None):
        return None
    budget = budget_bytes(cast(GpuLike, hardware), workload.engine)
    step = _attention_ranks(spec, workload)  # data-parallel attention: requests spread over the ranks evenly
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
    profile = engine_speed(workload.engine.lower(), _platform(hardware))
    b = _bytes(spec, workload)
    flops = _peak_flops(hardware, workload.precision.lower(), workload.engine.lower()) or _measured_peak_flops(hardware)
    rates: dict[int, tuple[float, float]] = {}
    for batch in batches:
        step, _ = _decode_step_s(spec, b, max(1, batch), context, bandwidth, flops, count, profile, hardware, False)
        per_request = 1.0 / step
        rates[batch] = (per_request * (1 - BAND), per_request * max(1, batch) * (1 - BAND))
    return rates


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
    profile = engine_speed(workload.engine.lower(), _platform(hardware))
    b = _bytes(spec, workload)
    bytes_per_step = round(b.dense + b.experts * _expert_share(spec, batch) + b.kv_per_request * batch)
    bandwidth = (hardware.memory_bandwidth_gbps or 0) * 1e9
    flops = _peak_flops(hardware, workload.precision.lower(), workload.engine.lower())
    flops_basis = "spec" if flops else ""
    if not flops:
        flops = _measured_peak_flops(hardware)
        flops_basis = "measured" if flops else ""
    missing = tuple(name for name, value in (("memory_bandwidth_gbps", bandwidth), ("tflops", flops)) if not value)
    per_request = total = step = ttft = prefill = None
    bound = "unknown"
    if bandwidth > 0:
        k = 1 + (speculative.draft_tokens if speculative else 0)
        step, bound = _decode_step_s(
            spec, b, batch, context, bandwidth, flops, count, profile, hardware, expert_parallel, k
        )
        tokens_per_step = 1.0
        if speculative:
            step *= 1 + speculative.draft_tokens * speculative.draft_cost
            tokens_per_step = speculative.tokens_per_step()
        per_request = tokens_per_step / step
        total = per_request * batch
        if flops:
            prompt = max(1, prompt_tokens if prompt_tokens is not None else context // 2)
            prefill_time = _prefill_s(spec, b, prompt, bandwidth, flops, count, profile, hardware)
            prefill = prompt / prefill_time
            ttft = prefill_time + step
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


@dataclass(frozen=True, slots=True)
class StepModel:
    """The cost of one engine step that mixes decode tokens and prefill chunks, from the same parts as ``speed``
    (weights read once per step, each sequence's cache read, FLOPs at the engine's decode or prefill efficiency,
    fixed costs, the all-reduces between tensor-parallel ranks); built once by ``step_model`` so a request-level
    simulation (speed/batching.py) can ask for thousands of steps."""

    weights_bytes: float  # dense weights one GPU reads per step (the replicated part whole)
    expert_bytes: float  # all routed experts one GPU holds
    experts_routed: int
    experts_per_token: int
    kv_bytes_per_token: float  # one GPU's share of one cached token, all layers
    bandwidth: float  # achieved bytes/s for weights
    decode_flops: float  # achieved FLOPs/s on decode tokens (0: unknown)
    prefill_flops: float  # achieved FLOPs/s on prefill tokens (0: unknown)
    params_flops: float  # FLOPs per token through the dense weights: 2 × active parameters outside routed experts
    expert_flops: float  # FLOPs per token through its routed experts
    moe_gemm_share: float  # the experts' grouped GEMMs reach this share of the dense efficiency
    sequence_s: float  # per running decode sequence per step (all layers)
    attention_flops_per_span: float  # QKᵀ and AV per token per cached token, full-attention layers
    sliding_flops_per_span: float  # the same for sliding-window layers, whose span stops at ``window``
    window: int
    fixed_s: float
    hidden: int
    layers: int
    parallel: int
    link: Link

    def seconds(
        self,
        decode_seqs: int,
        decode_context: int,
        prefill_tokens: int,
        prefill_span: float,
        prefill_window_span: float | None = None,
    ) -> float:
        """One step: ``decode_seqs`` sequences decode one token each with ``decode_context`` cached tokens between
        them; ``prefill_tokens`` prompt tokens are computed, attending to ``prefill_span`` cached tokens in all
        (the sum over the chunk's tokens of the tokens before each; ``prefill_window_span`` the same with each
        token's span cut at the sliding window)."""
        tokens = decode_seqs + prefill_tokens
        if tokens <= 0:
            return 0.0
        share = 1.0
        if self.experts_routed and self.experts_per_token:
            share = 1 - (1 - min(1.0, self.experts_per_token / self.experts_routed)) ** tokens
        read = self.weights_bytes + self.expert_bytes * share + self.kv_bytes_per_token * (decode_context + 0.0)
        memory_s = read / self.bandwidth
        compute_s = 0.0
        if self.decode_flops and self.prefill_flops:
            sliding_decode = min(decode_context, decode_seqs * self.window) if self.window else decode_context
            decode_work = self.params_flops * decode_seqs + self.attention_flops_per_span * decode_context
            decode_work += self.sliding_flops_per_span * sliding_decode
            prefill_work = self.params_flops * prefill_tokens
            window_span = prefill_span if prefill_window_span is None else prefill_window_span
            prefill_work += self.attention_flops_per_span * prefill_span + self.sliding_flops_per_span * window_span
            compute_s = decode_work / self.decode_flops + prefill_work / self.prefill_flops
            share = max(1e-3, self.moe_gemm_share)
            compute_s += self.expert_flops * decode_seqs / (self.decode_flops * share)
            compute_s += self.expert_flops * prefill_tokens / (self.prefill_flops * share)
        comm = 0.0
        if self.parallel > 1:
            comm = 2 * self.layers * all_reduce_s(self.link, self.parallel, tokens * self.hidden * 2)
        return max(memory_s, compute_s) + self.fixed_s + comm + self.sequence_s * decode_seqs


def step_model(spec: ModelSpec, workload: Workload, hardware: SpeedHardware, gpu_count: int = 1) -> StepModel | None:
    """The mixed-step cost of ``workload.engine`` running ``spec`` on ``gpu_count`` GPUs (tensor parallel); None
    without a bandwidth figure."""
    bandwidth = (hardware.memory_bandwidth_gbps or 0) * 1e9
    if bandwidth <= 0:
        return None
    count = max(1, gpu_count)
    profile = engine_speed(workload.engine.lower(), _platform(hardware))
    parallel = 1 if profile.layer_split else count
    b = _bytes(spec, replace(workload, attention_data_parallel=1))
    flops = _peak_flops(hardware, workload.precision.lower(), workload.engine.lower()) or _measured_peak_flops(hardware)
    efficiency = profile.quant_bandwidth_efficiency if b.quantized else profile.bandwidth_efficiency
    kv_split = 1 if spec.num_kv_heads <= 0 else min(parallel, max(1, spec.num_kv_heads))
    context = max(1, int(workload.context))
    full = sliding = 0.0
    window = 0
    for group in spec.layer_groups:
        per_span = group.count * 4 * spec.num_attention_heads * spec.head_dim
        if group.kind is AttentionKind.SLIDING and group.window:
            sliding += per_span
            window = group.window
        elif group.kind in (AttentionKind.FULL, AttentionKind.MLA, AttentionKind.SLIDING):
            full += per_span
    link = link_for(
        str(getattr(hardware, "slug", "")),
        getattr(hardware, "form_factor", None),
        str(getattr(hardware, "vendor", "")),
        parallel,
    )
    expert_active = _expert_active_params(spec)
    return StepModel(
        weights_bytes=b.dense / parallel,
        expert_bytes=b.experts / parallel,
        experts_routed=spec.experts_routed,
        experts_per_token=spec.experts_per_token,
        kv_bytes_per_token=b.kv_per_request / context / kv_split,
        bandwidth=bandwidth * efficiency,
        decode_flops=(flops or 0.0) * parallel * profile.compute_efficiency,
        prefill_flops=(flops or 0.0) * parallel * profile.prefill_mfu,
        params_flops=2.0 * (_active_params(spec) - expert_active),
        expert_flops=2.0 * expert_active,
        moe_gemm_share=profile.moe_gemm_share,
        sequence_s=profile.sequence_layer_us * max(1, spec.num_layers) * 1e-6,
        attention_flops_per_span=full,
        sliding_flops_per_span=sliding,
        window=window,
        fixed_s=_fixed_s(spec, profile),
        hidden=spec.hidden_size,
        layers=max(1, spec.num_layers),
        parallel=parallel,
        link=link,
    )
