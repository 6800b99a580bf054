"""The planner's cost chart as the page shows it: drawn wide and narrow with its labels in words, and as a table."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from calculator.charts import CostChart
from calculator.formatting import format_money
from calculator.labels import plan_kind_legend
from calculator.page.planner import PlanAnswer
from calculator.plan_state import volume_words

# Rows of the chart's curve the chart's table shows (every sixth: one a decade)
TABLE_STEP = 6


def usd(value: float) -> str:
    """A monthly amount: whole dollars from $100, cents below."""
    return format_money(value, 0) if value >= 100 else format_money(value)


@dataclass(frozen=True, slots=True)
class CostDrawing:
    """The cost chart drawn at one size, with its labels in words."""

    chart: CostChart
    x_ticks: tuple[tuple[float, str], ...]  # (x, volume)
    crossings: tuple[tuple[float, float, str], ...]  # (x, label baseline, volume)


@dataclass(frozen=True, slots=True)
class ChartView:
    """The cost chart, wide and narrow, and its table."""

    drawings: tuple[CostDrawing, ...]
    legends: tuple[str, ...]
    table: tuple[tuple[str, tuple[str, ...]], ...]  # (volume, the cheapest of each kind)

    @property
    def crossed(self) -> bool:
        """Whether the chart marks a volume where the cheapest way changes (its caption says what the marks are)."""
        return any(drawing.crossings for drawing in self.drawings)


def chart_view(charts: Sequence[CostChart], answer: PlanAnswer) -> ChartView:
    kinds = answer.kinds
    return ChartView(
        drawings=tuple(
            CostDrawing(
                chart=chart,
                x_ticks=tuple((x, volume_words(value)) for x, value in chart.x_ticks),
                crossings=tuple((x, chart.plot_top - 4, volume_words(value)) for x, value in chart.crossings),
            )
            for chart in charts
        ),
        legends=tuple(plan_kind_legend(kind) for kind in kinds),
        table=tuple(
            (
                volume_words(point.output_tokens_per_month),
                tuple(usd(cost) if (cost := point.cost(kind)) else "–" for kind in kinds),
            )
            for point in answer.curve[::TABLE_STEP]
        ),
    )
