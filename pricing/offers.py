"""Plain offer records: what one provider charges for one GPU type in one instance shape.

Pure (no Django import). Selectors in ``pricing/selectors.py`` build these from the database; provider parsers
in ``pricing/providers/`` build them from API payloads; the ranking in ``calculator/estimation/plan/ranking.py``
consumes them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from typing import Literal

from .gpus import form_factor_named

PricingKind = Literal["on-demand", "spot", "community", "reserved"]
PRICING_KINDS: tuple[PricingKind, ...] = ("on-demand", "spot", "community", "reserved")

Confidence = Literal["high", "medium", "low"]
CONFIDENCES: tuple[Confidence, ...] = ("high", "medium", "low")

HOURS_PER_MONTH = 730  # the seed's month: 365 × 24 / 12

# A price per GPU-hour above this is a parse error or a placeholder, not a price (providers refuse it).
MAX_PRICE_PER_GPU_HOUR_USD = Decimal("200")


@dataclass(frozen=True, slots=True)
class OfferRecord:
    """One rentable offer.

    ``price_per_gpu_hour_usd`` is the price per GPU-hour as a float for arithmetic. Where the source quotes a
    whole-instance price (AWS p5en.48xlarge $63.296/h, CoreWeave 8 × H200 $50.44/h), ``instance_price_usd``
    holds it exactly, keyed by the GPU count it buys, and ``instance_price_per_hour`` uses it, so totals come
    out exactly as the provider states them.
    """

    provider_slug: str
    provider_name: str
    gpu_slug: str
    instance_name: str
    gpu_counts: tuple[int, ...]  # GPU counts one instance can be rented with, ascending; () = not published
    price_per_gpu_hour_usd: float
    pricing_kind: PricingKind = "on-demand"
    region: str = ""
    captured_at: datetime | date | None = None
    url: str = ""
    stale: bool = False
    confidence: Confidence = "high"
    source: str = ""
    notes: str = ""
    instance_price_usd: tuple[tuple[int, float], ...] = field(default=())  # (gpu count, USD per hour)
    term: str = ""  # commitment term of reserved prices ("1y", "3y", "savings-plan-1y")
    availability: str = ""  # stock as the source reported it at ``captured_at`` ("High", "Low"); "" = not reported

    def instance_price_per_hour(self, gpu_count: int) -> float:
        """What one instance of ``gpu_count`` GPUs costs per hour, in USD."""
        for count, price in self.instance_price_usd:
            if count == gpu_count:
                return price
        return self.price_per_gpu_hour_usd * gpu_count

    def smallest_count_covering(self, gpus_needed: int) -> int | None:
        """The smallest allowed GPU count ≥ ``gpus_needed``, or ``None`` if no instance is big enough.

        Where the source does not publish instance sizes, the offer is taken at exactly ``gpus_needed``
        (``sizes_known`` is then false and pages say so).
        """
        if not self.gpu_counts:
            return gpus_needed
        for count in self.gpu_counts:
            if count >= gpus_needed:
                return count
        return None

    @property
    def sizes_known(self) -> bool:
        return bool(self.gpu_counts)

    @property
    def form_factor_stated(self) -> bool:
        """False where the GPU comes in several form factors (SXM, PCIe, NVL) and the instance name says none of
        them: the offer is counted as the part its provider's mapping chose, and pages say the offer does not name
        it (pricing/gpus.py FORM_FACTOR_WORDS)."""
        return form_factor_named(self.gpu_slug, self.instance_name)

    @property
    def largest_gpu_count(self) -> int | None:
        """The most GPUs one instance is rented with (pages choose "GPU" or "GPUs" by it); None when not published."""
        return max(self.gpu_counts, default=None)

    @property
    def natural_key(self) -> tuple[str, str, str, str, str, str]:
        """What identifies an offer across refreshes: provider, GPU, instance, pricing kind, term, region."""
        return (self.provider_slug, self.gpu_slug, self.instance_name, self.pricing_kind, self.term, self.region)


def as_pricing_kind(value: str) -> PricingKind:
    """``value`` as a pricing kind (stored rows hold plain strings), or ``ValueError``."""
    for kind in PRICING_KINDS:
        if value == kind:
            return kind
    raise ValueError(f"unknown pricing kind {value!r}")


def as_confidence(value: str) -> Confidence:
    """``value`` as a confidence (stored rows hold plain strings), or ``ValueError``."""
    for level in CONFIDENCES:
        if value == level:
            return level
    raise ValueError(f"unknown confidence {value!r}")


def normalise_gpu_counts(counts: object) -> tuple[int, ...]:
    """Sorted, de-duplicated positive GPU counts (``None`` or ``[]`` = unknown → ``()``); else ``ValueError``."""
    if counts is None or (isinstance(counts, list | tuple) and not counts):
        return ()
    if isinstance(counts, int) and not isinstance(counts, bool):
        counts = (counts,)
    if not isinstance(counts, list | tuple):
        raise ValueError(f"GPU counts must be a list of integers, got {counts!r}")
    result = set()
    for count in counts:
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise ValueError(f"GPU count must be a positive integer, got {count!r}")
        result.add(count)
    return tuple(sorted(result))


@dataclass(frozen=True, slots=True)
class StaleOffers:
    """The stale prices among a table's offers, said once under the table instead of on every row."""

    count: int
    total: int
    first_seen: date | None  # the oldest and newest capture day among them (None when none has a date)
    last_seen: date | None


def stale_offers(offers: Sequence[OfferRecord]) -> StaleOffers | None:
    """How many of ``offers`` are stale and over which capture days; None when none is."""
    days = [
        o.captured_at.date() if isinstance(o.captured_at, datetime) else o.captured_at
        for o in offers
        if o.stale and o.captured_at is not None
    ]
    count = sum(1 for o in offers if o.stale)
    if not count:
        return None
    return StaleOffers(count, len(offers), min(days, default=None), max(days, default=None))
