"""Selectors: current offers with their capture date and stale flag, price history per GPU, the footer date."""

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.management import call_command

from pricing.bundled import gpus_sync
from pricing.models import Gpu, Offer, PriceSnapshot, Provider
from pricing.price_index import price_history_settle
from pricing.selectors import (
    ProviderStatus,
    current_offers,
    price_history,
    prices_captured_at,
    provider_statuses,
)
from pricing.services import offers_refresh

pytestmark = pytest.mark.django_db

SEED_DAY = datetime(2026, 11, 13, tzinfo=UTC)


@pytest.fixture
def seed():
    call_command("loaddata", "seed_offers_2026-11-13", verbosity=0)


def _snapshot(provider, at, outcome="success", **prices):
    snapshot = PriceSnapshot.objects.create(provider=provider, captured_at=at, outcome=outcome)
    for gpu_slug, price in prices.items():
        Offer.objects.create(
            snapshot=snapshot,
            provider=provider,
            gpu=Gpu.objects.get(slug=gpu_slug.replace("_", "-")),
            instance_name="x",
            gpu_counts=[8],
            price_per_gpu_hour_usd=Decimal(price),
            captured_at=at,
        )
    return snapshot


def test_current_offers_are_fresh_within_the_stale_window(seed):
    offers = current_offers(now=SEED_DAY + timedelta(days=1))
    assert len(offers) == 10 and not any(o.stale for o in offers)


def test_current_offers_turn_stale_after_the_window_and_keep_their_date(seed, settings):
    settings.PRICING_STALE_AFTER_HOURS = 24
    offers = current_offers(now=SEED_DAY + timedelta(days=3))
    assert all(o.stale and o.captured_at == SEED_DAY for o in offers)


def test_current_offers_filter_by_gpu_provider_and_kind(seed):
    assert {o.provider_slug for o in current_offers(gpu_slugs=["h200-sxm"])} == {"nebius", "coreweave", "aws"}
    assert {o.gpu_slug for o in current_offers(provider_slugs=["runpod"])} == {"mi300x", "h200-nvl", "b300", "a40"}
    assert current_offers(pricing_kinds=["spot"]) == []


def test_offer_records_carry_exact_instance_prices(seed):
    (aws,) = current_offers(provider_slugs=["aws"])
    assert aws.instance_price_per_hour(8) == 63.296 and aws.price_per_gpu_hour_usd == 7.912


def test_a_failed_latest_refresh_marks_the_provider_stale(seed):
    provider = Provider.objects.get(slug="lambda")
    PriceSnapshot.objects.create(
        provider=provider, captured_at=SEED_DAY + timedelta(hours=1), outcome="failed", error="ReadTimeout"
    )
    now = SEED_DAY + timedelta(hours=2)
    offers = {o.provider_slug: o for o in current_offers(now=now)}
    assert offers["lambda"].stale and not offers["runpod"].stale
    status = {s.slug: s for s in provider_statuses(now=now)}
    assert status["lambda"].stale and status["lambda"].last_error == "ReadTimeout"
    assert status["lambda"].offer_count == 1 and status["lambda"].last_good_at == SEED_DAY


def test_price_history_gives_median_and_cheapest_per_day_from_the_folded_history():
    gpus_sync()
    a = Provider.objects.create(slug="a", name="A")
    b = Provider.objects.create(slug="b", name="B")
    day1 = datetime(2026, 11, 1, 10, tzinfo=UTC)
    _snapshot(a, day1, h200_sxm="4.00")
    _snapshot(b, day1, h200_sxm="6.00")
    _snapshot(a, day1 + timedelta(hours=5), h200_sxm="4.00")  # the same offer twice a day counts once
    _snapshot(a, day1 + timedelta(days=1), h200_sxm="3.00")
    _snapshot(b, day1 + timedelta(days=1), outcome="failed")  # B's last good prices stay current
    assert price_history("h200-sxm") == []  # nothing folded yet: pages never read raw offers for history
    price_history_settle(datetime(2026, 11, 3, 6, tzinfo=UTC))
    points = price_history("h200-sxm")
    assert [(p.day, p.median_usd, p.cheapest_usd, p.offer_count, p.provider_count, p.cheapest_at) for p in points] == [
        (date(2026, 11, 1), Decimal("5.000000"), Decimal("4.000000"), 2, 2, ("A",)),
        (date(2026, 11, 2), Decimal("4.500000"), Decimal("3.000000"), 2, 2, ("A",)),
    ]
    assert price_history("h200-sxm", since=date(2026, 11, 2))[0].day == date(2026, 11, 2)
    assert price_history("b200") == []


def test_prices_captured_at_is_the_newest_price_day(seed):
    assert prices_captured_at() == date(2026, 11, 13)


def test_prices_captured_at_is_none_without_prices():
    assert prices_captured_at() is None


def test_prices_captured_at_is_read_from_the_cache_until_the_next_price_store(
    seed, django_assert_num_queries, django_assert_max_num_queries
):
    with django_assert_max_num_queries(1):  # one index lookup, once
        assert prices_captured_at() == date(2026, 11, 13)
    with django_assert_num_queries(0):
        assert prices_captured_at() == date(2026, 11, 13)
    # A refresh stores newer prices and bumps the generation: the next page shows them.
    gpus_sync()
    raw = (Path(__file__).resolve().parent.parent / "data" / "provider-apis" / "runpod-example.json").read_bytes()
    assert offers_refresh("runpod", raw=raw, now=datetime(2026, 11, 20, 9, tzinfo=UTC)).outcome == "success"
    assert prices_captured_at() == date(2026, 11, 20)


def test_footer_shows_the_price_capture_date_in_each_language(seed, client):
    english = client.get("/en/").content.decode()
    german = client.get("/de/").content.decode()
    assert 'data-captured="2026-11-13"' in english
    assert "Prices captured Nov 13, 2026." in english
    assert "Preise erfasst am 13. Nov. 2026." in german


def test_a_refresh_that_left_only_old_prices_reads_as_no_current_prices():
    def status(outcome: str, stale: bool) -> ProviderStatus:
        return ProviderStatus("runpod", "RunPod", "", "", True, None, outcome, "", None, 3, stale)

    assert status("success", stale=True).refresh_outcome == "stale"
    assert status("unchanged", stale=True).refresh_outcome == "stale"
    assert status("success", stale=False).refresh_outcome == "success"
    assert status("failed", stale=True).refresh_outcome == "failed"  # the failure is the news
