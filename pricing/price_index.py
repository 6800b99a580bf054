"""The daily price history: per GPU type (``GpuPriceIndex``) and per GPU type, provider and pricing kind
(``ProviderPriceDay``), each day's median and cheapest price per GPU-hour and the offers behind them.

``price_index_compute(day)`` reads snapshots (no provider traffic) and writes both for the day in one transaction;
``price_history_settle(now)`` does that once for every finished day not settled yet and marks it settled
(``SettledPriceDay``). The beat task runs both every 6 hours (finished days settle, today so far). Rows are kept
indefinitely, so the GPU pages' charts outlive the pruning of raw offers (``pricing.retention``).

Which offers count for a day: per provider, its newest good refresh (new prices or a confirmation of them) made
before the day ended; of that snapshot's offers, those seen at the source within ``PRICING_STALE_AFTER_HOURS`` of
the day's end (a price read live is re-seen by every refresh that confirms it; a curated price stays as old as its
own capture date, so old curated rows drop out). The per-GPU index is on-demand only: the price anyone can rent
at without interruption or commitment; the per-provider history keeps every pricing kind.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from statistics import median

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Min, OuterRef, Subquery

from web.generations import PRICES_GENERATION

from .models import GpuPriceIndex, Offer, PriceSnapshot, Provider, ProviderPriceDay, SettledPriceDay

INDEX_KIND = "on-demand"
GOOD = (PriceSnapshot.Outcome.SUCCESS, PriceSnapshot.Outcome.UNCHANGED)


@dataclass(frozen=True, slots=True)
class DayPrices:
    """Offers of one day (USD per GPU-hour), one price per offer."""

    prices: tuple[Decimal, ...]
    providers: frozenset[int]

    @property
    def median_usd(self) -> Decimal:
        return Decimal(median(sorted(self.prices))).quantize(Decimal("0.000001"))

    @property
    def cheapest_usd(self) -> Decimal:
        return min(self.prices)


def day_end(day: date) -> datetime:
    return datetime.combine(day + timedelta(days=1), time.min, tzinfo=UTC)


def _current_snapshots(end: datetime) -> dict[int, datetime]:
    """Per provider, the snapshot whose offers were current at ``end``: success snapshot id -> when last seen."""
    newest = PriceSnapshot.objects.filter(provider=OuterRef("pk"), outcome__in=GOOD, captured_at__lt=end).order_by(
        "-captured_at", "-id"
    )
    providers = Provider.objects.annotate(
        snapshot_id=Subquery(newest.values("id")[:1]),
        same_as_id=Subquery(newest.values("same_as_id")[:1]),
        seen_at=Subquery(newest.values("captured_at")[:1]),
    ).filter(snapshot_id__isnull=False)
    return {
        same_as_id or snapshot_id: seen_at
        for snapshot_id, same_as_id, seen_at in providers.values_list("snapshot_id", "same_as_id", "seen_at")
    }


def provider_day_prices(day: date) -> dict[tuple[int, int, str], DayPrices]:
    """The offers that count for ``day`` (module docstring), per (GPU id, provider id, pricing kind)."""
    end = day_end(day)
    oldest = end - timedelta(hours=settings.PRICING_STALE_AFTER_HOURS)
    confirmed = _current_snapshots(end)
    found: dict[tuple[int, int, str], dict[tuple, Decimal]] = defaultdict(dict)
    offers = Offer.objects.filter(snapshot_id__in=list(confirmed)).values_list(
        "snapshot_id", "snapshot__captured_at", "captured_at", "gpu_id", "provider_id", "pricing_kind", "term",
        "instance_name", "region", "price_per_gpu_hour_usd",
    )  # fmt: skip
    for snapshot_id, snapshot_at, offer_at, gpu_id, provider_id, kind, term, instance, region, price in offers:
        seen_at = confirmed[snapshot_id] if offer_at == snapshot_at else offer_at
        if seen_at < oldest:
            continue
        found[(gpu_id, provider_id, kind)][(instance, region, term)] = price
    return {key: DayPrices(tuple(prices.values()), frozenset({key[1]})) for key, prices in found.items()}


def _gpu_prices(by_provider: dict[tuple[int, int, str], DayPrices]) -> dict[int, DayPrices]:
    prices: dict[int, list[Decimal]] = defaultdict(list)
    providers: dict[int, set[int]] = defaultdict(set)
    for (gpu_id, provider_id, kind), entry in by_provider.items():
        if kind == INDEX_KIND:
            prices[gpu_id].extend(entry.prices)
            providers[gpu_id].add(provider_id)
    return {gpu: DayPrices(tuple(prices[gpu]), frozenset(providers[gpu])) for gpu in prices}


def retention_start(now: datetime) -> datetime:
    """Raw offers older than this may be pruned (``PRICING_OFFER_RETENTION_DAYS``, from the start of that day)."""
    first_day = now.astimezone(UTC).date() - timedelta(days=settings.PRICING_OFFER_RETENTION_DAYS)
    return datetime.combine(first_day, time.min, tzinfo=UTC)


def price_index_compute(day: date, now: datetime | None = None) -> int:
    """Write the day's price history (replacing that day's earlier rows); returns how many GPUs have an on-demand
    price that day. A settled day before the retention window is left as it is: its offers may be pruned, and a
    fold of what is left would replace its history with a part of it."""
    computed_at = now or datetime.now(UTC)
    if day_end(day) <= retention_start(computed_at) and SettledPriceDay.objects.filter(day=day).exists():
        return GpuPriceIndex.objects.filter(day=day).count()
    by_provider = provider_day_prices(day)
    by_gpu = _gpu_prices(by_provider)
    try:
        with transaction.atomic():
            _write_day(day, by_provider, by_gpu, computed_at)
    except IntegrityError:
        pass  # another run wrote the same day at the same moment, from the same snapshots
    PRICES_GENERATION.bump()  # pages show the history: one cached under the old rows is recomputed
    return len(by_gpu)


def _write_day(
    day: date,
    by_provider: dict[tuple[int, int, str], DayPrices],
    by_gpu: dict[int, DayPrices],
    computed_at: datetime,
) -> None:
    GpuPriceIndex.objects.filter(day=day).delete()
    GpuPriceIndex.objects.bulk_create(
        GpuPriceIndex(
            gpu_id=gpu_id,
            day=day,
            median_usd=entry.median_usd,
            cheapest_usd=entry.cheapest_usd,
            offer_count=len(entry.prices),
            provider_count=len(entry.providers),
            computed_at=computed_at,
        )
        for gpu_id, entry in by_gpu.items()
    )
    ProviderPriceDay.objects.filter(day=day).delete()
    ProviderPriceDay.objects.bulk_create(
        ProviderPriceDay(
            gpu_id=gpu_id,
            provider_id=provider_id,
            pricing_kind=kind,
            day=day,
            median_usd=entry.median_usd,
            cheapest_usd=entry.cheapest_usd,
            offer_count=len(entry.prices),
            computed_at=computed_at,
        )
        for (gpu_id, provider_id, kind), entry in by_provider.items()
    )


def finished_before(now: datetime) -> date:
    """The first day that is not final yet at ``now``: a refresh started before midnight may store its snapshot
    (dated when it started) up to its time limit after it, so a day settles only once that has passed too."""
    grace = timedelta(seconds=settings.PRICING_REFRESH_TIME_LIMIT_SECONDS)
    return (now.astimezone(UTC) - grace).date()


def unsettled_days(now: datetime) -> list[date]:
    """Finished days since the oldest stored snapshot whose history is not settled yet, oldest first."""
    oldest = PriceSnapshot.objects.aggregate(oldest=Min("captured_at"))["oldest"]
    if oldest is None:
        return []
    first, stop = oldest.astimezone(UTC).date(), finished_before(now)
    settled = set(SettledPriceDay.objects.filter(day__gte=first).values_list("day", flat=True))
    return [first + timedelta(days=n) for n in range((stop - first).days) if first + timedelta(days=n) not in settled]


def price_history_settle(now: datetime | None = None) -> dict[str, int]:
    """Fold every finished day not settled yet (normally just yesterday) and mark it settled, each day in its own
    transaction so an interrupted run keeps what it did. Returns {ISO day: GPUs with an on-demand price}."""
    now = now or datetime.now(UTC)
    computed = {}
    for day in unsettled_days(now):
        by_provider = provider_day_prices(day)
        by_gpu = _gpu_prices(by_provider)
        try:
            with transaction.atomic():
                _write_day(day, by_provider, by_gpu, now)
                SettledPriceDay.objects.create(day=day, settled_at=now)
        except IntegrityError:
            continue  # settled by another run at the same moment (the index and the prune task both settle)
        computed[day.isoformat()] = len(by_gpu)
    if computed:
        PRICES_GENERATION.bump()
    return computed


def first_unsettled_day(now: datetime) -> date:
    """Every day before this one is settled (or older than every stored snapshot): offers that count only for
    such days are folded into the history."""
    days = unsettled_days(now)
    return days[0] if days else finished_before(now)
