"""Running it yourself: the verdict for common local GPUs and every Mac size, and the reader's own machine."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from calculator.estimation import GIB, Mode, Workload
from calculator.estimation.engines.launch import LaunchConfig, launch_command
from calculator.estimation.engines.sourcing import SourceKind, WeightsSource
from calculator.estimation.plan.offload_fit import OffloadVerdict, offload_verdict
from calculator.estimation.precision import gguf_key
from calculator.page.inputs import Build, PageInputs, precision_label
from calculator.state import MAC_MEMORY_GIB, MAC_PREFIX, CalculatorState
from models_catalog.architecture import ModelSpec
from pricing.gpus import GpuSpec

from .machines import OptionNeed, hardware_for, option_needs, verdict_on
from .setting import MATRIX_PRECISIONS, PageEstimates

LOCAL_GPUS: tuple[str, ...] = ("rtx-3090", "rtx-4090", "rtx-5090", "rtx-pro-6000-blackwell")
RIG_FILE_TYPES: tuple[str, ...] = ("q8_0", "q4_k_m", "q2_k", "iq2_xxs")
RIG_SEGMENTS = ("consumer", "workstation", "datacenter")


@dataclass(frozen=True, slots=True)
class LocalGpuVerdict:
    gpu: GpuSpec
    best: str | None  # label of the widest precision or build that fits one card
    best_need_bytes: int | None
    smallest_need_bytes: int


@dataclass(frozen=True, slots=True)
class MacVerdict:
    ram_gib: int
    verdict: str  # "fits" | "raise" | "no"
    best: str | None
    best_need_bytes: int | None
    wired_limit_mb: int | None
    default_limit_bytes: int
    best_key: str | None = None  # the precision key or build key of ``best``


@dataclass(frozen=True, slots=True)
class Local:
    gpus: tuple[LocalGpuVerdict, ...]
    macs: tuple[MacVerdict, ...]
    options: tuple[tuple[str, int], ...]  # (label, need) from smallest to largest, what the verdicts chose from

    @property
    def fitting_gpus(self) -> int:
        """The common cards one of which holds some precision or build."""
        return sum(1 for verdict in self.gpus if verdict.best)

    @property
    def smallest_mac_gib(self) -> int | None:
        """The smallest Mac that runs it, as it is or after raising its GPU memory limit."""
        return min((mac.ram_gib for mac in self.macs if mac.verdict != "no"), default=None)


def local_section(
    estimates: PageEstimates, state: CalculatorState, builds: Sequence[Build], gpus: Sequence[GpuSpec]
) -> Local:
    """Each common card and every Mac size: the verdict the "can it run" pages give (machines.verdict_on, with the
    engine people run there: llama.cpp), at the page's context and number of requests."""
    options = _options(estimates, state, builds)
    needs = _EngineNeeds(estimates.spec, builds, state)
    return Local(_gpu_verdicts(needs, gpus), _mac_verdicts(needs, gpus, state.macos), options)


def _options(estimates: PageEstimates, state: CalculatorState, builds: Sequence[Build]) -> tuple[tuple[str, int], ...]:
    """Every generic precision and published build of a known size with its need, smallest first."""
    options: list[tuple[str, int]] = []
    for precision in MATRIX_PRECISIONS:
        _, need = estimates.need(estimates.workload(state, Mode.INFERENCE, precision))
        options.append((precision_label(precision), need))
    for build in builds:
        if build.file_size_bytes:
            _, need = estimates.need(estimates.workload(state, Mode.INFERENCE, build.key))
            options.append((build.label, need))
    options.sort(key=lambda o: o[1])
    return tuple(options)


class _EngineNeeds:
    """Each option's need once per engine, at the state's context and requests, for every card and Mac asked."""

    def __init__(self, spec: ModelSpec, builds: Sequence[Build], state: CalculatorState) -> None:
        self.spec, self.builds, self.state = spec, builds, state
        self._by_engine: dict[str, tuple[OptionNeed, ...]] = {}

    def __call__(self, engine: str) -> tuple[OptionNeed, ...]:
        if engine not in self._by_engine:
            self._by_engine[engine] = option_needs(
                self.spec,
                self.builds,
                engine,
                context=self.state.context,
                concurrency=self.state.concurrency,
                engine_release=self.state.release_for(engine),
            )
        return self._by_engine[engine]


def _gpu_verdicts(needs: _EngineNeeds, gpus: Sequence[GpuSpec]) -> tuple[LocalGpuVerdict, ...]:
    verdicts = []
    for slug in LOCAL_GPUS:
        card = hardware_for(slug, gpus)
        if card is None or card.gpu is None:
            continue
        found = verdict_on(needs.spec, needs.builds, card, needs=needs(card.engine))
        best = found.best
        verdicts.append(
            LocalGpuVerdict(
                card.gpu,
                best.label if best else None,
                best.need_bytes if best else None,
                found.smallest.need_bytes,
            )
        )
    return tuple(verdicts)


def _mac_verdicts(needs: _EngineNeeds, gpus: Sequence[GpuSpec], macos: str) -> tuple[MacVerdict, ...]:
    macs = []
    for gib in MAC_MEMORY_GIB:
        mac = hardware_for(f"{MAC_PREFIX}{gib}", gpus, macos)
        if mac is None:
            continue
        found = verdict_on(needs.spec, needs.builds, mac, needs=needs(mac.engine))
        best = found.best
        if best is None or best.mac is None:
            macs.append(MacVerdict(gib, "no", None, None, None, mac.default_budget_bytes))
            continue
        plan = best.mac  # the verdict and the sysctl value of the option the Mac runs
        macs.append(
            MacVerdict(
                gib, plan.verdict, best.label, best.need_bytes, plan.wired_limit_mb, mac.default_budget_bytes, best.key
            )
        )
    return tuple(macs)


@dataclass(frozen=True, slots=True)
class RigRow:
    """One GGUF file type on the reader's machine: where llama.cpp puts it, and how fast it generates."""

    file_type: str  # "Q4_K_M"
    fits: bool
    placement: str  # "gpu" | "experts_cpu" | "n_cpu_moe" | "layers" | "none"
    gpu_layers: int
    cpu_moe_layers: int
    gpu_bytes: int
    host_bytes: int
    tokens_per_s: float | None
    limit: str  # what bounds the speed: "gpu_bandwidth" | "ram_bandwidth" | "overhead" | "unknown"


@dataclass(frozen=True, slots=True)
class Rig:
    gpu: GpuSpec
    gpus: int
    ram_gib: int
    rows: tuple[RigRow, ...]  # widest file type first
    best: RigRow | None
    command: str  # llama-server for the best row, "" when nothing fits or no build of it can be had
    source: WeightsSource | None  # where the best row's file comes from; None when nothing fits


def own_machine_workload(state: CalculatorState, engine: str, precision: str) -> Workload:
    """The state's requests on a reader's own machine: ``precision`` under ``engine`` (llama.cpp, MLX-LM) at the
    state's context and requests, with that engine's release line."""
    return Workload(
        precision=precision,
        context=state.context,
        concurrency=state.concurrency,
        engine=engine,
        engine_release=state.release_for(engine),
    )


def _rig_row(spec: ModelSpec, file_type: str, state: CalculatorState, gpu: GpuSpec) -> RigRow:
    """One file type on the reader's machine (the core remembers its splits per machine without its RAM, so a RAM
    change only picks among them: ``verdict_ladder``)."""
    verdict = offload_verdict(
        spec,
        own_machine_workload(state, "llama.cpp", file_type),
        gpu_capacity_bytes=gpu.capacity_bytes,
        gpu_bandwidth_gbps=gpu.memory_bandwidth_gbps,
        ram_bytes=state.ram * GIB,
        gpus=state.rig_gpus,
    )
    return _row(verdict)


def _row(verdict: OffloadVerdict) -> RigRow:
    split = verdict.split
    return RigRow(
        file_type=split.ftype,
        fits=verdict.fits,
        placement=split.placement.value,
        gpu_layers=split.gpu_layers,
        cpu_moe_layers=split.cpu_moe_layers,
        gpu_bytes=split.gpu_bytes,
        host_bytes=split.host_bytes,
        tokens_per_s=verdict.speed.tokens_per_s if verdict.fits else None,
        limit=verdict.speed.limit,
    )


def rig_section(inputs: PageInputs) -> Rig | None:
    """The reader's machine from the state (``rig``, ``rig_gpus``, ``ram``): each file type's split and speed."""
    state, spec = inputs.state, inputs.spec
    gpu = next((g for g in inputs.gpus if g.slug == state.rig and g.segment in RIG_SEGMENTS), None)
    if gpu is None:
        return None
    rows = [_rig_row(spec, file_type, state, gpu) for file_type in RIG_FILE_TYPES]
    best = next((r for r in rows if r.fits), None)
    command, source = "", None
    if best is not None:
        source = inputs.weights_source("llama.cpp", gguf_key(best.file_type))
    if best is not None and source is not None and source.runnable:
        command = launch_command(
            LaunchConfig(
                engine="llama.cpp",
                model=source.model,
                from_hub=source.kind is SourceKind.PUBLISHED,
                prepare=source.prepare,
                context=state.context,
                concurrency=state.concurrency,
                kv_dtype=state.kv if state.kv in ("q8_0", "q4_0") else "fp16",
                offload=best.placement,
                gpu_layers=best.gpu_layers,
                cpu_moe_layers=best.cpu_moe_layers,
                engine_release=state.llamacpp,
            )
        ).script
    return Rig(gpu, state.rig_gpus, state.ram, tuple(rows), best, command, source)
