"""The daily on-demand price index per GPU, computed from recorded snapshots."""

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from pricing.price_index import price_index_compute
from pricing.providers import gpuhunt_source
from pricing.selectors import price_index
from pricing.services import gpus_sync, offers_refresh

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
    day1, day2 = price_index("h200-sxm")
    # Day 1: RunPod Secure Cloud 4.59 and AWS 7.912 -> median 6.251.
    assert (day1.day, day1.offer_count, day1.provider_count) == (date(2026, 8, 8), 2, 2)
    assert (day1.median_usd, day1.cheapest_usd) == (Decimal("6.251"), Decimal("4.59"))
    # Day 2: 4.59, 7.912 and Azure's 10.6 -> median 7.912.
    assert (day2.offer_count, day2.provider_count, day2.median_usd) == (3, 3, Decimal("7.912"))


def test_spot_and_community_prices_stay_out_of_the_index(snapshots):
    price_index_compute(date(2026, 8, 8))
    (point,) = price_index("h200-sxm")
    assert point.cheapest_usd == Decimal("4.59")  # not RunPod's community or spot H200 price, 3.59


def test_recomputing_a_day_replaces_its_row(snapshots):
    assert price_index_compute(date(2026, 8, 8)) == price_index_compute(date(2026, 8, 8))
    assert len(price_index("h200-sxm")) == 1
