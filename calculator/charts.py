"""Server-rendered SVG charts: coordinates computed here, the template only draws them."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Protocol

from calculator.estimation import GB


@dataclass(frozen=True, slots=True)
class Size:
    """A chart's drawing area in its own units. Every chart is drawn twice: ``wide`` for tablets and desktops and
    ``narrow`` for phones, which the page shows at about one unit per pixel so that its 13-unit labels read at 12 px or
    more on a 360 px screen (static/css/site.css picks one by the screen's width)."""

    variant: str
    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int

    @property
    def frame(self) -> tuple[str, int, int, int, int, int, int]:
        """The Frame's fields: variant, width, height, plot left, right, top, bottom."""
        return (
            self.variant,
            self.width,
            self.height,
            self.left,
            self.width - self.right,
            self.top,
            self.height - self.bottom,
        )

    @property
    def plot_width(self) -> int:
        return self.width - self.left - self.right

    @property
    def plot_height(self) -> int:
        return self.height - self.top - self.bottom


WIDE = Size("wide", 640, 300, 64, 16, 16, 40)
NARROW = Size("narrow", 340, 250, 54, 24, 16, 40)  # room right of the plot for the last x label
SIZES = (WIDE, NARROW)
# Below this spread (of the largest value) a curve would draw as a flat line: the page says so in words instead.
FLAT_SHARE = 0.05
# Where axis and line labels sit, in the chart's units: y labels end just left of the plot and centre on their tick
# (a label's baseline a third of its 12-unit height below it), x labels below the plot, line labels just above
# their line at its right end.
Y_LABEL_GAP, LABEL_BASELINE, X_LABEL_DROP, LINE_LABEL_GAP = 6, 4, 18, 4


class ChartPoint(Protocol):
    """A point of the memory-against-context curve, as the chart reads it (the page's context section has them)."""

    @property
    def context(self) -> int: ...

    @property
    def total_bytes(self) -> int: ...


class ChartBudget(Protocol):
    """A budget line on that chart: what some hardware offers, as the chart reads it."""

    @property
    def label(self) -> str: ...

    @property
    def usable_bytes(self) -> int: ...


@dataclass(frozen=True, slots=True)
class Tick:
    position: float
    value: int  # tokens on the x axis, bytes on the y axis

    @property
    def label_y(self) -> float:
        """The baseline of a y tick's label."""
        return self.position + LABEL_BASELINE


@dataclass(frozen=True, slots=True)
class Line:
    label: str
    y: float
    usable_bytes: int

    @property
    def label_y(self) -> float:
        return self.y - LINE_LABEL_GAP


@dataclass(frozen=True, slots=True)
class Frame:
    """The drawing area every chart shares, and where their axis labels go."""

    variant: str  # "wide" or "narrow" (Size)
    width: int
    height: int
    plot_left: int
    plot_right: int
    plot_top: int
    plot_bottom: int

    @property
    def y_label_x(self) -> int:
        """Where the y labels end (they are right-aligned)."""
        return self.plot_left - Y_LABEL_GAP

    @property
    def x_label_y(self) -> int:
        return self.plot_bottom + X_LABEL_DROP

    @property
    def hovers(self) -> bool:
        """Whether the drawing's points carry hover titles: the wide one only (a phone has no hover)."""
        return self.variant == WIDE.variant

    def _grid(self, ys: Iterable[float]) -> str:
        """One path for every horizontal grid line (a line element each would cost the page ~50 bytes a line)."""
        return "".join(f"M{self.plot_left} {y}H{self.plot_right}" for y in ys)


@dataclass(frozen=True, slots=True)
class Chart(Frame):
    points: str  # the polyline's "x,y x,y …"
    dots: tuple[tuple[float, float, int, int], ...]  # x, y, context, bytes
    x_ticks: tuple[Tick, ...]
    y_ticks: tuple[Tick, ...]
    lines: tuple[Line, ...]

    @property
    def line_label_x(self) -> int:
        """Where the budget lines' labels end (right-aligned)."""
        return self.plot_right - LINE_LABEL_GAP

    @property
    def grid(self) -> str:
        return self._grid(t.position for t in self.y_ticks)


def _nice_step(span: float) -> float:
    raw = span / 5
    magnitude = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    for factor in (1, 2, 2.5, 5, 10):
        if raw <= factor * magnitude:
            return factor * magnitude
    return 10 * magnitude


def is_flat(values: Sequence[float]) -> bool:
    """Whether these values would draw as a flat line: they spread less than FLAT_SHARE of the largest."""
    top = max(values, default=0)
    return top <= 0 or (top - min(values)) < top * FLAT_SHARE


def context_chart(points: Sequence[ChartPoint], budgets: Sequence[ChartBudget], size: Size = WIDE) -> Chart | None:
    """Memory against context length (log scale), with budget lines for common hardware that fall in range; None
    below two points or where the need hardly changes with the context."""
    if len(points) < 2 or is_flat([p.total_bytes for p in points]):
        return None
    low, high = points[0].context, points[-1].context
    top_bytes = max(p.total_bytes for p in points)
    in_range = [b for b in budgets if b.usable_bytes <= top_bytes * 1.6]
    y_max = max([top_bytes, *(b.usable_bytes for b in in_range)]) * 1.08
    step = _nice_step(y_max / GB) * GB
    y_max = math.ceil(y_max / step) * step
    plot_w, plot_h = size.plot_width, size.plot_height

    def x(context: int) -> float:
        return size.left + plot_w * (math.log2(context) - math.log2(low)) / (math.log2(high) - math.log2(low))

    def y(value: float) -> float:
        return size.top + plot_h * (1 - value / y_max)

    dots = tuple((round(x(p.context), 1), round(y(p.total_bytes), 1), p.context, p.total_bytes) for p in points)
    shown = points if len(points) <= 7 else (*points[:: math.ceil(len(points) / 6)], points[-1])
    x_ticks = _spaced(tuple(dict.fromkeys(Tick(round(x(p.context), 1), p.context) for p in shown)))
    y_ticks = tuple(Tick(round(y(v), 1), int(v)) for v in _range(0, y_max, step))
    lines = tuple(Line(b.label, round(y(b.usable_bytes), 1), b.usable_bytes) for b in in_range)
    return Chart(
        *size.frame,
        " ".join(f"{dx},{dy}" for dx, dy, _c, _b in dots),
        dots,
        x_ticks,
        y_ticks,
        lines,
    )


MIN_TICK_GAP = 60  # units between x labels such as "128K" and "160K", so they never touch


def _spaced(ticks: tuple[Tick, ...]) -> tuple[Tick, ...]:
    """Left to right, dropping labels too close to the one before; the last (the model's limit) always stays."""
    kept: list[Tick] = []
    for tick in ticks:
        if kept and tick.position - kept[-1].position < MIN_TICK_GAP:
            if tick is ticks[-1]:
                kept[-1] = tick
            continue
        kept.append(tick)
    return tuple(kept)


def _range(start: float, stop: float, step: float) -> list[float]:
    values, value = [], start
    while value <= stop + step / 1000:
        values.append(value)
        value += step
    return values


@dataclass(frozen=True, slots=True)
class PriceChart(Frame):
    median: str  # polyline points
    cheapest: str
    x_ticks: tuple[tuple[float, str], ...]  # (x, ISO day)
    y_ticks: tuple[tuple[float, float, float], ...]  # (y, its label's baseline, USD per GPU-hour)

    @property
    def grid(self) -> str:
        return self._grid(y for y, _label_y, _value in self.y_ticks)


def price_chart(days: Sequence[tuple[date, float, float]], size: Size = WIDE) -> PriceChart | None:
    """Median and cheapest USD per GPU-hour by day; None below two days of history or where neither moved."""
    if len(days) < 2 or prices_flat(days):
        return None
    first, last = days[0][0], days[-1][0]
    span = max(1, (last - first).days)
    top = max(max(median, cheapest) for _day, median, cheapest in days) * 1.1
    step = _nice_step(top)
    top = math.ceil(top / step) * step
    plot_w, plot_h = size.plot_width, size.plot_height

    def x(day: date) -> float:
        return round(size.left + plot_w * (day - first).days / span, 1)

    def y(value: float) -> float:
        return round(size.top + plot_h * (1 - value / top), 1)

    shown = days if len(days) <= 6 else [*days[:: math.ceil(len(days) / 5)], days[-1]]
    ticks = _spaced_days(tuple((x(day), day.isoformat()) for day, _m, _c in shown))
    return PriceChart(
        *size.frame,
        " ".join(f"{x(day)},{y(median)}" for day, median, _c in days),
        " ".join(f"{x(day)},{y(cheapest)}" for day, _m, cheapest in days),
        ticks,
        tuple((y(v), y(v) + LABEL_BASELINE, v) for v in _range(0, top, step)),
    )


def prices_flat(days: Sequence[tuple[date, float, float]]) -> bool:
    """Whether neither the median nor the cheapest price moved over these days (the page says so in words)."""
    return len(days) > 1 and is_flat([m for _d, m, _c in days]) and is_flat([c for _d, _m, c in days])


def _spaced_days(ticks: tuple[tuple[float, str], ...]) -> tuple[tuple[float, str], ...]:
    kept: list[tuple[float, str]] = []
    for tick in dict.fromkeys(ticks):
        if kept and tick[0] - kept[-1][0] < 96:  # an ISO day label is about 80 px wide
            if tick == ticks[-1]:
                kept[-1] = tick
            continue
        kept.append(tick)
    return tuple(kept)


@dataclass(frozen=True, slots=True)
class CostChart(Frame):
    """Monthly cost against monthly output volume, both on log scales: the cheapest API, the cheapest rented and the
    cheapest owned option, the reader's volume marked."""

    api: str  # polyline points ("" without an API price)
    rented: str
    x_ticks: tuple[tuple[float, float], ...]  # (x, output tokens a month)
    y_ticks: tuple[tuple[float, float, str], ...]  # (y, its label's baseline, "$10K")
    marker_x: float | None  # the reader's volume
    owned: str = ""
    crossings: tuple[tuple[float, float], ...] = ()  # (x, output tokens a month) where the cheapest kind changes

    @property
    def grid(self) -> str:
        return self._grid(y for y, _label_y, _words in self.y_ticks)


CostPoint = tuple[float, float | None, float | None, float | None]


def cost_chart(
    points: Sequence[CostPoint], volume: float, crossings: Sequence[float] = (), size: Size = WIDE
) -> CostChart | None:
    """(volume, API USD, rented USD, owned USD) per point, the volumes where the cheapest kind changes marked; None
    when no line has two points."""
    values = [v for point in points for v in point[1:] if v]
    if len(points) < 2 or len(values) < 2:
        return None
    low_x, high_x = math.log10(points[0][0]), math.log10(points[-1][0])
    low_y = math.floor(math.log10(min(values)))
    high_y = math.ceil(math.log10(max(values)))
    if high_y == low_y:
        high_y += 1
    plot_w, plot_h = size.plot_width, size.plot_height

    def x(v: float) -> float:
        return round(size.left + plot_w * (math.log10(v) - low_x) / (high_x - low_x), 1)

    def y(v: float) -> float:
        return round(size.top + plot_h * (1 - (math.log10(v) - low_y) / (high_y - low_y)), 1)

    def line(index: int) -> str:
        return " ".join(f"{x(p[0])},{y(cost)}" for p in points if (cost := p[index]))

    decades = range(int(low_x), int(high_x) + 1)
    y_step = max(1, (high_y - low_y) // 5)
    return CostChart(
        *size.frame,
        line(1),
        line(2),
        tuple((x(10.0**d), 10.0**d) for d in decades if d % 2 == 0),
        tuple((y(10.0**d), y(10.0**d) + LABEL_BASELINE, _usd_label(10.0**d)) for d in range(low_y, high_y + 1, y_step)),
        x(volume) if points[0][0] <= volume <= points[-1][0] else None,
        line(3),
        tuple((x(v), v) for v in crossings if points[0][0] <= v <= points[-1][0]),
    )


def _usd_label(amount: float) -> str:
    """A power of ten in dollars as an axis label: $0.1, $1, $1K, $10M (the same in every language)."""
    for suffix, scale in (("B", 1e9), ("M", 1e6), ("K", 1e3)):
        if amount >= scale:
            return f"${amount / scale:g}{suffix}"
    return f"${amount:g}"
