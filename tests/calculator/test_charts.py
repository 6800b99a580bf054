"""The server-drawn charts: every chart in a wide and a phone-sized drawing, and flat curves said in words."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from calculator.charts import NARROW, SIZES, WIDE, context_chart, cost_chart, is_flat, price_chart, prices_flat
from calculator.estimation import GB


@dataclass(frozen=True)
class Point:
    context: int
    total_bytes: int


@dataclass(frozen=True)
class Budget:
    label: str
    usable_bytes: int


GROWING = [Point(2**k, int((16 + 2 ** (k - 10)) * GB)) for k in range(10, 18)]


def test_every_chart_is_drawn_wide_and_narrow_inside_its_own_frame():
    for size in SIZES:
        chart = context_chart(GROWING, [Budget("H100", int(72 * GB))], size)
        assert chart is not None and chart.variant == size.variant
        assert (chart.width, chart.height) == (size.width, size.height)
        for x, y, _context, _bytes in chart.dots:
            assert chart.plot_left <= x <= chart.plot_right and chart.plot_top <= y <= chart.plot_bottom
        gaps = [b.position - a.position for a, b in zip(chart.x_ticks, chart.x_ticks[1:], strict=False)]
        assert all(gap >= 60 for gap in gaps)  # labels never touch, on the phone's drawing too
    # the phone drawing is about as wide as a 360–375 px screen's column, so its 13-unit labels read at ≥ 12 px
    assert 320 <= NARROW.width <= 352 < WIDE.width


def test_a_need_that_hardly_changes_with_the_context_is_not_drawn():
    flat = [Point(2**k, int(40 * GB) + k * 1000) for k in range(10, 18)]
    assert is_flat([p.total_bytes for p in flat]) and context_chart(flat, []) is None
    assert not is_flat([p.total_bytes for p in GROWING])


def test_prices_that_never_moved_are_said_not_drawn():
    start = date(2026, 11, 1)
    still = [(start + timedelta(days=i), 2.49, 1.99) for i in range(5)]
    moving = [(start + timedelta(days=i), 2.49 - i * 0.2, 1.99) for i in range(5)]
    assert prices_flat(still) and price_chart(still) is None
    assert not prices_flat(moving)
    narrow = price_chart(moving, NARROW)
    assert narrow is not None and narrow.variant == "narrow" and len(narrow.x_ticks) >= 2


def test_the_cost_chart_skips_points_a_kind_has_no_price_for():
    points = [(10.0**v, 10.0 ** (v - 5), None if v < 8 else 2000.0, None) for v in range(6, 12)]
    chart = cost_chart(points, 1e9, size=NARROW)
    assert chart is not None and chart.owned == ""
    assert len(chart.api.split()) == 6 and len(chart.rented.split()) == 4
