"""Hardware-first questions as data: "can this model run on that GPU or Mac", and "which models fit this GPU".

Like ``calculator.page``, plain data in (a spec, its builds, offers, the GPU catalog) and dataclasses out; the views
read the database and the templates print.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from calculator.estimation import (
    RankedOffer,
    Workload,
    budget_bytes,
    estimate,
    gpus_needed,
    max_concurrency,
    max_context,
    rank,
    reference_gpus_needed,
    run_count,
)
from calculator.estimation.engines.builds import released_precision
from calculator.estimation.engines.kernels import KernelRule, blocking_rule
from calculator.estimation.memory.fit import per_gpu_overhead_bytes
from calculator.estimation.plan.deployment import gpu_plan, mac_plan_for_need
from calculator.page import Build, UnifiedMemory
from calculator.page.gpus import KERNEL_NOTES
from calculator.page.machines import (
    Hardware,
    Option,
    engine_for,
    engine_format,
    hardware_for,
    option_workload,
    popular_hardware,
    verdict_on,
)
from models_catalog.architecture import ModelSpec
from pricing.gpus import GpuSpec
from pricing.offers import OfferRecord

__all__ = [
    "CapacityRow",
    "Hardware",
    "ModelFit",
    "RunsOn",
    "capacity_comparison",
    "gpu_fit_formats",
    "hardware_for",
    "models_on_gpu",
    "popular_hardware",
    "runs_on",
]


@dataclass(frozen=True, slots=True)
class RunsOn:
    hardware: Hardware
    options: tuple[Option, ...]  # widest first
    best: Option | None  # the widest option that fits one unit and is no wider than the release
    max_context: int  # for one request, at the best option
    max_concurrency: int  # at the default context, at the best option
    decode_low: float | None  # tokens/s for one request at the best option (GPUs with a bandwidth figure)
    decode_high: float | None
    wired_limit_mb: int | None  # the sysctl value when a Mac needs its limit raised
    fits_default_on_26: bool  # a Mac that needs raising on macOS 15 holds the best option out of the box on macOS 26
    rent: RankedOffer | None  # the cheapest current offer of this GPU type for the best option (or the released one)
    smallest: Option  # the option that needs least (the last): what the page names when nothing fits one unit
    kernels: KernelRule | None = None  # the engine has no kernels for the model's attention on this GPU

    @property
    def kernels_note(self) -> str:
        """Why the model cannot start on this GPU, in the reader's language ("" when it can)."""
        return str(KERNEL_NOTES[(self.kernels.engine, self.kernels.feature)]) if self.kernels else ""


def runs_on(
    spec: ModelSpec,
    builds: Sequence[Build],
    hardware: Hardware,
    offers: Sequence[OfferRecord],
    gpus: Sequence[GpuSpec],
) -> RunsOn:
    """Whether the model runs on one unit of ``hardware``, at which precision or build, how far it stretches."""
    by_key = {b.key: b for b in builds if b.file_size_bytes}
    verdict = verdict_on(spec, builds, hardware)
    options, best, as_released = verdict.options, verdict.best, verdict.as_released
    longest = most = 0
    low = high = None
    wired = None
    newer = False
    if best is not None:
        base = option_workload(best.key, by_key, hardware.engine)
        device = hardware.gpu or UnifiedMemory(
            hardware.key, hardware.name, hardware.budget_bytes, hardware.budget_bytes
        )
        longest = max_context(spec, replace(base, concurrency=1), device, 1, budget_bytes=hardware.budget_bytes)
        most = max_concurrency(spec, base, device, 1, budget_bytes=hardware.budget_bytes)
        if hardware.gpu is not None:
            plan = gpu_plan(spec, base, hardware.gpu, need_bytes=best.need_bytes)
            low, high = plan.tokens_per_s_low, plan.tokens_per_s_high
        if best.mac is not None and not best.fits_default:
            wired = best.mac.wired_limit_mb
            newer = (
                best.mac.macos != "26"
                and mac_plan_for_need(best.need_bytes, best.mac.ram_bytes, "26").verdict == "fits"
            )
    rent = None
    if hardware.gpu is not None and verdict.kernels is None:  # nothing to rent where the model cannot start
        family = [o for o in offers if o.gpu_slug in {g.slug for g in gpus if g.family == hardware.gpu.family}]
        target = best or as_released
        ranking = rank(target.need_bytes, family, gpus, engine=hardware.engine, per_gpu_bytes=target.per_gpu_bytes)
        rent = ranking.cheapest
    return RunsOn(
        hardware=hardware,
        options=tuple(options),
        best=best,
        max_context=longest,
        max_concurrency=most,
        decode_low=low,
        decode_high=high,
        wired_limit_mb=wired,
        fits_default_on_26=newer,
        rent=rent,
        smallest=options[-1],
        kernels=verdict.kernels,
    )


@dataclass(frozen=True, slots=True)
class ModelFit:
    """How many of one GPU type a catalog model takes as released and at the generic 8- and 4-bit precisions
    (default inference workload)."""

    url: str
    display_name: str
    params_billions: float | None
    counts: tuple[tuple[str, int], ...]  # (precision, GPUs needed, fit.run_count): as released, 8-bit, 4-bit
    starts: bool = True  # False: the GPU's engine has no kernels for the model's attention (engines/kernels.py)


def gpu_fit_formats(gpu: GpuSpec) -> tuple[str, str]:
    """The 8- and 4-bit formats a GPU type's engine loads (machines.engine_format): the "which models fit" columns."""
    engine = engine_for(gpu)
    return engine_format("int8", engine), engine_format("int4", engine)


def _count(spec: ModelSpec, workload: Workload, gpu: GpuSpec) -> int:
    """GPUs of ``gpu`` an engine runs ``workload`` on, each holding its own start-up budget (fit.run_count)."""
    breakdown = estimate(spec, workload)
    return run_count(breakdown.total_bytes, gpu, workload.engine, per_gpu_overhead_bytes(breakdown))


def models_on_gpu(models: Sequence[tuple[str, str, float | None, ModelSpec]], gpu: GpuSpec) -> list[ModelFit]:
    """For each (url, name, billions, spec): GPUs of ``gpu`` it needs as released and at the 8- and 4-bit formats
    the GPU's engine loads, fewest first."""
    engine = engine_for(gpu)
    fits = []
    for url, name, billions, spec in models:
        precisions = (released_precision(spec.native_dtype), *gpu_fit_formats(gpu))
        counts = tuple((p, _count(spec, Workload(precision=p, engine=engine), gpu)) for p in precisions)
        starts = blocking_rule(spec, engine, gpu.architecture) is None
        fits.append(ModelFit(url, name, billions, counts, starts))
    fits.sort(key=lambda f: (not f.starts, min(c for _p, c in f.counts), -(f.params_billions or 0)))
    return fits


# The reference page's FP16 need for GLM-5.3-Flash (708 GB): the methodology page counts GPUs for it both ways.
REFERENCE_NEED_BYTES = 708 * 10**9
COMPARED_GPUS: tuple[str, ...] = ("mi300x", "h200-sxm", "b300", "b200", "h100-sxm", "a100-80gb-sxm", "l40s", "rtx-4090")


@dataclass(frozen=True, slots=True)
class CapacityRow:
    """One GPU type: the size on the box, what its runtime reports, and the GPUs a need takes by either rule."""

    gpu: GpuSpec
    capacity_bytes: int
    basis: str  # "reported" | "nvidia-smi" | "nameplate"
    source: str | None  # the public log the figure was read from
    budget_bytes: int  # vLLM's share at --gpu-memory-utilization 0.9
    reference_count: int  # 90 % of the nameplate (the reference page)
    runtime_count: int  # on what the runtime reports


def capacity_comparison(gpus: Sequence[GpuSpec], need_bytes: int = REFERENCE_NEED_BYTES) -> tuple[CapacityRow, ...]:
    """The methodology page's table: for the GPU types in ``COMPARED_GPUS``, the GPUs ``need_bytes`` takes by the
    reference page's rule and by ours."""
    by_slug = {g.slug: g for g in gpus}
    rows = []
    for slug in COMPARED_GPUS:
        gpu = by_slug.get(slug)
        if gpu is None:
            continue
        report = gpu.capacity_report
        rows.append(
            CapacityRow(
                gpu=gpu,
                capacity_bytes=gpu.capacity_bytes,
                basis=gpu.capacity_basis,
                source=report.source if report is not None else None,
                budget_bytes=budget_bytes(gpu),
                reference_count=reference_gpus_needed(need_bytes, gpu.memory_bytes),
                runtime_count=gpus_needed(need_bytes, gpu),
            )
        )
    return tuple(rows)
