"""Waiting for a free place in a full engine: when a replica's batch is bounded by its KV cache or its sequence limit,
an arriving request waits until one running finishes (docs/methodology.md §5.7).

The engine's ``slots`` places each hold a request for its whole life (prefill and every answer token), so a replica
is a queue with ``slots`` servers. Arrivals are Poisson; lifetimes are taken as exponential, the M/M/c queue (Erlang
C), which waits longer than requests of equal lengths would (M/D/c) and so errs towards more replicas. The planner
loads such a replica only as far as the share ``q`` of requests still gets its first token within the target.
"""

from __future__ import annotations

import math

# bisection steps over the offered load (a share of 2⁻⁴⁰ of the slots)
_STEPS = 40


def erlang_c(slots: int, load: float) -> float:
    """The chance an arrival waits, for ``slots`` servers offered ``load`` Erlangs (arrival rate × lifetime); 1 when
    the load is the slots or more."""
    if load <= 0:
        return 0.0
    if load >= slots:
        return 1.0
    blocking = 1.0  # Erlang B by its recurrence, stable for hundreds of slots
    for k in range(1, slots + 1):
        blocking = load * blocking / (k + load * blocking)
    return slots * blocking / (slots - load * (1 - blocking))


def wait_quantile(slots: int, load: float, lifetime_s: float, q: float) -> float:
    """The ``q`` quantile of the wait for a free slot, seconds: P(wait > t) = C · e^(−(slots − load) t ÷ lifetime)."""
    if load >= slots:
        return math.inf
    waits = erlang_c(slots, load)
    if waits <= 1 - q:
        return 0.0
    return math.log(waits / (1 - q)) * lifetime_s / (slots - load)


def largest_load(slots: int, lifetime_s: float, q: float, wait_budget_s: float) -> float:
    """The largest load (Erlangs) at which the share ``q`` of arrivals waits at most ``wait_budget_s`` for a slot."""
    if slots < 1 or lifetime_s <= 0:
        return 0.0
    low, high = 0.0, float(slots)
    for _ in range(_STEPS):
        middle = (low + high) / 2
        if wait_quantile(slots, middle, lifetime_s, q) <= wait_budget_s:
            low = middle
        else:
            high = middle
    return low
