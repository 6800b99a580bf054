"""Hardware-first questions as data: "can this model run on that GPU or Mac", and "which models fit this GPU".

Like ``calculator.page``, plain data in (a spec, its builds, offers, the GPU catalog) and dataclasses out; the views
read the database and the templates print.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from calculator.estimation import (
    GIB,
    Mode,
    RankedOffer,
    Workload,
    apple_fit,
    estimate,
    gpus_needed,
    max_concurrency,
    max_context,
    rank,
    speed,
    usable_bytes,
)
from calculator.estimation.builds import released_precision
from calculator.page import Build, UnifiedMemory, precision_label
from calculator.state import MAC_MEMORY_GIB, MAC_PREFIX
from models_catalog.architecture import ModelSpec
from pricing.gpus import GpuSpec
from pricing.offers import OfferRecord

GENERIC = ("fp16", "fp8", "int8", "int4")
DEFAULT_CONTEXT = 8192
# The hardware readers ask about most, each with a "can it run" page per model (datacenter, workstation,
# consumer GPUs, and Macs by unified memory).
POPULAR_GPUS: tuple[str, ...] = (
    "h100-sxm",
    "h200-sxm",
    "b200",
    "a100-80gb-sxm",
    "l40s",
    "mi300x",
    "rtx-pro-6000-blackwell",
    "rtx-5090",
    "rtx-4090",
    "rtx-3090",
)
POPULAR_MACS: tuple[int, ...] = (24, 36, 64, 128, 192, 512)
LOCAL_SEGMENTS = ("consumer", "workstation", "apple", "unified-desktop")


@dataclass(frozen=True, slots=True)
class Hardware:
    """A GPU type (one card) or a Mac by unified memory, as the reader picks it."""

    key: str  # the URL's part: a GPU slug or "mac-128"
    name: str
    gpu: GpuSpec | None
    mac_gib: int | None
    budget_bytes: int  # what one unit may hold: 90 % of a GPU, or a Mac's GPU limit after raising it
    default_budget_bytes: int  # a Mac's out-of-the-box GPU limit; a GPU's 90 % again
    engine: str  # the engine we size for: vLLM on datacenter GPUs, llama.cpp on cards and Macs people own

    @property
    def is_mac(self) -> bool:
        return self.mac_gib is not None


def hardware_for(key: str, gpus: Sequence[GpuSpec]) -> Hardware | None:
    """The hardware a URL names, or None (an unknown slug, a Mac size we do not list)."""
    if key.startswith(MAC_PREFIX):
        size = key[len(MAC_PREFIX) :]
        if not size.isdigit() or int(size) not in MAC_MEMORY_GIB:
            return None
        gib = int(size)
        limits = apple_fit(0, gib * GIB)
        return Hardware(
            key, f"Mac {gib} GB", None, gib, limits.max_raised_limit_bytes, limits.default_limit_bytes, "llama.cpp"
        )
    gpu = next((g for g in gpus if g.slug == key), None)
    if gpu is None or gpu.segment == "apple":
        return None
    engine = "llama.cpp" if gpu.segment in LOCAL_SEGMENTS else "vllm"
    usable = usable_bytes(gpu.memory_bytes)
    return Hardware(key, gpu.short_name, gpu, None, usable, usable, engine)


def popular_hardware(gpus: Sequence[GpuSpec]) -> list[Hardware]:
    keys = [*POPULAR_GPUS, *(f"{MAC_PREFIX}{gib}" for gib in POPULAR_MACS)]
    return [hw for hw in (hardware_for(key, gpus) for key in keys) if hw is not None]


@dataclass(frozen=True, slots=True)
class Option:
    """One way to run the model: a generic precision or a published build, and what it needs."""

    key: str
    label: str
    need_bytes: int
    fits: bool  # on one unit (after raising a Mac's limit)
    fits_default: bool  # without raising a Mac's limit
    units: int  # GPUs of this type it needs at 90 % fill (1 for a Mac that holds it, 0 when it does not)


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
    rent: RankedOffer | None  # the cheapest current offer of this GPU type for the best option (or the released one)
    smallest: Option  # the option that needs least (the last): what the page names when nothing fits one unit


def _workload(option: str, builds: dict[str, Build], engine: str, **changes: Any) -> Workload:
    build = builds.get(option)
    return replace(
        Workload(
            mode=Mode.INFERENCE,
            precision=build.precision if build else option,
            context=DEFAULT_CONTEXT,
            engine=engine,
            weights_file_bytes=build.file_size_bytes if build else None,
        ),
        **changes,
    )


def runs_on(
    spec: ModelSpec,
    builds: Sequence[Build],
    hardware: Hardware,
    offers: Sequence[OfferRecord],
    gpus: Sequence[GpuSpec],
) -> RunsOn:
    """Whether the model runs on one unit of ``hardware``, at which precision or build, how far it stretches."""
    by_key = {b.key: b for b in builds if b.file_size_bytes}
    released = released_precision(spec.native_dtype)
    options = []
    for key in (*GENERIC, *((released,) if released not in GENERIC else ()), *by_key):
        need = estimate(spec, _workload(key, by_key, hardware.engine)).total_bytes
        units = 0
        if hardware.gpu is not None:
            units = gpus_needed(need, hardware.gpu.memory_bytes)
        elif need <= hardware.budget_bytes:
            units = 1
        options.append(
            Option(
                key,
                precision_label(key, builds),
                need,
                need <= hardware.budget_bytes,
                need <= hardware.default_budget_bytes,
                units,
            )
        )
    options.sort(key=lambda o: -o.need_bytes)
    # the answer is never wider than what the model ships: an MXFP4 or FP8 release is not widened to FP8 or FP16
    # (those options stay in the table)
    as_released = next(o for o in options if o.key == released)
    fitting = [o for o in options if o.fits and o.need_bytes <= as_released.need_bytes]
    best = fitting[0] if fitting else None
    longest = most = 0
    low = high = None
    wired = None
    if best is not None:
        base = _workload(best.key, by_key, hardware.engine)
        device = hardware.gpu or UnifiedMemory(
            hardware.key, hardware.name, hardware.budget_bytes, hardware.budget_bytes
        )
        longest = max_context(spec, replace(base, concurrency=1), device, 1, budget_bytes=hardware.budget_bytes)
        most = max_concurrency(spec, base, device, 1, budget_bytes=hardware.budget_bytes)
        if hardware.gpu is not None and hardware.gpu.memory_bandwidth_gbps:
            found = speed(spec, base, hardware.gpu, 1)
            low, high = found.per_request_tokens_per_s_low, found.per_request_tokens_per_s_high
        if hardware.mac_gib is not None and not best.fits_default:
            wired = apple_fit(best.need_bytes, hardware.mac_gib * GIB).wired_limit_mb
    rent = None
    if hardware.gpu is not None:
        family = [o for o in offers if o.gpu_slug in {g.slug for g in gpus if g.family == hardware.gpu.family}]
        target = best or as_released
        rent = rank(target.need_bytes, family, gpus).cheapest
    return RunsOn(
        hardware=hardware,
        options=tuple(options),
        best=best,
        max_context=longest,
        max_concurrency=most,
        decode_low=low,
        decode_high=high,
        wired_limit_mb=wired,
        rent=rent,
        smallest=options[-1],
    )


@dataclass(frozen=True, slots=True)
class ModelFit:
    """How many of one GPU type a catalog model takes as released and at the generic 8- and 4-bit precisions
    (default inference workload)."""

    url: str
    display_name: str
    params_billions: float | None
    counts: tuple[tuple[str, int], ...]  # (precision, GPUs at 90 % fill): as released, int8, int4


def models_on_gpu(models: Sequence[tuple[str, str, float | None, ModelSpec]], gpu: GpuSpec) -> list[ModelFit]:
    """For each (url, name, billions, spec): GPUs of ``gpu`` it needs per precision, fewest first."""
    engine = "llama.cpp" if gpu.segment in LOCAL_SEGMENTS else "vllm"
    fits = []
    for url, name, billions, spec in models:
        precisions = (released_precision(spec.native_dtype), "int8", "int4")
        counts = tuple(
            (p, gpus_needed(estimate(spec, Workload(precision=p, engine=engine)).total_bytes, gpu.memory_bytes))
            for p in precisions
        )
        fits.append(ModelFit(url, name, billions, counts))
    fits.sort(key=lambda f: (min(c for _p, c in f.counts), -(f.params_billions or 0)))
    return fits
