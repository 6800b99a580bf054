"""Memory against context length: the curve, the budget lines of common hardware and one GPU's headroom."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from calculator.charts import SIZES, Chart, context_chart
from calculator.estimation import Mode, Workload, budget_bytes, max_context
from calculator.page.inputs import precision_label
from calculator.state import PRESET_CONTEXTS, CalculatorState
from models_catalog.architecture import ModelSpec
from pricing.gpus import GpuSpec

from .gpus import gpu_index
from .setting import MATRIX_PRECISIONS, PageEstimates, Setting

# Budget lines on the context chart: common hardware by what it offers the engine (fit.budget_bytes, as the GPU counts).
BUDGET_GPUS: tuple[tuple[str, int], ...] = (("rtx-4090", 1), ("h100-sxm", 1), ("h200-sxm", 1), ("h100-sxm", 8))
HEADROOM_GPU = "h200-sxm"


@dataclass(frozen=True, slots=True)
class ContextPoint:
    context: int
    total_bytes: int
    kv_bytes: int


@dataclass(frozen=True, slots=True)
class BudgetLine:
    label: str
    usable_bytes: int


@dataclass(frozen=True, slots=True)
class Headroom:
    precision_label: str  # the current precision, or the widest option that fits when the current one does not
    is_current: bool
    gpu_name: str
    usable_bytes: int
    fixed_bytes: int  # weights + overhead at the shortest context
    left_bytes: int
    tokens: int  # longest context for one request that fits
    full_context_bytes: int | None  # need at the model's full context, when known
    full_context_fits: bool


@dataclass(frozen=True, slots=True)
class ContextSection:
    precision_label: str
    points: tuple[ContextPoint, ...]
    budgets: tuple[BudgetLine, ...]
    headroom: Headroom | None
    charts: tuple[Chart, ...]  # the points and the budget lines in range, drawn wide and narrow; none when flat

    @property
    def flat(self) -> bool:
        """Whether the need hardly changes with the context: points enough to draw, but no drawing (context_chart
        leaves out a flat line; the page says it in words)."""
        return len(self.points) > 1 and not self.charts

    @property
    def ends(self) -> tuple[ContextPoint, ContextPoint] | None:
        """The shortest and the longest context drawn (the chapter's one-line summary), None below two points."""
        return (self.points[0], self.points[-1]) if len(self.points) > 1 else None


def _context_points(max_ctx: int | None, current: int) -> tuple[int, ...]:
    limit = max_ctx or PRESET_CONTEXTS[-1]
    points = {c for c in PRESET_CONTEXTS if c <= limit}
    points.add(limit)
    points.add(min(current, limit))
    return tuple(sorted(p for p in points if p >= 1))


def context_section(
    estimates: PageEstimates, state: CalculatorState, setting: Setting, spec: ModelSpec, gpus: Sequence[GpuSpec]
) -> ContextSection:
    points = []
    for context in _context_points(spec.max_context, state.context):
        workload = estimates.workload(state, Mode.INFERENCE, setting.precision, context=context)
        breakdown, total = estimates.need(workload)
        points.append(ContextPoint(context, total, breakdown.kv_cache_bytes))
    index = gpu_index(gpus)
    budgets = []
    for slug, count in BUDGET_GPUS:
        gpu = index.get(slug)
        if gpu is not None:
            label = f"{count} × {gpu.short_name}" if count > 1 else gpu.short_name
            budgets.append(BudgetLine(label, budget_bytes(gpu, setting.engine) * count))
    headroom = None
    gpu = index.get(HEADROOM_GPU)
    if gpu is not None:
        headroom = _headroom(estimates, state, setting, spec, gpu)
    drawn = tuple(chart for size in SIZES if (chart := context_chart(points, budgets, size)) is not None)
    return ContextSection(setting.precision_label, tuple(points), tuple(budgets), headroom, drawn)


def _headroom(
    estimates: PageEstimates, state: CalculatorState, setting: Setting, spec: ModelSpec, gpu: GpuSpec
) -> Headroom:
    """What one GPU leaves for the KV cache after weights and runtime: at the current precision, or else at the
    widest generic precision or published build that still fits it."""
    usable = budget_bytes(gpu, setting.engine)
    candidates = [setting.precision] + [p for p in MATRIX_PRECISIONS if p != setting.precision]
    candidates += [key for key, build in estimates.builds.items() if build.file_size_bytes and key != setting.precision]
    fixed_by: list[tuple[int, str, Workload]] = []
    for precision in candidates:
        base = estimates.workload(state, Mode.INFERENCE, precision, context=1, concurrency=1)
        fixed_by.append((estimates.need(base)[1], precision, base))
    fitting = [f for f in fixed_by[1:] if f[0] <= usable]
    chosen = fixed_by[0] if fixed_by[0][0] <= usable or not fitting else max(fitting, key=lambda f: f[0])
    fixed, precision, base = chosen
    tokens = 0
    if fixed <= usable:
        tokens = max_context(spec, base, gpu, 1)
    full = None
    if spec.max_context:
        full = estimates.need(replace(base, context=spec.max_context))[1]
    return Headroom(
        precision_label=precision_label(precision, list(estimates.builds.values())),
        is_current=precision == setting.precision,
        gpu_name=gpu.short_name,
        usable_bytes=usable,
        fixed_bytes=fixed,
        left_bytes=usable - fixed,
        tokens=tokens,
        full_context_bytes=full,
        full_context_fits=full is not None and full <= usable,
    )
