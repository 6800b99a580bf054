"""Retention: raw offers past PRICING_OFFER_RETENTION_DAYS go only once folded; history and current prices stay."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest

from pricing.bundled import gpus_sync
from pricing.models import (
    Gpu,
    GpuPriceIndex,
    Offer,
    PriceSnapshot,
    Provider,
    ProviderPriceDay,
    SettledPriceDay,
)
from pricing.price_index import price_history_settle, price_index_compute
from pricing.retention import offers_prune, prunable_snapshots, pruning_boundary
from pricing.selectors import current_offers, price_history, provider_statuses
from tests.support import module_rows
from web.generations import PRICES_GENERATION

pytestmark = [pytest.mark.django_db, pytest.mark.xdist_group("retention")]

NOW = datetime(2026, 12, 31, 12, tzinfo=UTC)
FIRST_DAY = date(2026, 11, 1)
BOUNDARY = datetime(2026, 12, 1, tzinfo=UTC)  # NOW's day less 30 days of retention


def _snapshot(provider, at, outcome="success", same_as=None, offers=()):
    snapshot = PriceSnapshot.objects.create(
        provider=provider, captured_at=at, outcome=outcome, same_as=same_as, offer_count=len(offers)
    )
    for gpu_slug, kind, price in offers:
        Offer.objects.create(
            snapshot=snapshot,
            provider=provider,
            gpu=Gpu.objects.get(slug=gpu_slug),
            instance_name=f"{gpu_slug} x8",
            gpu_counts=[8],
            price_per_gpu_hour_usd=Decimal(price),
            pricing_kind=kind,
            captured_at=at,
        )
    return snapshot


def _write_history() -> None:
    """Two months of refreshes: A daily (new prices at 10:00, confirmed unchanged at 22:00, a spot price too)
    except on Dec 1; B once, on Nov 5, then failing every day since; C once, on Oct 20, never again."""
    gpus_sync()
    a = Provider.objects.create(slug="a", name="A")
    b = Provider.objects.create(slug="b", name="B")
    c = Provider.objects.create(slug="c", name="C")
    _snapshot(c, datetime(2026, 10, 20, 8, tzinfo=UTC), offers=[("b200", "on-demand", "9.00")])
    _snapshot(b, datetime(2026, 11, 5, 9, tzinfo=UTC), offers=[("h200-sxm", "on-demand", "6.00")])
    for n in range((NOW.date() - FIRST_DAY).days):
        day = datetime.combine(FIRST_DAY + timedelta(days=n), datetime.min.time(), tzinfo=UTC)
        if day.date() == date(2026, 12, 1):
            continue  # A's refreshes failed to run that day: its Nov 30 prices count for Dec 1
        price = f"{4 + n / 100:.2f}"
        new = _snapshot(
            a, day + timedelta(hours=10), offers=[("h200-sxm", "on-demand", price), ("h200-sxm", "spot", "2.00")]
        )
        _snapshot(a, day + timedelta(hours=22), outcome="unchanged", same_as=new)
        if day.date() > date(2026, 11, 5):
            _snapshot(b, day + timedelta(hours=9), outcome="failed")


_history_rows_written = module_rows(_write_history)


@pytest.fixture
def history(_history_rows_written, db, settings):
    """Providers A, B and C with their history (written once for the module), 30 days of retention."""
    settings.PRICING_OFFER_RETENTION_DAYS = 30
    settings.PRICING_STALE_AFTER_HOURS = 365 * 24  # B's and C's old prices stay in the history
    return tuple(Provider.objects.get(slug=slug) for slug in ("a", "b", "c"))


def _history_rows():
    return (
        sorted(GpuPriceIndex.objects.values_list("gpu__slug", "day", "median_usd", "cheapest_usd", "offer_count")),
        sorted(
            ProviderPriceDay.objects.values_list(
                "gpu__slug", "provider__slug", "pricing_kind", "day", "median_usd", "cheapest_usd", "offer_count"
            )
        ),
    )


def test_nothing_is_prunable_before_its_days_are_folded(history):
    assert pruning_boundary(NOW) == datetime(2026, 10, 20, tzinfo=UTC)  # the oldest snapshot's day is unsettled
    assert not prunable_snapshots(pruning_boundary(NOW)).exists()


def test_prune_keeps_the_history_and_the_current_prices_and_deletes_only_folded_offers(history):
    a, b, c = history
    price_history_settle(NOW)
    history_before = _history_rows()
    offers_before = current_offers(now=NOW)
    statuses_before = provider_statuses(now=NOW)
    generation = PRICES_GENERATION.current()
    offers_total = Offer.objects.count()

    result = offers_prune(NOW)

    assert result.boundary == BOUNDARY
    # A's 30 days before the boundary: one new-prices and one unchanged snapshot each, two offers per new one;
    # of the last day (Nov 30) both stay: A did not refresh on Dec 1, so they count for Dec 1. B: failed ones go.
    assert result.offers_deleted == 29 * 2
    assert result.snapshots_deleted == 29 * 2 + 25  # B failed every day from Nov 6 to Nov 30
    assert Offer.objects.count() == offers_total - result.offers_deleted
    assert not PriceSnapshot.objects.filter(provider=a, captured_at__lt=datetime(2026, 11, 30, tzinfo=UTC)).exists()
    # Each provider's current offers and refresh status are as they were, whatever their age.
    assert current_offers(now=NOW) == offers_before
    assert provider_statuses(now=NOW) == statuses_before
    assert PriceSnapshot.objects.filter(provider=c, captured_at__date=date(2026, 10, 20)).exists()
    assert PriceSnapshot.objects.filter(provider=b, outcome="success").count() == 1
    # Every day up to yesterday is settled, and the history is the same row for row.
    assert SettledPriceDay.objects.count() == (NOW.date() - date(2026, 10, 20)).days
    assert _history_rows() == history_before
    h200 = {p.day: p for p in price_history("h200-sxm")}
    assert h200[date(2026, 11, 10)].cheapest_usd == Decimal("4.09")  # A's price that day, folded before pruning
    assert h200[date(2026, 11, 10)].provider_count == 2 and h200[date(2026, 11, 10)].cheapest_at == ("A",)
    assert PRICES_GENERATION.current() != generation  # pages computed from the deleted rows are recomputed


def test_days_after_the_boundary_recompute_as_before_and_pruned_days_are_never_refolded(history):
    price_history_settle(NOW)
    history_before = _history_rows()
    offers_prune(NOW)
    # Dec 1 counts A's Nov 30 prices (A did not refresh that day): kept, so a recompute gives the same rows.
    price_index_compute(date(2026, 12, 1), NOW)
    # Nov 10's offers are gone: its settled history is left as it is, not replaced by a fold of what is left.
    assert price_index_compute(date(2026, 11, 10), NOW) == 2  # H200 SXM, and B200 (C)
    assert _history_rows() == history_before


def test_prune_twice_deletes_nothing_more(history):
    first = offers_prune(NOW)
    rows = _history_rows()
    snapshots = PriceSnapshot.objects.count()
    second = offers_prune(NOW)
    assert first.snapshots_deleted > 0
    assert (second.settled_days, second.snapshots_deleted, second.offers_deleted) == (0, 0, 0)
    assert PriceSnapshot.objects.count() == snapshots
    assert _history_rows() == rows


def test_the_per_provider_history_keeps_every_pricing_kind(history):
    offers_prune(NOW)
    a_spot = ProviderPriceDay.objects.filter(provider__slug="a", pricing_kind="spot")
    assert a_spot.count() == (NOW.date() - FIRST_DAY).days
    assert {row.cheapest_usd for row in a_spot} == {Decimal("2.00")}
    # The per-GPU index stays on-demand only.
    assert GpuPriceIndex.objects.get(gpu__slug="h200-sxm", day=date(2026, 11, 10)).cheapest_usd == Decimal("4.09")
