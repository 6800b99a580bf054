"""The hardware a reader names — a GPU type (one card) or a Mac by unified memory — and which precision or published
build of a model runs on one unit of it. The model page's local section, the "can it run" pages, the home page and
the GPU pages all ask this one function, so a card or a Mac gets one verdict everywhere."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from calculator.estimation import (
    GIB,
    Mode,
    Workload,
    apple_fit,
    budget_bytes,
    estimate,
    get_engine,
    get_precision,
    run_count,
)
from calculator.estimation.engines.builds import engine_loads, released_precision
from calculator.estimation.engines.kernels import KernelRule, blocking_rule
from calculator.estimation.memory.fit import DEFAULT_MACOS, per_gpu_overhead_bytes
from calculator.estimation.plan.deployment import MacPlan, mac_plan_for_need
from calculator.page.inputs import Build, precision_label
from calculator.state import MAC_MEMORY_GIB, MAC_PREFIX
from models_catalog.architecture import ModelSpec
from pricing.gpus import GpuSpec

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
    budget_bytes: int  # what one unit may hold: a GPU's budget for the engine, or a Mac's GPU limit after raising it
    default_budget_bytes: int  # a Mac's out-of-the-box GPU limit; a GPU's budget again
    engine: str  # the engine we size for: vLLM on datacenter GPUs, llama.cpp on cards and Macs people own
    macos: str = DEFAULT_MACOS  # a Mac's macOS version (fit.MACOS_VERSIONS): it sets the GPU's default share

    @property
    def is_mac(self) -> bool:
        return self.mac_gib is not None


def engine_for(gpu: GpuSpec) -> str:
    """The engine we size one GPU type for: vLLM on datacenter GPUs, llama.cpp on cards and machines people own."""
    return "llama.cpp" if gpu.segment in LOCAL_SEGMENTS else "vllm"


# The engines a Mac runs a build with: llama.cpp (GGUF files, Metal) and MLX-LM (MLX folders).
MAC_ENGINES = ("llama.cpp", "mlx")


def hardware_for(key: str, gpus: Sequence[GpuSpec], macos: str = DEFAULT_MACOS) -> Hardware | None:
    """The hardware a URL names, or None (an unknown slug, a Mac size we do not list); a Mac on macOS ``macos``."""
    if key.startswith(MAC_PREFIX):
        size = key[len(MAC_PREFIX) :]
        if not size.isdigit() or int(size) not in MAC_MEMORY_GIB:
            return None
        gib = int(size)
        limits = apple_fit(0, gib * GIB, macos)
        return Hardware(
            key,
            f"Mac {gib} GB",
            None,
            gib,
            limits.max_raised_limit_bytes,
            limits.default_limit_bytes,
            "llama.cpp",
            macos,
        )
    gpu = next((g for g in gpus if g.slug == key), None)
    if gpu is None or gpu.segment == "apple":
        return None
    engine = engine_for(gpu)
    usable = budget_bytes(gpu, engine)
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
    units: int  # GPUs of this type it needs (fit.run_count; 1 for a Mac that holds it, 0 when it does not)
    mac: MacPlan | None = None  # on a Mac: its plan (the verdict and the sysctl value when the limit must be raised)
    per_gpu_bytes: int = 0  # what every GPU of a split holds for itself (fit.per_gpu_overhead_bytes)
    loaded: bool = True  # False: none of the hardware's engines loads these weights (FP8 under llama.cpp or MLX-LM)


def option_workload(option: str, builds: dict[str, Build], engine: str, **changes: Any) -> Workload:
    build = builds.get(option)
    fields: dict[str, Any] = {
        "mode": Mode.INFERENCE,
        "precision": build.precision if build else option,
        "context": DEFAULT_CONTEXT,
        "engine": engine,
        "weights_file_bytes": build.file_size_bytes if build else None,
    }
    return Workload(**(fields | changes))  # one construction: a page asks for some 150 of these


# Generic precisions an engine has no format for: llama.cpp (GGUF) has no FP8 weights; an FP8 release still counts
# as itself (its GGUF conversion keeps 8 bits per weight).
_NOT_LOADED: dict[str, tuple[str, ...]] = {"llama.cpp": ("fp8",), "ollama": ("fp8",), "mlx": ("fp8",)}
# The 8- and 4-bit widths as each engine loads them: llama.cpp and Ollama GGUF files (Q8_0; Q4_K_M, with the output
# head in Q6_K and some attention and feed-forward layers wider), MLX its own N-bit groups, vLLM and SGLang INT8 W8A8
# and 4-bit AWQ or GPTQ checkpoints (embeddings, head and norms in 16 bit). The generic INT8 / INT4 of the reference
# page put 8.4 / 4.2 bits on every tensor, embeddings and head included, which sizes a Q4_K_M file's weights 13–16 %
# and a W8A8 checkpoint's 7–9 % short (docs/methodology.md §2.4, §2.6, §2.7, §2.9).
ENGINE_FORMATS: dict[str, dict[str, str]] = {
    # vLLM and SGLang load 8-bit integer weights as W8A8 checkpoints and 4-bit ones as AWQ or GPTQ checkpoints
    # (16-bit embeddings, head and norms in both)
    "vllm": {"int8": "w8a8", "int4": "awq"},
    "sglang": {"int8": "w8a8", "int4": "awq"},
    "llama.cpp": {"int8": "q8_0", "int4": "q4_k_m"},
    "ollama": {"int8": "q8_0", "int4": "q4_k_m"},
    "mlx": {"int8": "mlx-8bit", "int4": "mlx-4bit"},
}


def engine_format(precision: str, engine: str) -> str:
    """The format ``engine`` runs a generic ``precision`` in (itself where the engine loads it as such)."""
    return ENGINE_FORMATS.get(engine, {}).get(precision, precision)


@dataclass(frozen=True, slots=True)
class Verdict:
    options: tuple[Option, ...]  # widest first
    best: Option | None  # the widest option that fits one unit and is no wider than the release
    as_released: Option
    kernels: KernelRule | None = None  # the model cannot start on this GPU under its engine (engines/kernels.py)

    @property
    def smallest(self) -> Option:
        return self.options[-1]


@dataclass(frozen=True, slots=True)
class OptionNeed:
    key: str
    label: str
    need_bytes: int
    per_gpu_bytes: int = 0  # what every GPU of a split holds for itself (fit.per_gpu_overhead_bytes)
    loaded: bool = True  # False: none of the hardware's engines loads these weights (FP8 under llama.cpp or MLX-LM)


def option_needs(
    spec: ModelSpec,
    builds: Sequence[Build],
    engine: str,
    *,
    context: int = DEFAULT_CONTEXT,
    concurrency: int = 1,
    engine_release: str = "",
) -> tuple[OptionNeed, ...]:
    """Every generic precision as ``engine`` loads it, the released one and each published build, with what each
    needs under ``engine`` (at ``engine_release``'s line; "": the current one): the same for every unit that engine
    runs on (every Mac size and consumer card asks llama.cpp for the same figures), so a section judging several
    units computes them once per engine."""
    by_key = {b.key: b for b in builds if b.file_size_bytes}
    released = released_precision(spec.native_dtype)
    generic = [engine_format(p, engine) for p in GENERIC if p not in _NOT_LOADED.get(engine, ()) or p == released]

    def need(key: str) -> OptionNeed:
        workload = option_workload(
            key, by_key, engine, context=context, concurrency=concurrency, engine_release=engine_release
        )
        breakdown = estimate(spec, workload)
        return OptionNeed(key, precision_label(key, builds), breakdown.total_bytes, per_gpu_overhead_bytes(breakdown))

    return tuple(need(key) for key in (*generic, *((released,) if released not in generic else ()), *by_key))


def _loads_precision(engine: str, precision: str) -> bool:
    """Whether ``engine`` loads weights of the generic ``precision`` (its profile's formats; an unknown one: yes)."""
    profile, found = get_engine(engine), get_precision(precision)
    return profile is None or found is None or found.family in profile.formats


def verdict_on(
    spec: ModelSpec,
    builds: Sequence[Build],
    hardware: Hardware,
    *,
    context: int = DEFAULT_CONTEXT,
    concurrency: int = 1,
    needs: Sequence[OptionNeed] | None = None,
) -> Verdict:
    """Every generic precision, the released one and each published build on one unit of ``hardware`` with its
    engine, and the widest that fits — never wider than the release: an MXFP4 or FP8 release is not widened to FP8 or
    FP16 (those options stay in the table). ``needs``: ``option_needs`` for the hardware's engine, where the caller
    already has them."""
    released = released_precision(spec.native_dtype)
    if needs is None:
        needs = option_needs(spec, builds, hardware.engine, context=context, concurrency=concurrency)
    options = []
    blocked = blocking_rule(spec, hardware.engine, hardware.gpu.architecture) if hardware.gpu is not None else None
    # a build no engine of this hardware loads is no option on it (an MLX folder on an H100, an AWQ repository on a
    # Mac: engines/builds.py)
    engines = MAC_ENGINES if hardware.gpu is None else (hardware.engine,)
    formats = {b.key: b.format for b in builds}
    for option in needs:
        key, label, need = option.key, option.label, option.need_bytes
        if key in formats and not any(engine_loads(engine, formats[key]) for engine in engines):
            continue
        # a generic precision none of the hardware's engines loads (FP8 weights under llama.cpp or MLX-LM) is shown
        # with its need but never the answer
        loads = key in formats or any(_loads_precision(engine, key) for engine in engines)
        if hardware.gpu is not None:
            units = run_count(need, hardware.gpu, hardware.engine, option.per_gpu_bytes)
            starts = units == 1 and blocked is None and loads
            options.append(Option(key, label, need, starts, starts, units, None, option.per_gpu_bytes, loads))
        else:
            assert hardware.mac_gib is not None
            mac = mac_plan_for_need(need, hardware.mac_gib * GIB, hardware.macos)
            fits = mac.verdict != "no" and loads
            options.append(Option(key, label, need, fits, mac.verdict == "fits", 1 if fits else 0, mac, loaded=loads))
    options.sort(key=lambda o: -o.need_bytes)
    as_released = next(o for o in options if o.key == released)
    fitting = [o for o in options if o.fits and o.need_bytes <= as_released.need_bytes]
    return Verdict(tuple(options), fitting[0] if fitting else None, as_released, blocked)
