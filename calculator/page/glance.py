"""The answer at a glance: the need against common card sizes (and the reader's own machine), and the one-line verdict
the model page and its summary lead with."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from calculator.estimation import budget_bytes, run_count
from calculator.estimation.memory.fit import MAX_GPUS_PER_NODE
from calculator.state import CalculatorState
from pricing.gpus import GpuSpec

from .gpus import CARD_SEGMENTS, smallest_single_gpu

# One card of each common memory size, smallest first: 24, 48, 80, 141 and 192 GB.
COMMON_CARDS: tuple[str, ...] = ("rtx-4090", "l40s", "h100-sxm", "h200-sxm", "mi300x")
DEFAULT_RIG, DEFAULT_RIG_GPUS = (CalculatorState.__dataclass_fields__[name] for name in ("rig", "rig_gpus"))
BAR_WIDTH = 100  # each card's bar, in its SVG's user units


class Fit(StrEnum):
    RUNS = "runs"  # one card holds the need within the engine's memory share
    TIGHT = "tight"  # one card holds it only above the engine's default share
    SPLIT = "split"  # several cards of one node
    NO = "no"  # not on one node, or the engine cannot start the model on this card


@dataclass(frozen=True, slots=True)
class CardFit:
    gpu: GpuSpec
    fit: Fit
    count: int  # the cards the engine runs the need on (1 for runs and tight, 0 for no)
    own: bool = False  # the reader's own machine, from the page's hardware settings
    owned: int = 1  # the cards of the reader's machine
    fill: float = 0.0  # the share of each card's memory the need takes, 0..1 (1 where it does not fit)
    budget_share: float = 0.0  # the share of a card's memory the engine fills by default (0.9 for vLLM)

    @property
    def fill_width(self) -> float:
        return round(BAR_WIDTH * self.fill, 1)

    @property
    def budget_x(self) -> float:
        return round(BAR_WIDTH * self.budget_share, 1)

    @property
    def card_name(self) -> str:
        """The card's name without its memory size, which the bar's label already gives ("H200 SXM")."""
        return self.gpu.short_name.removesuffix(f" {self.memory_gb}GB")

    @property
    def memory_gb(self) -> int:
        return round(self.gpu.memory_gb)


@dataclass(frozen=True, slots=True)
class Glance:
    need_bytes: int
    verdict: Fit
    verdict_gpu: str  # runs/tight: the smallest card that holds it; split: the cheapest setup's card ("" for no)
    verdict_count: int  # split: GPUs of the cheapest setup
    cards: tuple[CardFit, ...]


def own_machine(state: CalculatorState, gpus: Sequence[GpuSpec]) -> tuple[GpuSpec, int] | None:
    """The reader's own card and how many, when the page's hardware settings name one other than the default."""
    if (state.rig, state.rig_gpus) == (DEFAULT_RIG.default, DEFAULT_RIG_GPUS.default):
        return None
    gpu = next((g for g in gpus if g.slug == state.rig), None)
    return (gpu, state.rig_gpus) if gpu is not None else None


def card_fit(need: int, gpu: GpuSpec, engine: str, per_gpu_bytes: int, startable: bool) -> tuple[Fit, int]:
    """How ``need`` sits on cards of type ``gpu`` under ``engine``: the verdict and the cards it runs on (the count the
    FAQ, the runs-on pages and the command line give, fit.run_count)."""
    if not startable:
        return Fit.NO, 0
    if need <= budget_bytes(gpu, engine):
        return Fit.RUNS, 1
    if need <= gpu.capacity_bytes:
        return Fit.TIGHT, 1
    count = run_count(need, gpu, engine, per_gpu_bytes)
    return (Fit.SPLIT, count) if count <= MAX_GPUS_PER_NODE else (Fit.NO, 0)


def glance(
    need: int,
    engine: str,
    per_gpu_bytes: int,
    gpus: Sequence[GpuSpec],
    startable: Sequence[GpuSpec],
    own: tuple[GpuSpec, int] | None,
    cheapest: tuple[str, int] | None,
) -> Glance:
    """The bar of ``need`` against the common cards (and ``own``: the reader's card and how many, when the page names
    one), and the verdict: runs on one rentable card (the smallest that holds it), tight on the largest, split as the
    cheapest setup (``cheapest``: its card's name and count) or does not run on one node."""
    by_slug = {g.slug: g for g in gpus}
    startable_slugs = {g.slug for g in startable}
    chosen = [(by_slug[slug], False) for slug in COMMON_CARDS if slug in by_slug]
    if own is not None:
        chosen.append((own[0], True))

    def placed(gpu: GpuSpec, is_own: bool) -> CardFit:
        count_owned = own[1] if is_own and own else 1
        fit, count = card_fit(need, gpu, engine, per_gpu_bytes, gpu.slug in startable_slugs)
        if is_own and fit is Fit.SPLIT and count > count_owned:
            fit = Fit.NO  # the reader's machine has fewer cards than the split needs
        capacity = max(1, gpu.capacity_bytes)
        fill = min(1.0, need / (capacity * count)) if count else 1.0
        return CardFit(gpu, fit, count, is_own, count_owned, fill, budget_bytes(gpu, engine) / capacity)

    cards = tuple(placed(gpu, is_own) for gpu, is_own in chosen)
    verdict, verdict_gpu, verdict_count = _verdict(need, engine, startable, cheapest)
    return Glance(need, verdict, verdict_gpu, verdict_count, cards)


def _verdict(
    need: int, engine: str, startable: Sequence[GpuSpec], cheapest: tuple[str, int] | None
) -> tuple[Fit, str, int]:
    smallest = smallest_single_gpu(need, startable, engine)  # the summary card's rule, on the GPUs it starts on
    if smallest is not None:
        return Fit.RUNS, smallest.short_name, 1
    rentable = [g for g in startable if g.segment in CARD_SEGMENTS]
    tight = [g for g in rentable if need <= g.capacity_bytes]
    if tight:
        return Fit.TIGHT, min(tight, key=lambda g: (g.memory_bytes, g.slug)).short_name, 1
    if cheapest is not None:
        return Fit.SPLIT, cheapest[0], cheapest[1]
    return Fit.NO, "", 0
