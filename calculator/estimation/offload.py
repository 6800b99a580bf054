"""llama.cpp / Ollama: a GGUF model split over one or more GPUs and system RAM, and the best split that fits.

Where llama.cpp puts each tensor (ggml-org/llama.cpp at commit 145b6280d6aa1890e22457143dad0badb3fd6820):
- ``src/llama-model.cpp`` ``load_tensors``: the input layer (``token_embd``) always stays on the CPU; of the
  ``n_layer`` repeating layers the last ``n_gpu_layers`` go to the GPUs (``i_gpu_start = n_layer + 1 −
  n_gpu_layers``), the output layer (``output``, ``output_norm``) too once ``n_gpu_layers > n_layer``; several GPUs
  share the offloaded layers in proportion to their free memory (``--tensor-split`` default).
- ``common/arg.cpp``: ``-ot/--override-tensor exps=CPU`` and ``--cpu-moe`` keep every tensor whose name matches
  ``exps`` (the routed experts ``ffn_{gate,up,down}_exps``) in host memory; ``--n-cpu-moe N`` does so for the
  experts of layers 0 … N − 1 only. Attention, shared experts (``*_shexp``), norms, routers and the KV cache of
  those layers stay on their GPU.
- ``src/llama-kv-cache.cpp``: each layer's cache lives on that layer's device (``offload_kqv`` on by default).
- ``src/llama-context.cpp`` ``graph_reserve``: one compute buffer per device sized for a ``n_ubatch`` graph; when
  weights live in host memory, the scheduler copies a layer's weights to the GPU for large batches
  (``op_offload``), which adds that copy to the GPU's compute buffer (estimated: one layer's routed experts).

Bytes per tensor come from ``gguf.py`` (llama-quantize's type rules). Decode speed: the step-time model of
``speed.py`` / ``step_time.py`` for the GPU part plus the bytes the CPU reads from RAM at an achieved share of
the RAM bandwidth (estimated, SOURCES.md "Offload"). Pure Python, no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from models_catalog.architecture import ModelSpec

from .capacity import cuda_visible_bytes
from .gguf import FTYPE_DEFAULT, Role, gguf_size, tensor_bytes, tensor_types
from .kv import LLAMA_CPP_N_UBATCH
from .memo import per_spec
from .memory import estimate
from .overhead import LLAMA_CPP_FIT_MARGIN_BYTES
from .precision import get_precision
from .speed import _expert_share
from .step_time import engine_speed
from .workload import GIB, Breakdown, Workload

# Achieved share of the RAM's peak bandwidth when llama.cpp's CPU backend streams quantized weights (estimated:
# STREAM-like reads reach 70–85 % of DDR peak; dequantizing dot products lose a little more).
RAM_BANDWIDTH_EFFICIENCY = 0.6
# A desktop's RAM when the reader gives no figure: dual-channel DDR5-5600, 2 × 8 B × 5600 MT/s = 89.6 GB/s
# (JEDEC DDR5 transfer rate × 64-bit channel).
DEFAULT_RAM_BANDWIDTH_GBPS = 89.6
# What the operating system and other programs keep of the RAM (estimated, as fit.py's Mac reserve).
RAM_RESERVE_MIN_BYTES = 8 * GIB
# Host-side compute buffer ("CUDA_Host compute buffer size"): ≈ 8 fp32 rows of the hidden size per ubatch token
# (estimated from gpt-oss-120b's 47.5 MiB at ubatch 512, ollama/ollama issue #12403, 2025-09-26).
HOST_COMPUTE_ROWS = 8
# The quantized file readers pick when the page asks for a generic precision (llama.cpp has no fp8 or int4 type).
GGUF_FOR_PRECISION: Mapping[str, str] = {
    "fp32": "F32",
    "fp16": "F16",
    "bf16": "BF16",
    "fp8": "Q8_0",
    "int8": "Q8_0",
    "int4": "Q4_K_M",
    "awq": "Q4_K_M",
    "gptq": "Q4_K_M",
    "nf4": "Q4_K_M",
    "mxfp4": "MXFP4_MOE",
}
# Largest to smallest: the builds a reader tries in turn until one fits.
QUANT_LADDER: tuple[str, ...] = ("Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M", "Q3_K_M", "Q2_K", "IQ2_XXS", "IQ1_S")


class Placement(StrEnum):
    """How the model is split; the words a page shows come from calculator/term_text.py."""

    GPU = "gpu"  # every layer on the GPU(s) (-ngl 99)
    EXPERTS_CPU = "experts_cpu"  # all routed experts in RAM (-ot exps=CPU / --cpu-moe)
    N_CPU_MOE = "n_cpu_moe"  # the experts of the first N MoE layers in RAM (--n-cpu-moe N)
    LAYERS = "layers"  # the last N layers on the GPU(s), the rest with their cache on the CPU (-ngl N)
    NONE = "none"  # does not fit GPU and RAM together


@dataclass(frozen=True, slots=True)
class OffloadSplit:
    """Bytes on the GPU(s) and in RAM for one placement. ``gpu_bytes`` is all GPUs together."""

    ftype: str
    placement: Placement
    gpu_layers: int  # llama.cpp's -ngl value: repeating layers on GPU (+ 1 with the output layer)
    cpu_moe_layers: int  # MoE layers whose routed experts stay in RAM (--n-cpu-moe N)
    gpus: int
    gpu_weights_bytes: int
    gpu_kv_bytes: int
    gpu_compute_bytes: int  # all GPUs' compute buffers (op-offload copy included)
    gpu_extra_bytes: int  # mmproj and draft / MTP model when used
    host_weights_bytes: int
    host_kv_bytes: int
    host_compute_bytes: int  # CUDA_Host compute buffer + output (logits) buffer
    per_gpu_bytes: int  # the fullest GPU
    inputs: Mapping[str, int | float | str]
    estimated: bool = True

    @property
    def gpu_bytes(self) -> int:
        return self.gpu_weights_bytes + self.gpu_kv_bytes + self.gpu_compute_bytes + self.gpu_extra_bytes

    @property
    def host_bytes(self) -> int:
        return self.host_weights_bytes + self.host_kv_bytes + self.host_compute_bytes


@dataclass(frozen=True, slots=True)
class OffloadSpeed:
    """Decode tokens/s of one request (point estimate, ±20 % band as speed.py), and what limits it."""

    tokens_per_s: float | None
    low: float | None
    high: float | None
    limit: str  # "gpu_bandwidth" | "ram_bandwidth" | "overhead" | "unknown"
    gpu_read_bytes: int
    host_read_bytes: int
    inputs: Mapping[str, int | float | str]
    estimated: bool = True


@dataclass(frozen=True, slots=True)
class OffloadVerdict:
    """The best split that fits a reader's GPUs and RAM (or that nothing does), with its speed."""

    split: OffloadSplit
    fits: bool
    gpu_budget_bytes: int  # per GPU
    ram_budget_bytes: int
    speed: OffloadSpeed


@dataclass(frozen=True, slots=True)
class _Layer:
    experts: int  # routed-expert bytes
    rest: int  # attention, shared experts, norms, router


@dataclass(frozen=True, slots=True)
class _Tensors:
    ftype: str
    token_embd: int
    output: int  # output head, output norm and anything else outside the blocks
    layers: tuple[_Layer, ...]
    mmproj: int


def gguf_ftype_for(precision: str) -> str:
    """The llama.cpp file type for a precision key: a GGUF key as it is, a generic one as GGUF_FOR_PRECISION."""
    found = get_precision(precision)
    if found is not None and found.gguf_ftype:
        return found.gguf_ftype.upper()
    name = precision.lower()
    if name.upper() in FTYPE_DEFAULT:
        return name.upper()
    return GGUF_FOR_PRECISION.get(name, "Q4_K_M")


def _tensors(spec: ModelSpec, ftype: str) -> _Tensors:
    # one split search asks for the same per-layer bytes once per candidate split
    return per_spec("gguf-layers", spec, ftype, lambda: _count_tensors(spec, ftype))


def _count_tensors(spec: ModelSpec, ftype: str) -> _Tensors:
    layers = max(1, spec.num_layers)
    experts = [0] * layers
    rest = [0] * layers
    embd = outside = 0
    for tensor, type_name in tensor_types(spec, ftype):
        size = tensor_bytes(type_name, tensor.elements)
        if tensor.role is Role.TOKEN_EMBD:
            embd += size
        elif tensor.layer < 0:
            outside += size
        elif tensor.experts > 1:
            experts[tensor.layer] += size
        else:
            rest[tensor.layer] += size
    return _Tensors(
        ftype=ftype,
        token_embd=embd,
        output=outside,
        layers=tuple(_Layer(e, r) for e, r in zip(experts, rest, strict=True)),
        mmproj=gguf_size(spec, ftype).mmproj_bytes,
    )


def _estimate(spec: ModelSpec, workload: Workload) -> Breakdown:
    return estimate(spec, workload)  # remembered by the core per spec and workload


def _llama_workload(workload: Workload, ftype: str) -> Workload:
    engine = workload.engine if workload.engine in ("llama.cpp", "ollama") else "llama.cpp"
    return replace(workload, engine=engine, precision=f"gguf:{ftype.lower()}", weights_file_bytes=None)


def offload_split(
    spec: ModelSpec,
    workload: Workload,
    *,
    placement: Placement,
    gpus: int = 1,
    cpu_moe_layers: int = 0,
    gpu_layers: int | None = None,
    mmproj: bool = False,
    draft_bytes: int = 0,
) -> OffloadSplit:
    """Bytes on GPU and in RAM when llama.cpp runs ``spec`` in ``workload.precision`` (a GGUF type, or the type
    GGUF_FOR_PRECISION gives) with ``placement``. ``cpu_moe_layers``: for N_CPU_MOE, the MoE layers whose experts
    stay in RAM; ``gpu_layers``: for LAYERS, the -ngl value. ``mmproj``: the vision projector is loaded (on the
    GPU, llama-server's default); ``draft_bytes``: a draft or MTP model's weights and cache on the GPU."""
    ftype = gguf_ftype_for(workload.precision)
    t = _tensors(spec, ftype)
    n = len(t.layers)
    count = max(1, gpus)
    lw = _llama_workload(workload, ftype)
    breakdown = _estimate(spec, lw)
    kv_total = breakdown.kv_cache_bytes
    compute = breakdown.bytes_of("compute_buffer")
    output_buffer = breakdown.bytes_of("output_buffer_host")

    moe_first = n - max(0, min(n, spec.moe_layers))  # MoE layers follow the dense lead layers
    if placement is Placement.EXPERTS_CPU:
        cpu_moe = n  # every layer's experts
        on_gpu = n
    elif placement is Placement.N_CPU_MOE:
        cpu_moe = max(0, min(n, cpu_moe_layers))
        on_gpu = n
    elif placement is Placement.LAYERS:
        on_gpu = max(0, min(n + 1, gpu_layers if gpu_layers is not None else n + 1))
        cpu_moe = 0
    elif placement is Placement.NONE:
        on_gpu, cpu_moe = 0, 0
    else:
        on_gpu, cpu_moe = n + 1, 0
    first_gpu = n - min(n, on_gpu)  # llama.cpp offloads the last layers first
    output_on_gpu = placement in (Placement.GPU, Placement.EXPERTS_CPU, Placement.N_CPU_MOE) or on_gpu > n

    gpu_w = host_w = 0
    largest_cpu_experts = 0
    gpu_layer_count = 0
    for i, layer in enumerate(t.layers):
        if i < first_gpu:
            host_w += layer.experts + layer.rest
            continue
        gpu_layer_count += 1
        gpu_w += layer.rest
        # --n-cpu-moe N matches blk.0 … blk.N−1 by name; dense lead layers have no experts to move
        if i < cpu_moe and layer.experts:
            host_w += layer.experts
            largest_cpu_experts = max(largest_cpu_experts, layer.experts)
        else:
            gpu_w += layer.experts
    host_w += t.token_embd
    if output_on_gpu:
        gpu_w += t.output
    else:
        host_w += t.output
    kv_gpu = round(kv_total * gpu_layer_count / n) if n else 0
    kv_host = kv_total - kv_gpu
    on_any_gpu = gpu_layer_count > 0 or output_on_gpu
    # one compute buffer per GPU; weights in RAM that large batches use on the GPU are copied into it
    gpu_compute = (compute * count + largest_cpu_experts) if on_any_gpu else 0
    host_compute = 4 * LLAMA_CPP_N_UBATCH * HOST_COMPUTE_ROWS * max(1, spec.hidden_size) + output_buffer
    if not on_any_gpu:
        host_compute += compute
    extra = (t.mmproj if mmproj else 0) + max(0, draft_bytes)
    if not on_any_gpu:
        host_w += extra
        extra = 0
    shared = gpu_w + kv_gpu
    per_gpu = (-(-shared // count) + (compute if on_any_gpu else 0) + largest_cpu_experts + extra) if on_any_gpu else 0
    return OffloadSplit(
        ftype=ftype,
        placement=placement,
        gpu_layers=min(n + 1, on_gpu) if placement is not Placement.NONE else 0,
        cpu_moe_layers=cpu_moe,
        gpus=count,
        gpu_weights_bytes=gpu_w,
        gpu_kv_bytes=kv_gpu,
        gpu_compute_bytes=gpu_compute,
        gpu_extra_bytes=extra,
        host_weights_bytes=host_w,
        host_kv_bytes=kv_host,
        host_compute_bytes=host_compute,
        per_gpu_bytes=per_gpu,
        inputs={
            "ftype": ftype,
            "layers": n,
            "moe_layers": max(0, spec.moe_layers),
            "gpu_layer_count": gpu_layer_count,
            "experts_in_ram_layers": max(0, min(cpu_moe, n) - moe_first) if on_gpu else 0,
            "ubatch": LLAMA_CPP_N_UBATCH,
            "context": lw.context,
            "concurrency": lw.concurrency,
            "kv_dtype": lw.kv_dtype,
            "mmproj_bytes": t.mmproj if mmproj else 0,
            "draft_bytes": max(0, draft_bytes),
        },
    )


def gpu_budget_bytes(memory_gb: float) -> int:
    """What llama.cpp may fill on one GPU: the CUDA-visible total less its --fit margin of 1 GiB per device
    (common/common.h ``fit_params_target``; capacity.py's CUDA-visible share)."""
    return max(0, cuda_visible_bytes(memory_gb) - LLAMA_CPP_FIT_MARGIN_BYTES)


def ram_budget_bytes(ram_bytes: int) -> int:
    """RAM left to the model after the operating system's share: RAM − max(8 GiB, RAM / 8) (estimated)."""
    ram = max(0, int(ram_bytes))
    return max(0, ram - max(RAM_RESERVE_MIN_BYTES, ram // 8))


def _fits(split: OffloadSplit, gpu_budget: int, ram_budget: int) -> bool:
    return split.per_gpu_bytes <= gpu_budget and split.host_bytes <= ram_budget


def candidate_splits(
    spec: ModelSpec,
    workload: Workload,
    *,
    gpus: int = 1,
    mmproj: bool = False,
    draft_bytes: int = 0,
    experts_allowed: bool = True,
) -> list[OffloadSplit]:
    """Every split llama.cpp's options give, best first: all on GPU; experts of fewer to more MoE layers in RAM
    (--n-cpu-moe N, up to all: --cpu-moe); then fewer and fewer layers on the GPU (-ngl N down to 0).
    ``experts_allowed=False``: Ollama, which only splits by layer (num_gpu)."""
    return list(_candidates(spec, workload, gpus, mmproj, draft_bytes, experts_allowed))


def _phases(
    spec: ModelSpec, workload: Workload, gpus: int, mmproj: bool, draft_bytes: int, experts_allowed: bool
) -> list[list[Callable[[], OffloadSplit]]]:
    """The candidate splits in llama.cpp's order of preference, in phases, each split computed only when asked for:
    all on GPU; experts of fewer to more MoE layers in RAM (--n-cpu-moe N, up to all: --cpu-moe); then fewer and
    fewer layers on the GPU (-ngl N down to 0). Within a phase each next split moves weights from the GPUs to RAM,
    so the GPU bytes never grow and the host bytes never shrink along it."""
    n = max(1, spec.num_layers)

    def split(placement: Placement, **more: int) -> Callable[[], OffloadSplit]:
        return lambda: offload_split(
            spec, workload, placement=placement, gpus=gpus, mmproj=mmproj, draft_bytes=draft_bytes, **more
        )

    phases = [[split(Placement.GPU)]]
    if experts_allowed and spec.moe_layers and spec.experts_routed:
        dense_lead = n - min(n, spec.moe_layers)
        phases.append(
            [
                *(split(Placement.N_CPU_MOE, cpu_moe_layers=k) for k in range(dense_lead + 1, n)),
                split(Placement.EXPERTS_CPU),
            ]
        )
    phases.append([split(Placement.LAYERS, gpu_layers=ngl) for ngl in range(n, -1, -1)])
    return phases


def _candidates(
    spec: ModelSpec, workload: Workload, gpus: int, mmproj: bool, draft_bytes: int, experts_allowed: bool
) -> Iterator[OffloadSplit]:
    for phase in _phases(spec, workload, gpus, mmproj, draft_bytes, experts_allowed):
        for make in phase:
            yield make()


def best_split(
    spec: ModelSpec,
    workload: Workload,
    *,
    gpu_memory_gb: float,
    ram_bytes: int,
    gpus: int = 1,
    mmproj: bool = False,
    draft_bytes: int = 0,
    experts_allowed: bool = True,
) -> tuple[OffloadSplit, bool]:
    """The first split of ``candidate_splits`` that fits ``gpus`` GPUs of ``gpu_memory_gb`` and ``ram_bytes`` of
    RAM — what ``--fit`` (llama.cpp since late 2025) settles on — or the all-in-RAM one and False.

    Found by bisection within each phase (``_phases``): along a phase the GPU bytes only fall and the host bytes
    only rise, so the first split whose GPU share fits is the only one of the phase that can fit both budgets.
    ~14 splits computed instead of up to ~100 for a large MoE (tests check it against the scan of every split)."""
    gpu_budget = gpu_budget_bytes(gpu_memory_gb)
    ram_budget = ram_budget_bytes(ram_bytes)
    phases = _phases(spec, workload, gpus, mmproj, draft_bytes, experts_allowed)
    for phase in phases:
        low, high = 0, len(phase)  # the first index whose GPU share fits lies in [low, high]
        made: dict[int, OffloadSplit] = {}
        while low < high:
            middle = (low + high) // 2
            made[middle] = phase[middle]()
            if made[middle].per_gpu_bytes <= gpu_budget:
                high = middle
            else:
                low = middle + 1
        if low < len(phase):
            first = made.get(low) or phase[low]()
            if _fits(first, gpu_budget, ram_budget):
                return first, True
    last = phases[-1][-1]()  # -ngl 0: everything in RAM
    return replace(last, placement=Placement.NONE), False


def offload_speed(
    spec: ModelSpec,
    workload: Workload,
    split: OffloadSplit,
    *,
    gpu_bandwidth_gbps: float | None,
    ram_bandwidth_gbps: float | None = None,
) -> OffloadSpeed:
    """Decode tokens/s of one request for ``split``: GPU bytes a step reads ÷ (GPU bandwidth × η) + RAM bytes
    the CPU reads ÷ (RAM bandwidth × RAM_BANDWIDTH_EFFICIENCY) + llama.cpp's fixed per-layer and per-step costs
    (step_time.py). Bytes read: non-expert weights of the layers on each side (the input embedding is one row a
    token), routed experts at k/E (docs/methodology.md §5.1), each side's KV cache."""
    ram_bw = ram_bandwidth_gbps or DEFAULT_RAM_BANDWIDTH_GBPS
    t = _tensors(spec, split.ftype)
    n = len(t.layers)
    batch = max(1, workload.concurrency)
    share = _expert_share(spec, batch)
    first_gpu = n - min(n, split.gpu_layers) if split.placement is Placement.LAYERS else 0
    if split.placement is Placement.NONE:
        first_gpu = n
    cpu_moe = n if split.placement is Placement.EXPERTS_CPU else 0
    if split.placement is Placement.N_CPU_MOE:
        cpu_moe = split.cpu_moe_layers
    gpu_read = host_read = 0.0
    for i, layer in enumerate(t.layers):
        experts = layer.experts * share
        if i < first_gpu:
            host_read += layer.rest + experts
        elif i < cpu_moe:
            gpu_read += layer.rest
            host_read += experts
        else:
            gpu_read += layer.rest + experts
    if (split.placement is Placement.LAYERS and split.gpu_layers <= n) or split.placement is Placement.NONE:
        host_read += t.output
    else:
        gpu_read += t.output
    gpu_read += split.gpu_kv_bytes
    host_read += split.host_kv_bytes
    profile = engine_speed("llama.cpp", "cuda")
    quantized = get_precision(f"gguf:{split.ftype.lower()}")
    low_bits = quantized is not None and quantized.nominal_bits < 8
    efficiency = profile.quant_bandwidth_efficiency if low_bits else profile.bandwidth_efficiency
    inputs: dict[str, int | float | str] = {
        "gpu_read_bytes": round(gpu_read),
        "host_read_bytes": round(host_read),
        "gpu_bandwidth_gbps": gpu_bandwidth_gbps or 0,
        "ram_bandwidth_gbps": ram_bw,
        "gpu_efficiency": efficiency,
        "ram_efficiency": RAM_BANDWIDTH_EFFICIENCY,
        "ram_bandwidth_assumed": "default" if not ram_bandwidth_gbps else "given",
    }
    if not gpu_bandwidth_gbps and gpu_read > 0:
        return OffloadSpeed(None, None, None, "unknown", round(gpu_read), round(host_read), inputs)
    gpu_s = gpu_read / (gpu_bandwidth_gbps * 1e9 * efficiency) if gpu_bandwidth_gbps else 0.0
    host_s = host_read / (ram_bw * 1e9 * RAM_BANDWIDTH_EFFICIENCY)
    fixed = (max(1, spec.num_layers) * profile.layer_us + spec.moe_layers * profile.moe_layer_us) * 1e-6
    fixed += profile.step_ms * 1e-3
    if split.gpus > 1:
        fixed += (split.gpus - 1) * 20e-6
    step = gpu_s + host_s + fixed
    limit = "ram_bandwidth" if host_s >= gpu_s else "gpu_bandwidth"
    if fixed > gpu_s + host_s:
        limit = "overhead"
    rate = 1 / step
    inputs["step_s"] = step
    return OffloadSpeed(rate, rate * 0.8, rate * 1.2, limit, round(gpu_read), round(host_read), inputs)


def offload_verdict(
    spec: ModelSpec,
    workload: Workload,
    *,
    gpu_memory_gb: float,
    gpu_bandwidth_gbps: float | None,
    ram_bytes: int,
    gpus: int = 1,
    ram_bandwidth_gbps: float | None = None,
    mmproj: bool = False,
    draft_bytes: int = 0,
    experts_allowed: bool = True,
) -> OffloadVerdict:
    """The best split for a reader's ``gpus`` × ``gpu_memory_gb`` GPUs and ``ram_bytes`` of RAM, with its speed."""
    split, fits = best_split(
        spec,
        workload,
        gpu_memory_gb=gpu_memory_gb,
        ram_bytes=ram_bytes,
        gpus=gpus,
        mmproj=mmproj,
        draft_bytes=draft_bytes,
        experts_allowed=experts_allowed,
    )
    found = offload_speed(
        spec, workload, split, gpu_bandwidth_gbps=gpu_bandwidth_gbps, ram_bandwidth_gbps=ram_bandwidth_gbps
    )
    if not fits:
        found = OffloadSpeed(None, None, None, "unknown", 0, 0, found.inputs)
    return OffloadVerdict(split, fits, gpu_budget_bytes(gpu_memory_gb), ram_budget_bytes(ram_bytes), found)


def best_quant_verdict(
    spec: ModelSpec,
    workload: Workload,
    *,
    gpu_memory_gb: float,
    gpu_bandwidth_gbps: float | None,
    ram_bytes: int,
    gpus: int = 1,
    ram_bandwidth_gbps: float | None = None,
    ladder: Sequence[str] = QUANT_LADDER,
    experts_allowed: bool = True,
) -> OffloadVerdict:
    """The largest GGUF type of ``ladder`` that fits, as ``offload_verdict``; the smallest one's (not fitting)
    verdict when none does. gpt-oss is released in MXFP4: its MXFP4_MOE build comes first."""
    types = list(ladder)
    if spec.native_dtype == "mxfp4":
        types = ["MXFP4_MOE", *(t for t in types if t != "MXFP4_MOE")]
    verdict: OffloadVerdict | None = None
    for ftype in types:
        verdict = offload_verdict(
            spec,
            replace(workload, precision=ftype.lower()),
            gpu_memory_gb=gpu_memory_gb,
            gpu_bandwidth_gbps=gpu_bandwidth_gbps,
            ram_bytes=ram_bytes,
            gpus=gpus,
            ram_bandwidth_gbps=ram_bandwidth_gbps,
            experts_allowed=experts_allowed,
        )
        if verdict.fits:
            return verdict
    assert verdict is not None
    return verdict


def draft_model_bytes(draft: ModelSpec, workload: Workload, ftype: str = "Q8_0") -> int:
    """A draft model beside the target (llama-server -md): its GGUF weights and its own KV cache, on the GPU."""
    weights = gguf_size(draft, ftype).text_bytes
    kv = estimate(draft, _llama_workload(workload, ftype)).kv_cache_bytes
    return weights + kv


def mtp_bytes(spec: ModelSpec, ftype: str) -> int:
    """Multi-token-prediction layers loaded for MTP speculative decoding: their parameters at the build's average
    bits per parameter (estimated: the layers are quantized like the decoder layers they copy)."""
    size = gguf_size(spec, ftype)
    loaded = max(1, spec.params_total - max(0, spec.params_not_loaded) - spec.components.vision)
    return round(max(0, spec.params_not_loaded) * size.text_bytes / loaded)
