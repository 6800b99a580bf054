"""How much the model needs: the breakdown, the headline, the precision-by-mode matrix, the cards and the builds."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from calculator.estimation import GIB, Mode, RankedOffer, Term, apple_fit, run_count
from calculator.estimation.engines.builds import build_runtimes
from calculator.estimation.memory.fit import per_gpu_overhead_bytes
from calculator.page.inputs import Build
from calculator.state import MAC_MEMORY_GIB, CalculatorState
from pricing.gpus import GpuSpec

from .accuracy import AccuracyNote
from .glance import Glance
from .gpus import gpu_index, smallest_single_gpu
from .setting import PageEstimates

BAR_WIDTH = 1000  # the stacked bar's width in its SVG's user units


@dataclass(frozen=True, slots=True)
class BreakdownRow:
    term: Term
    share: float  # of the GPU total, 0..1, for the stacked bar (0 for terms kept in host RAM)
    offset: float  # where its segment starts in the bar, 0..1

    @property
    def bar_x(self) -> float:
        """Where its segment starts in the stacked bar, in the bar's units."""
        return self.offset * BAR_WIDTH

    @property
    def bar_width(self) -> float:
        return self.share * BAR_WIDTH


@dataclass(frozen=True, slots=True)
class Summary:
    need_bytes: int
    smallest_need_bytes: int
    smallest_label: str
    cheapest: RankedOffer | None
    fits_one_gpu: bool
    largest_gpu_name: str
    smallest_gpu_name: str  # the smallest single GPU that holds the need, when one does
    smallest_mode: Mode = Mode.INFERENCE  # a fine-tuning page's smallest is the smallest fine-tuning need
    accuracy: tuple[AccuracyNote, ...] = ()  # how close these figures came to published measurements
    glance: Glance | None = None  # the need against common card sizes, and the verdict the page leads with


@dataclass(frozen=True, slots=True)
class MatrixCell:
    mode: Mode
    precision: str
    need_bytes: int | None  # None: the combination does not apply


@dataclass(frozen=True, slots=True)
class PrecisionCard:
    precision: str
    label: str
    need_bytes: int
    cheapest: RankedOffer | None
    per_gpu_bytes: int = 0  # what every GPU of a split holds for itself (fit.per_gpu_overhead_bytes)


@dataclass(frozen=True, slots=True)
class PrecisionCards:
    """Inference at each generic precision of the matrix, with its cheapest configuration; in page order when
    iterated."""

    fp16: PrecisionCard
    int8: PrecisionCard
    int4: PrecisionCard
    released: PrecisionCard  # the precision the model's repository ships (one of the above for a 16-bit release)

    def __iter__(self) -> Iterator[PrecisionCard]:
        return iter((self.fp16, self.int8, self.int4))


@dataclass(frozen=True, slots=True)
class ModeCard:
    mode: Mode
    precision: str
    need_bytes: int
    ratio: float  # to inference at FP16
    cheapest: RankedOffer | None


@dataclass(frozen=True, slots=True)
class ModeCards:
    """Each deployment at the precision it trains or serves on (QLoRA on a 4-bit base, the others at FP16); in page
    order when iterated."""

    inference: ModeCard
    lora: ModeCard
    qlora: ModeCard
    full: ModeCard

    def __iter__(self) -> Iterator[ModeCard]:
        return iter((self.inference, self.lora, self.qlora, self.full))


@dataclass(frozen=True, slots=True)
class GpuCount:
    count: int
    gpu_name: str


@dataclass(frozen=True, slots=True)
class BuildRow:
    build: Build
    weights_bytes: int | None
    need_bytes: int | None  # weights as measured + KV cache + runtime overhead at the current context
    runtimes: tuple[str, ...]
    smallest_mac_gib: int | None
    one_gpu: str | None  # the smallest single GPU it fits on
    gpu_count: GpuCount | None  # else: how many of the largest common GPU


def _smallest_mac(need: int, macos: str) -> int | None:
    for gib in MAC_MEMORY_GIB:
        if apple_fit(need, gib * GIB, macos).fits_after_raise:
            return gib
    return None


def build_rows(
    estimates: PageEstimates, state: CalculatorState, builds: Sequence[Build], gpus: Sequence[GpuSpec]
) -> tuple[BuildRow, ...]:
    index = gpu_index(gpus)
    h100 = index.get("h100-sxm")
    rows = []
    for build in builds:
        need, per_gpu = None, 0
        if build.file_size_bytes:
            breakdown, need = estimates.need(estimates.workload(state, Mode.INFERENCE, build.key))
            per_gpu = per_gpu_overhead_bytes(breakdown)
        one = smallest_single_gpu(need, gpus, state.engine) if need else None
        count = None
        if need and one is None and h100 is not None:
            count = GpuCount(run_count(need, h100, state.engine, per_gpu), h100.short_name)
        rows.append(
            BuildRow(
                build=build,
                weights_bytes=build.file_size_bytes,
                need_bytes=need,
                runtimes=build_runtimes(build.format),
                smallest_mac_gib=_smallest_mac(need, state.macos) if need else None,
                one_gpu=one.short_name if one else None,
                gpu_count=count,
            )
        )
    return tuple(rows)
