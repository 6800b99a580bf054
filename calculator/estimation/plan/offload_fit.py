"""llama.cpp / Ollama offload: the best split that fits a reader's GPUs and RAM, its decode speed, the verdict.

The splits themselves (where each tensor goes, in bytes) come from ``plan/offload.py``. The search tries them in the
order llama.cpp's options give (all on GPU, routed experts in RAM, fewer layers on the GPU), as ``--fit`` settles
on one. Decode speed: the step-time model of ``speed/estimate.py`` / ``speed/step_time.py`` for the GPU part plus the
bytes the CPU reads from RAM at an achieved share of the RAM bandwidth (estimated, SOURCES.md "Offload"). Pure Python,
no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

from models_catalog.architecture import ModelSpec

from ..memo import per_spec
from ..memory.overhead import LLAMA_CPP_FIT_MARGIN_BYTES
from ..precision import get_precision
from ..speed.step_time import engine_speed
from ..speed.work import expert_share
from ..workload import GIB, Workload
from .offload import OffloadSplit, Placement, gguf_layout, offload_split

# Achieved share of the RAM's peak bandwidth when llama.cpp's CPU backend streams quantized weights (estimated:
# STREAM-like reads reach 70–85 % of DDR peak; dequantizing dot products lose a little more).
RAM_BANDWIDTH_EFFICIENCY = 0.6
# A desktop's RAM when the reader gives no figure: dual-channel DDR5-5600, 2 × 8 B × 5600 MT/s = 89.6 GB/s
# (JEDEC DDR5 transfer rate × 64-bit channel).
DEFAULT_RAM_BANDWIDTH_GBPS = 89.6
# What the operating system and other programs keep of the RAM (estimated, as memory/fit.py's Mac reserve).
RAM_RESERVE_MIN_BYTES = 8 * GIB
# Largest to smallest: the builds a reader tries in turn until one fits.
QUANT_LADDER: tuple[str, ...] = ("Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M", "Q3_K_M", "Q2_K", "IQ2_XXS", "IQ1_S")


@dataclass(frozen=True, slots=True)
class OffloadSpeed:
    """Decode tokens/s of one request (point estimate, ±20 % band as speed/estimate.py), and what limits it."""

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


def gpu_budget_bytes(capacity_bytes: int) -> int:
    """What llama.cpp may fill on one GPU: the total its runtime reports (``GpuSpec.capacity_bytes``) less its --fit
    margin of 1 GiB per device (common/common.h ``fit_params_target``)."""
    return max(0, capacity_bytes - LLAMA_CPP_FIT_MARGIN_BYTES)


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
    gpu_capacity_bytes: int,
    ram_bytes: int,
    gpus: int = 1,
    mmproj: bool = False,
    draft_bytes: int = 0,
    experts_allowed: bool = True,
) -> tuple[OffloadSplit, bool]:
    """The first split of ``candidate_splits`` that fits ``gpus`` GPUs of ``gpu_capacity_bytes`` and ``ram_bytes`` of
    RAM — what ``--fit`` (llama.cpp since late 2025) settles on — or the all-in-RAM one and False.

    Found by bisection within each phase (``_phases``): along a phase the GPU bytes only fall and the host bytes
    only rise, so the first split whose GPU share fits is the only one of the phase that can fit both budgets.
    ~14 splits computed instead of up to ~100 for a large MoE (tests check it against the scan of every split)."""
    gpu_budget, ram_budget = gpu_budget_bytes(gpu_capacity_bytes), ram_budget_bytes(ram_bytes)
    firsts, last = _first_fitting(spec, workload, gpu_budget, gpus, mmproj, draft_bytes, experts_allowed)
    for first in firsts:
        if _fits(first, gpu_budget, ram_budget):
            return first, True
    return replace(last, placement=Placement.NONE), False


def _first_fitting(
    spec: ModelSpec,
    workload: Workload,
    gpu_budget: int,
    gpus: int,
    mmproj: bool,
    draft_bytes: int,
    experts_allowed: bool,
) -> tuple[tuple[OffloadSplit, ...], OffloadSplit]:
    """Each phase's first split whose GPU share fits ``gpu_budget``, in order, and the all-in-RAM split (-ngl 0).
    They do not depend on the RAM, so a machine that differs only in its RAM reuses them (remembered per spec)."""

    def found() -> tuple[tuple[OffloadSplit, ...], OffloadSplit]:
        phases = _phases(spec, workload, gpus, mmproj, draft_bytes, experts_allowed)
        firsts = []
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
                firsts.append(made.get(low) or phase[low]())
        return tuple(firsts), phases[-1][-1]()

    key = (workload, gpu_budget, gpus, mmproj, draft_bytes, experts_allowed)
    return per_spec("first-fitting-splits", spec, key, found)


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
    (speed/step_time.py). Bytes read: non-expert weights of the layers on each side (the input embedding is one row a
    token), routed experts at k/E (docs/methodology.md §5.1), each side's KV cache."""
    ram_bw = ram_bandwidth_gbps or DEFAULT_RAM_BANDWIDTH_GBPS
    gpu_read, host_read = _bytes_read(spec, workload, split)
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


def _bytes_read(spec: ModelSpec, workload: Workload, split: OffloadSplit) -> tuple[float, float]:
    """(bytes the GPUs read, bytes the CPU reads) in one decode step of ``split``: each side's layers (routed
    experts at the share the batch touches), the output where it sits, and each side's KV cache."""
    t = gguf_layout(spec, split.ftype)
    n = len(t.layers)
    batch = max(1, workload.concurrency)
    share = expert_share(spec, batch)
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
    return gpu_read, host_read


def offload_verdict(
    spec: ModelSpec,
    workload: Workload,
    *,
    gpu_capacity_bytes: int,
    gpu_bandwidth_gbps: float | None,
    ram_bytes: int,
    gpus: int = 1,
    ram_bandwidth_gbps: float | None = None,
    mmproj: bool = False,
    draft_bytes: int = 0,
    experts_allowed: bool = True,
) -> OffloadVerdict:
    """The best split for a reader's ``gpus`` GPUs of ``gpu_capacity_bytes`` each and ``ram_bytes`` of RAM, with
    its speed: the first verdict of ``verdict_ladder`` whose RAM share fits the RAM budget, or its last (nothing
    fits)."""
    ladder = verdict_ladder(
        spec,
        workload,
        gpu_capacity_bytes=gpu_capacity_bytes,
        gpu_bandwidth_gbps=gpu_bandwidth_gbps,
        gpus=gpus,
        ram_bandwidth_gbps=ram_bandwidth_gbps,
        mmproj=mmproj,
        draft_bytes=draft_bytes,
        experts_allowed=experts_allowed,
    )
    ram_budget = ram_budget_bytes(ram_bytes)
    found = next((v for v in ladder[:-1] if v.ram_budget_bytes <= ram_budget), ladder[-1])
    return OffloadVerdict(found.split, found.fits, found.gpu_budget_bytes, ram_budget, found.speed)


def verdict_ladder(
    spec: ModelSpec,
    workload: Workload,
    *,
    gpu_capacity_bytes: int,
    gpu_bandwidth_gbps: float | None,
    gpus: int = 1,
    ram_bandwidth_gbps: float | None = None,
    mmproj: bool = False,
    draft_bytes: int = 0,
    experts_allowed: bool = True,
) -> tuple[OffloadVerdict, ...]:
    """``offload_verdict`` for every RAM size at once: the verdicts in the order ``best_split`` tries them — each
    phase's first split that fits the GPUs (``_first_fitting``), its ``ram_budget_bytes`` the least RAM budget that
    holds it — then the verdict when none fits (-ngl 0, no speed). A RAM budget takes the first verdict whose RAM
    share it holds. Remembered per spec, so machines that differ only in their RAM (a reader typing a RAM size)
    look one up."""

    def found() -> tuple[OffloadVerdict, ...]:
        gpu_budget = gpu_budget_bytes(gpu_capacity_bytes)
        firsts, last = _first_fitting(spec, workload, gpu_budget, gpus, mmproj, draft_bytes, experts_allowed)

        def speed(split: OffloadSplit) -> OffloadSpeed:
            return offload_speed(
                spec, workload, split, gpu_bandwidth_gbps=gpu_bandwidth_gbps, ram_bandwidth_gbps=ram_bandwidth_gbps
            )

        fitting = [OffloadVerdict(s, True, gpu_budget, s.host_bytes, speed(s)) for s in firsts]
        none = replace(last, placement=Placement.NONE)
        unknown = OffloadSpeed(None, None, None, "unknown", 0, 0, speed(none).inputs)
        return (*fitting, OffloadVerdict(none, False, gpu_budget, 0, unknown))

    key = (workload, gpu_capacity_bytes, gpu_bandwidth_gbps, gpus, ram_bandwidth_gbps, mmproj, draft_bytes)
    return per_spec("offload-verdict-ladder", spec, (*key, experts_allowed), found)


def best_quant_verdict(
    spec: ModelSpec,
    workload: Workload,
    *,
    gpu_capacity_bytes: int,
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
            gpu_capacity_bytes=gpu_capacity_bytes,
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
