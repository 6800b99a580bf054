"""Waiting for a free place in a full engine (calculator/estimation/plan/queueing.py): the M/M/c queue."""

from __future__ import annotations

import math

import pytest

from calculator.estimation.plan.queueing import erlang_c, largest_load, wait_quantile


def test_erlang_c_matches_the_closed_forms():
    # one server: an arrival waits with the server's utilisation; two at half load: 2ρ² ÷ (1 + ρ) = 1/3
    assert erlang_c(1, 0.7) == pytest.approx(0.7)
    assert erlang_c(2, 1.0) == pytest.approx(1 / 3)
    assert erlang_c(10, 0.0) == 0.0 and erlang_c(10, 10.0) == 1.0
    assert erlang_c(300, 280.0) < erlang_c(300, 295.0) < 1.0  # stable for hundreds of places


def test_the_wait_quantile_and_the_largest_load_invert_each_other():
    # M/M/1 at ρ = 0.8, lifetime 1 s: P(wait > t) = 0.8·e^(−0.2t), so the 95th percentile is ln(16) ÷ 0.2 s
    assert wait_quantile(1, 0.8, 1.0, 0.95) == pytest.approx(math.log(0.8 / 0.05) / 0.2)
    assert wait_quantile(4, 0.5, 30.0, 0.95) == 0.0  # fewer than one in twenty waits at all
    assert wait_quantile(4, 4.0, 30.0, 0.95) == math.inf
    load = largest_load(64, 40.0, 0.95, 1.5)
    assert 0 < load < 64 and wait_quantile(64, load, 40.0, 0.95) == pytest.approx(1.5, abs=1e-6)
    assert largest_load(64, 40.0, 0.95, 3.0) > load  # a longer budget admits more load
    assert largest_load(0, 40.0, 0.95, 1.5) == 0.0
