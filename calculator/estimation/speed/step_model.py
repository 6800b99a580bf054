"""The cost of one engine step that mixes decode tokens and prefill chunks (docs/methodology.md §5.6, §5.8), built once
per configuration so that a request-level simulation (speed/batching.py) and the planner can ask for thousands of steps.

Where the engine's kernels were measured on the GPU (speed/kernels.py: H100, H200, B200, A100, L40S … under vLLM,
SGLang or TensorRT-LLM, 16-bit or FP8 weights), a step is the sum of its kernels: the dense GEMMs and the fused-MoE
kernel at the share of the roofline they reach for the step's tokens, decode attention's fixed and per-sequence cost
plus its KV reads, prefill attention at its share of the FLOPs, the measured all-reduces, and the small kernels and
the engine's per-step work no table holds. Elsewhere (AMD, consumer cards, Apple, quantized weights under 8 bits,
llama.cpp) the roofline with the engine's calibrated efficiencies (speed/step_time.py). Pure Python.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from models_catalog.architecture import AttentionKind, ModelSpec

from ..engines.releases import sglang_gpu_defaults
from ..engines.versions import version_of
from ..workload import Workload
from .kernels import KernelTable, kernel_table
from .schedulers import vllm_policy
from .step_time import Link, all_reduce_s, engine_speed
from .work import (
    SpeedHardware,
    active_params,
    expert_active_params,
    fixed_step_s,
    link_of,
    measured_peak_flops,
    peak_flops,
    platform_of,
    step_bytes,
)

# What the kernel tables leave out, per decoder layer and step: RMSNorm twice, rotary embedding, the activation and
# the residual adds, about four small kernels of 2 µs each replayed in a CUDA graph; per MoE layer the router's
# softmax and top-k (estimated: kernel durations of that size in Nsight traces run 1.5–3 µs)
MEASURED_LAYER_RESIDUAL_US = 8.0
MEASURED_MOE_RESIDUAL_US = 6.0


@dataclass(frozen=True, slots=True)
class HostCost:
    """What the engine spends beside the GPU kernels' own time: per step and per request a step carries (scheduling,
    preparing the inputs, sampling, detokenizing and streaming the outputs), and per decoder layer (and MoE layer)
    of a step that runs without CUDA graphs, where every kernel is launched one by one from Python."""

    step_ms: float
    sequence_us: float
    eager_layer_us: float
    eager_moe_layer_us: float


# One set for vLLM and SGLang, calibrated on the serving benchmarks of both engines on A100, H100 and H200
# (calculator/validation/data/serving_gpustack.json and load.json: 12 models, vLLM 0.10–0.11 and SGLang 0.5) over a
# grid of 40–140 µs per request, 0–1,200 µs per eager layer and 0–800 µs per eager MoE layer, never per GPU or model,
# and checked on the other publishers' runs (serving_published.json: B200, H100, A100, MI355X, MI300X); the eager
# costs add to the kernels' time rather than hide behind it, which the same grid preferred (docs/methodology.md §5.8).
# Recalibrated 2026-12-05 when ShareGPT lengths came to be drawn from measured runs (speed/load_test.py): 100 µs per
# request (was 40 µs under the log-normal lengths, whose long tail had kept batches full and hidden the per-request
# cost; 978 calibration rows within: 65.3 % at 40, 66.0 % at 60, 66.1 % at 80, 66.6 % at 100, 65.6 % at 120, 64.3 %
# at 140 µs; eager layer 600 or 1,200 µs and MoE layer 300 or 800 µs read lower).
# TensorRT-LLM's C++ runtime is not calibrated: estimated from vLLM's step cost, without Python's per-layer launches.
HOST_COSTS: dict[str, HostCost] = {
    "vllm": HostCost(1.5, 100.0, 900.0, 500.0),
    "sglang": HostCost(1.5, 100.0, 900.0, 500.0),
    "tensorrt-llm": HostCost(1.0, 100.0, 0.0, 0.0),
}
# vLLM before 0.6 ran its HTTP server, scheduler and output processing in one process, in turn with the GPU's step
# (the vLLM blog, "vLLM v0.6.0: 2.7x Throughput Improvement and 5x Latency Reduction", 2024-09-05: on one H100 serving
# Llama 3 8B under v0.5.3 the API server took 33 % and scheduling 29 % of the time; 0.6.0 moved the server to its own
# process and overlapped the output processing with the next step). Its step and per-request costs were chosen on
# the 20 published vLLM 0.5.4 runs we hold (LambdaLabsML/vllm-benchmark: A100 and H100, 7B to 141B, TP 1–8; 100
# figures) among 1.5 ms + 100 µs (the current line's: 63 within), 3 ms + 200 µs (73) and 5 ms + 300 µs (65);
# one publisher's runs of one release, so a coarse choice, not a fit per row
VLLM_HOST_SPLIT = (0, 6)
VLLM_BEFORE_SPLIT = HostCost(3.0, 200.0, 900.0, 500.0)


def host_cost(engine: str, release: str) -> HostCost:
    """The host's cost per step of ``engine`` at ``release`` ("" for the current line)."""
    if engine == "vllm" and release and (version := version_of(release)) is not None and version < VLLM_HOST_SPLIT:
        return VLLM_BEFORE_SPLIT
    return HOST_COSTS.get(engine, HOST_COSTS["vllm"])


# The largest step a CUDA graph replays: vLLM V1 captures up to 512 tokens (max_cudagraph_capture_size,
# vllm/config/compilation.py), V0 decode batches up to 256 (_BATCH_SIZES_TO_CAPTURE) and never a prompt; SGLang
# decode batches up to cuda_graph_max_bs (engines/sglang_lines.py) and never a prefill ("extend") batch
VLLM_V1_GRAPH_TOKENS = 512
VLLM_V0_GRAPH_BATCH = 256


@dataclass(frozen=True, slots=True)
class Measured:
    """The nameplate figures a kernel table's shares apply to, and the layers its per-layer costs count."""

    table: KernelTable
    dtype: str  # "bf16" | "fp8": the GEMM and MoE curves read
    peak_bandwidth: float  # bytes/s
    peak_flops: float  # FLOPs/s at ``dtype``, one GPU
    peak_flops_16: float  # FLOPs/s at 16 bits (attention), one GPU
    attention_layers: int
    moe_layers: int
    host: HostCost


@dataclass(frozen=True, slots=True)
class StepModel:
    """One step's cost from the same parts as ``speed`` (weights read once per step, each sequence's cache read,
    FLOPs at the engine's decode or prefill efficiency, fixed costs, the all-reduces between tensor-parallel ranks),
    or from measured kernels where ``measured`` holds them."""

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
    measured: Measured | None = None
    graph_tokens: int = 0  # decode-only steps of at most this many tokens run as CUDA graphs (0: none)
    graph_with_prompts: bool = False  # steps that compute prompt tokens are replayed too (vLLM V1, up to the limit)

    def expert_share(self, tokens: int) -> float:
        if not (self.experts_routed and self.experts_per_token):
            return 1.0
        return 1 - (1 - min(1.0, self.experts_per_token / self.experts_routed)) ** tokens

    def attention_work(self, decode_seqs: int, decode_context: int, prefill_span: float, window_span: float) -> float:
        """QKᵀ and AV FLOPs of the step: decode tokens over their caches, prompt tokens over their spans."""
        sliding_decode = min(decode_context, decode_seqs * self.window) if self.window else decode_context
        decode = self.attention_flops_per_span * decode_context + self.sliding_flops_per_span * sliding_decode
        return decode + self.attention_flops_per_span * prefill_span + self.sliding_flops_per_span * window_span

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
        window_span = prefill_span if prefill_window_span is None else prefill_window_span
        if self.measured is not None:
            return self._measured_seconds(decode_seqs, decode_context, prefill_tokens, prefill_span, window_span)
        read = (
            self.weights_bytes
            + self.expert_bytes * self.expert_share(tokens)
            + self.kv_bytes_per_token * decode_context
        )
        memory_s = read / self.bandwidth
        compute_s = 0.0
        if self.decode_flops and self.prefill_flops:
            attention = self.attention_work(decode_seqs, decode_context, 0.0, 0.0)
            compute_s = (self.params_flops * decode_seqs + attention) / self.decode_flops
            prompt = self.attention_work(0, 0, prefill_span, window_span)
            compute_s += (self.params_flops * prefill_tokens + prompt) / self.prefill_flops
            share = max(1e-3, self.moe_gemm_share)
            compute_s += self.expert_flops * decode_seqs / (self.decode_flops * share)
            compute_s += self.expert_flops * prefill_tokens / (self.prefill_flops * share)
        return max(memory_s, compute_s) + self.fixed_s + self._comm_s(tokens) + self.sequence_s * decode_seqs

    def _comm_s(self, tokens: int) -> float:
        if self.parallel <= 1:
            return 0.0
        payload = tokens * self.hidden * 2  # one BF16 activation row per token
        measured = self.measured.table.all_reduce_s(self.parallel, payload) if self.measured else None
        one = measured if measured is not None else all_reduce_s(self.link, self.parallel, payload)
        return 2 * self.layers * one  # attention output + MLP output

    def _measured_seconds(
        self, decode_seqs: int, decode_context: int, prefill_tokens: int, prefill_span: float, window_span: float
    ) -> float:
        m = self.measured
        assert m is not None
        table, tokens = m.table, decode_seqs + prefill_tokens
        flops_per_gpu = tokens / self.parallel
        dense = max(self.weights_bytes / m.peak_bandwidth, self.params_flops * flops_per_gpu / m.peak_flops)
        total = dense / max(1e-3, table.gemm_efficiency(m.dtype, tokens) or 1.0)
        if self.expert_bytes:
            touched = self.expert_bytes * self.expert_share(tokens)
            moe = max(touched / m.peak_bandwidth, self.expert_flops * flops_per_gpu / m.peak_flops)
            total += moe / max(1e-3, table.moe_efficiency(m.dtype, tokens, self.parallel) or 1.0)
            total += m.moe_layers * MEASURED_MOE_RESIDUAL_US * 1e-6
        if decode_seqs:
            total += m.attention_layers * (table.attention_fixed_s + table.attention_sequence_s * decode_seqs)
            total += self.kv_bytes_per_token * decode_context / (m.peak_bandwidth * table.attention_kv_efficiency)
        if prefill_tokens and table.prefill_attention_efficiency > 0:
            work = self.attention_work(0, 0, prefill_span, window_span) / self.parallel
            total += work / (m.peak_flops_16 * table.prefill_attention_efficiency)
        total += self.layers * MEASURED_LAYER_RESIDUAL_US * 1e-6
        host = m.host.step_ms * 1e-3 + m.host.sequence_us * 1e-6 * tokens_requests(decode_seqs, prefill_tokens)
        if not self.graphed(tokens, prefill_tokens):
            host += (self.layers * m.host.eager_layer_us + m.moe_layers * m.host.eager_moe_layer_us) * 1e-6
        return total + host + self._comm_s(tokens)

    def graphed(self, tokens: int, prefill_tokens: int) -> bool:
        """Whether a step of ``tokens`` tokens, ``prefill_tokens`` of them prompt tokens, replays a CUDA graph."""
        if prefill_tokens and not self.graph_with_prompts:
            return False
        return tokens <= self.graph_tokens


def _measured(
    spec: ModelSpec, workload: Workload, hardware: SpeedHardware, quantized: bool, parallel: int
) -> Measured | None:
    """The kernel table for this step, where the GPU and engine were measured, the weights are 16-bit or FP8 and the
    GPUs run tensor parallel; None otherwise."""
    precision = workload.precision.lower()
    if quantized or precision not in ("bf16", "fp16", "fp8") or platform_of(hardware) != "cuda":
        return None
    table = kernel_table(hardware.slug, workload.engine.lower())
    bandwidth = (hardware.memory_bandwidth_gbps or 0) * 1e9
    flops = peak_flops(hardware, precision, workload.engine.lower())
    flops_16 = peak_flops(hardware, "bf16", workload.engine.lower())
    if table is None or not (bandwidth and flops and flops_16):
        return None
    if parallel > 1 and table.all_reduce_s(parallel, 1.0) is None:
        return None
    attention = sum(
        g.count for g in spec.layer_groups if g.kind in (AttentionKind.FULL, AttentionKind.MLA, AttentionKind.SLIDING)
    )
    dtype = "fp8" if precision == "fp8" else "bf16"
    host = host_cost(workload.engine.lower(), workload.engine_release)
    return Measured(table, dtype, bandwidth, flops, flops_16, attention, spec.moe_layers, host)


def tokens_requests(decode_seqs: int, prefill_tokens: int) -> int:
    """Requests a step carries: every decoding one, and (at least) one whose prompt chunk it computes."""
    return decode_seqs + (1 if prefill_tokens else 0)


def step_model(spec: ModelSpec, workload: Workload, hardware: SpeedHardware, gpu_count: int = 1) -> StepModel | None:
    """The mixed-step cost of ``workload.engine`` running ``spec`` on ``gpu_count`` GPUs (tensor parallel); None
    without a bandwidth figure."""
    bandwidth = (hardware.memory_bandwidth_gbps or 0) * 1e9
    if bandwidth <= 0:
        return None
    count = max(1, gpu_count)
    profile = engine_speed(workload.engine.lower(), platform_of(hardware))
    parallel = 1 if profile.layer_split else count
    b = step_bytes(spec, replace(workload, attention_data_parallel=1))
    flops = peak_flops(hardware, workload.precision.lower(), workload.engine.lower()) or measured_peak_flops(hardware)
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
    expert_active = expert_active_params(spec)
    measured = _measured(spec, workload, hardware, b.quantized, parallel)
    fixed = profile.step_ms * 1e-3 if measured is not None else fixed_step_s(spec, profile)
    return StepModel(
        weights_bytes=b.dense / parallel,
        expert_bytes=b.experts / parallel,
        experts_routed=spec.experts_routed,
        experts_per_token=spec.experts_per_token,
        kv_bytes_per_token=b.kv_per_request / context / kv_split,
        bandwidth=bandwidth * efficiency,
        decode_flops=(flops or 0.0) * parallel * profile.compute_efficiency,
        prefill_flops=(flops or 0.0) * parallel * profile.prefill_mfu,
        params_flops=2.0 * (active_params(spec) - expert_active),
        expert_flops=2.0 * expert_active,
        moe_gemm_share=profile.moe_gemm_share,
        sequence_s=profile.sequence_layer_us * max(1, spec.num_layers) * 1e-6,
        attention_flops_per_span=full,
        sliding_flops_per_span=sliding,
        window=window,
        fixed_s=fixed,
        hidden=spec.hidden_size,
        layers=max(1, spec.num_layers),
        parallel=parallel,
        link=link_of(hardware, parallel),
        measured=measured,
        graph_tokens=_graph_tokens(workload, hardware, parallel),
        graph_with_prompts=workload.engine.lower() == "vllm" and vllm_policy(workload.engine_release) == "mixed",
    )


def _graph_tokens(workload: Workload, hardware: SpeedHardware, gpus: int) -> int:
    """The largest step the engine replays as a CUDA graph (VLLM_V1_GRAPH_TOKENS …)."""
    engine = workload.engine.lower()
    if engine == "sglang":
        return sglang_gpu_defaults((hardware.capacity_bytes or 0) / 2**20, gpus)[1]
    if engine == "vllm":
        return VLLM_V1_GRAPH_TOKENS if vllm_policy(workload.engine_release) == "mixed" else VLLM_V0_GRAPH_BATCH
    return VLLM_V1_GRAPH_TOKENS
