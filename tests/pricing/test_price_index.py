"""The daily price history per GPU and per provider, computed from recorded snapshots."""

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from pricing.bundled import gpus_sync
from pricing.models import ProviderPriceDay, SettledPriceDay
from pricing.price_index import price_history_settle, price_index_compute
from pricing.providers import gpuhunt_source
from pricing.selectors import price_history
from pricing.services import offers_refresh

DATA = Path(__file__).resolve().parent.parent / "data"
DAY1 = datetime(2026, 8, 8, 15, 32, tzinfo=UTC)


def _catalog(provider: str, version: str = "assembled-20260615") -> bytes:
    text = (DATA / "gpuhunt" / "v3" / provider / version / f"{provider}.csv").read_text()
    return gpuhunt_source.payload_bytes(provider, version, "recorded", text)


@pytest.fixture
def snapshots(db):
    gpus_sync()
    # Day 1: RunPod's recorded gpuTypes (H200 Secure Cloud $4.59; Community Cloud and spot $3.59) and
    # AWS's catalog (p5en.48xlarge $7.912 per GPU-hour).
    offers_refresh("runpod", raw=(DATA / "provider-apis" / "runpod-example.json").read_bytes(), now=DAY1)
    offers_refresh("aws", raw=_catalog("aws"), now=DAY1)
    # Day 2: Azure's catalog joins (ND96isr_H200_v5 $10.60/GPU-h); RunPod and AWS are confirmed unchanged.
    day2 = DAY1 + timedelta(days=1)
    offers_refresh("runpod", raw=(DATA / "provider-apis" / "runpod-example.json").read_bytes(), now=day2)
    offers_refresh("aws", raw=_catalog("aws"), now=day2)
    offers_refresh("azure", raw=_catalog("azure"), now=day2)


def test_the_index_median_per_day_comes_from_that_days_on_demand_offers(snapshots):
    for day in (date(2026, 8, 8), date(2026, 8, 9)):
        price_index_compute(day)
    day1, day2 = price_history("h200-sxm")
    # Day 1: RunPod Secure Cloud 4.59 and AWS 7.912 -> median 6.251.
    assert (day1.day, day1.offer_count, day1.provider_count) == (date(2026, 8, 8), 2, 2)
    assert (day1.median_usd, day1.cheapest_usd) == (Decimal("6.251"), Decimal("4.59"))
    # Day 2: 4.59, 7.912 and Azure's 10.6 -> median 7.912.
    assert (day2.offer_count, day2.provider_count, day2.median_usd) == (3, 3, Decimal("7.912"))


def test_spot_and_community_prices_stay_out_of_the_index(snapshots):
    price_index_compute(date(2026, 8, 8))
    (point,) = price_history("h200-sxm")
    assert point.cheapest_usd == Decimal("4.59")  # not RunPod's community or spot H200 price, 3.59


def test_recomputing_a_day_replaces_its_row(snapshots):
    assert price_index_compute(date(2026, 8, 8)) == price_index_compute(date(2026, 8, 8))
    assert len(price_history("h200-sxm")) == 1


def test_the_per_provider_history_holds_each_providers_prices_of_every_kind(snapshots):
    price_index_compute(date(2026, 8, 9))
    rows = {
        (slug, kind): (median_usd, cheapest_usd, count)
        for slug, kind, median_usd, cheapest_usd, count in ProviderPriceDay.objects.filter(
            gpu__slug="h200-sxm", day=date(2026, 8, 9)
        ).values_list("provider__slug", "pricing_kind", "median_usd", "cheapest_usd", "offer_count")
    }
    assert rows[("runpod", "on-demand")] == (Decimal("4.59"), Decimal("4.59"), 1)
    assert rows[("azure", "on-demand")][1] == Decimal("10.6")
    assert rows[("runpod", "community")][1] == Decimal("3.59")  # kept here, never in the per-GPU index
    (point,) = price_history("h200-sxm")
    assert (point.cheapest_usd, point.cheapest_at, point.provider_count) == (Decimal("4.59"), ("RunPod",), 3)


def test_settling_folds_each_finished_day_once_and_leaves_today_open(snapshots):
    now = datetime(2026, 8, 10, 6, tzinfo=UTC)
    assert set(price_history_settle(now)) == {"2026-08-08", "2026-08-09"}
    assert set(SettledPriceDay.objects.values_list("day", flat=True)) == {date(2026, 8, 8), date(2026, 8, 9)}
    assert price_history_settle(now) == {}
    # A refresh still running at midnight may store its snapshot up to its time limit later: not settled yet.
    assert price_history_settle(datetime(2026, 8, 11, 0, 1, tzinfo=UTC)) == {}
    assert set(price_history_settle(datetime(2026, 8, 11, 0, 10, tzinfo=UTC))) == {"2026-08-10"}
