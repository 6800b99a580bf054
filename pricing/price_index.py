"""The daily price index per GPU type: median and cheapest on-demand price, offers and providers behind them.

``price_index_compute(day)`` reads snapshots (no provider traffic) and writes one ``GpuPriceIndex`` row per GPU
for the day; the daily beat task computes yesterday and today, so a day's row settles once the day is over. Rows
are kept indefinitely, so the GPU pages' charts outlive any pruning of snapshots.

Which offers count for a day: per provider, its newest good refresh (new prices or a confirmation of them) made
before the day ended; of that snapshot's on-demand offers, those seen at the source within
``PRICING_STALE_AFTER_HOURS`` of the day's end (a price read live is re-seen by every refresh that confirms it; a
curated price stays as old as its own capture date, so old curated rows drop out). Spot, community and reserved
prices never enter the index: it is the price anyone can rent at without interruption or commitment.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from statistics import median

from django.conf import settings
from django.db import transaction

from .models import Gpu, GpuPriceIndex, Offer, PriceSnapshot

INDEX_KIND = "on-demand"


@dataclass(frozen=True, slots=True)
class DayPrices:
    """One GPU's on-demand offers of one day (USD per GPU-hour), one price per offer."""

    prices: tuple[Decimal, ...]
    providers: frozenset[int]

    @property
    def median_usd(self) -> Decimal:
        return Decimal(median(sorted(self.prices))).quantize(Decimal("0.000001"))


def day_prices(day: date) -> dict[int, DayPrices]:
    """The offers that count for ``day``, per GPU id (see the module docstring)."""
    end = datetime.combine(day + timedelta(days=1), time.min, tzinfo=UTC)
    oldest = end - timedelta(hours=settings.PRICING_STALE_AFTER_HOURS)
    good = (PriceSnapshot.Outcome.SUCCESS, PriceSnapshot.Outcome.UNCHANGED)
    newest: dict[int, tuple[int, datetime]] = {}  # provider -> (success snapshot id, when confirmed)
    snapshots = PriceSnapshot.objects.filter(outcome__in=good, captured_at__lt=end).order_by(
        "provider_id", "-captured_at", "-id"
    )
    for provider_id, snapshot_id, same_as_id, captured_at in snapshots.values_list(
        "provider_id", "id", "same_as_id", "captured_at"
    ):
        if provider_id not in newest:
            newest[provider_id] = (same_as_id or snapshot_id, captured_at)
    confirmed = {snapshot_id: seen_at for snapshot_id, seen_at in newest.values()}
    by_gpu: dict[int, dict[tuple, Decimal]] = defaultdict(dict)
    providers: dict[int, set[int]] = defaultdict(set)
    offers = Offer.objects.filter(snapshot_id__in=list(confirmed), pricing_kind=INDEX_KIND).values_list(
        "snapshot_id", "snapshot__captured_at", "captured_at", "gpu_id", "provider_id", "instance_name", "region",
        "price_per_gpu_hour_usd",
    )  # fmt: skip
    for snapshot_id, snapshot_at, offer_at, gpu_id, provider_id, instance, region, price in offers:
        seen_at = confirmed[snapshot_id] if offer_at == snapshot_at else offer_at
        if seen_at < oldest:
            continue
        by_gpu[gpu_id][(provider_id, instance, region)] = price
        providers[gpu_id].add(provider_id)
    return {gpu: DayPrices(tuple(prices.values()), frozenset(providers[gpu])) for gpu, prices in by_gpu.items()}


def price_index_compute(day: date, now: datetime | None = None) -> int:
    """Write the index rows of ``day`` (replacing that day's earlier rows); returns how many GPUs have one."""
    computed_at = now or datetime.now(UTC)
    prices = day_prices(day)
    with transaction.atomic():
        GpuPriceIndex.objects.filter(day=day).exclude(gpu_id__in=list(prices)).delete()
        for gpu in Gpu.objects.filter(pk__in=list(prices)):
            entry = prices[gpu.pk]
            GpuPriceIndex.objects.update_or_create(
                gpu=gpu,
                day=day,
                defaults={
                    "median_usd": entry.median_usd,
                    "cheapest_usd": min(entry.prices),
                    "offer_count": len(entry.prices),
                    "provider_count": len(entry.providers),
                    "computed_at": computed_at,
                },
            )
    return len(prices)
