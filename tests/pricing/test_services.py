"""offers_refresh: recorded responses in, append-only snapshots out; every failure keeps the last good offers."""

import json
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
import respx

from pricing.bundled import gpus_sync
from pricing.models import Gpu, Offer, PriceSnapshot, Provider
from pricing.providers import runpod
from pricing.selectors import current_offers, provider_statuses
from pricing.services import (
    offers_refresh,
    offline_refresh,
    refresh_lock,
    refresh_lock_expires_in,
    refresh_lock_seconds,
)
from web.generations import PRICES_GENERATION

RECORDED = Path(__file__).resolve().parent.parent / "data" / "provider-apis"
RUNPOD_RAW = (RECORDED / "runpod-example.json").read_bytes()
T0 = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def gpus():
    gpus_sync()


@pytest.fixture(autouse=True)
def fresh_cache():
    from django.core.cache import cache

    cache.clear()


def _runpod(body=None, *, status=200, side_effect=None):
    route = respx.post(runpod.INFO.endpoint)
    if side_effect is not None:
        route.side_effect = side_effect
    else:
        route.return_value = httpx.Response(status, content=body if body is not None else RUNPOD_RAW)
    return route


def _drifted(**changes) -> bytes:
    payload = json.loads(RUNPOD_RAW)
    row = payload["data"]["gpuTypes"][6]  # H200
    for key, value in changes.items():
        if value is KeyError:
            del row[key]
        else:
            row[key] = value
    return json.dumps(payload).encode()


def test_gpus_sync_loads_the_gpu_table_from_the_data_file():
    assert Gpu.objects.count() == 70
    h200 = Gpu.objects.get(slug="h200-sxm")
    assert (h200.short_name, h200.family) == ("H200 SXM 141GB", "h200-sxm-141gb") and h200.memory_gb == 141
    assert h200.sources


@respx.mock
def test_refresh_from_recorded_response_stores_one_snapshot_with_its_offers():
    _runpod()
    result = offers_refresh("runpod", now=T0)
    assert result.outcome == "success"
    snapshot = PriceSnapshot.objects.get()
    assert snapshot.outcome == "success"
    assert snapshot.offer_count == result.offer_count == 16 == Offer.objects.count()
    assert len(snapshot.payload_sha256) == 64
    assert "RTX 3070" in snapshot.notes  # unknown GPU recorded, not silently lost
    h200 = Offer.objects.get(gpu__slug="h200-sxm", pricing_kind="on-demand")
    assert str(h200.price_per_gpu_hour_usd.normalize()) == "4.59"


@respx.mock
def test_identical_payload_appends_an_unchanged_snapshot_and_no_duplicate_offers():
    _runpod()
    offers_refresh("runpod", now=T0)
    result = offers_refresh("runpod", now=T0 + timedelta(hours=1))
    assert result.outcome == "unchanged"
    assert Offer.objects.count() == 16
    assert list(PriceSnapshot.objects.order_by("id").values_list("outcome", flat=True)) == ["success", "unchanged"]
    unchanged = PriceSnapshot.objects.get(outcome="unchanged")
    assert unchanged.same_as == PriceSnapshot.objects.get(outcome="success")


@respx.mock
def test_unchanged_refresh_reconfirms_live_prices():
    _runpod()
    offers_refresh("runpod", now=T0 - timedelta(days=30))
    offers_refresh("runpod", now=T0)
    offers = current_offers(now=T0 + timedelta(hours=1))
    assert offers and all(o.captured_at == T0 and not o.stale for o in offers)


@respx.mock
def test_changed_payload_makes_a_new_snapshot_current_and_keeps_the_old_one():
    _runpod()
    offers_refresh("runpod", now=T0)
    respx.reset()
    _runpod(_drifted(securePrice=4.19))
    offers_refresh("runpod", now=T0 + timedelta(hours=1))
    assert PriceSnapshot.objects.filter(outcome="success").count() == 2
    assert Offer.objects.count() == 32  # history is never rewritten
    current = {(o.gpu_slug, o.pricing_kind): o for o in current_offers(now=T0 + timedelta(hours=1))}
    assert current[("h200-sxm", "on-demand")].price_per_gpu_hour_usd == 4.19


def test_snapshots_are_append_only():
    provider = Provider.objects.create(slug="x", name="X")
    snapshot = PriceSnapshot.objects.create(provider=provider, captured_at=T0, outcome="failed")
    snapshot.error = "rewritten"
    with pytest.raises(ValueError, match="append-only"):
        snapshot.save()


FAILURES = [
    pytest.param({"side_effect": httpx.ReadTimeout("timed out")}, "failed", True, id="timeout"),
    pytest.param({"side_effect": httpx.ConnectError("refused")}, "failed", True, id="connection-refused"),
    pytest.param({"status": 500, "body": b"oops"}, "failed", True, id="http-500"),
    pytest.param({"status": 429, "body": b"slow down"}, "failed", True, id="http-429"),
    pytest.param({"status": 401, "body": b"no"}, "failed", False, id="http-401"),
    pytest.param({"body": b'{"data": {"gpuTypes": [ '}, "failed", False, id="malformed-json"),
    pytest.param({"body": b"<html>maintenance</html>"}, "failed", False, id="html-instead-of-json"),
    pytest.param({"body": _drifted(securePrice=KeyError)}, "failed", False, id="missing-field"),
    pytest.param({"body": _drifted(securePrice="4.59")}, "failed", False, id="price-as-string"),
    pytest.param({"body": _drifted(securePrice=-4.59)}, "failed", False, id="negative-price"),
    pytest.param({"body": _drifted(securePrice=45900)}, "failed", False, id="absurd-price"),
    pytest.param({"body": b'{"data": {"gpuTypes": []}}'}, "empty", False, id="empty-list"),
]


@respx.mock
@pytest.mark.parametrize(("response", "outcome", "retryable"), FAILURES)
def test_failed_refresh_keeps_last_good_offers_marks_them_stale_and_records_the_failure(response, outcome, retryable):
    _runpod()
    offers_refresh("runpod", now=T0)
    before = {o.natural_key: o.price_per_gpu_hour_usd for o in current_offers(now=T0)}
    respx.reset()
    _runpod(**response)

    result = offers_refresh("runpod", now=T0 + timedelta(hours=1))

    assert result.outcome == outcome
    assert result.retryable is retryable
    failure = PriceSnapshot.objects.order_by("-id").first()
    assert failure.outcome == outcome and failure.error
    assert Offer.objects.count() == 16
    after = current_offers(now=T0 + timedelta(hours=1))
    assert {o.natural_key: o.price_per_gpu_hour_usd for o in after} == before
    assert all(o.stale and o.captured_at == T0 for o in after)
    (status,) = [s for s in provider_statuses(now=T0 + timedelta(hours=1)) if s.slug == "runpod"]
    assert status.stale and status.last_outcome == outcome and status.last_good_at == T0


@respx.mock
def test_one_provider_failing_does_not_touch_another():
    _runpod()
    respx.post("https://console.vast.ai/api/v0/bundles/").mock(side_effect=httpx.ReadTimeout("slow"))
    assert offers_refresh("vastai", now=T0).outcome == "failed"
    assert offers_refresh("runpod", now=T0).outcome == "success"
    assert {o.provider_slug for o in current_offers(now=T0)} == {"runpod"}


def test_provider_needing_a_key_without_one_records_a_failure_without_calling_out(settings):
    settings.PRICING_TENSORDOCK_API_KEY = ""
    with respx.mock(assert_all_called=False) as mock:
        route = mock.get("https://dashboard.tensordock.com/api/v2/locations")
        result = offers_refresh("tensordock", now=T0)
    assert result.outcome == "failed" and "PRICING_TENSORDOCK_API_KEY" in result.error
    assert not route.called


@respx.mock
def test_credentials_come_from_settings(settings):
    settings.PRICING_RUNPOD_API_KEY = "rk_test"
    route = _runpod()
    offers_refresh("runpod", now=T0)
    assert route.calls.last.request.headers["Authorization"] == "Bearer rk_test"


@respx.mock
def test_refresh_bumps_the_prices_cache_generation():
    _runpod()
    before = PRICES_GENERATION.current()
    offers_refresh("runpod", now=T0)
    assert PRICES_GENERATION.current() != before


@respx.mock
def test_refresh_while_another_holds_the_lock_is_skipped_and_says_when_to_retry(settings):
    settings.PRICING_REFRESH_TIME_LIMIT_SECONDS = 120
    route = _runpod()
    with refresh_lock("runpod") as acquired:
        assert acquired
        result = offers_refresh("runpod", now=T0)
    assert (result.outcome, result.error) == ("skipped", "skipped: another refresh is running")
    assert 0 < result.retry_after_seconds <= 120  # the lock expires with the task's time limit at the latest
    assert not route.called
    assert PriceSnapshot.objects.count() == 0


def test_the_refresh_lock_lasts_the_task_time_limit_and_is_released_after(settings):
    settings.PRICING_REFRESH_TIME_LIMIT_SECONDS = 45
    assert refresh_lock_seconds() == 45
    with refresh_lock("runpod"):
        assert 0 < refresh_lock_expires_in("runpod") <= 45
        with refresh_lock("runpod") as second:
            assert not second
    assert refresh_lock_expires_in("runpod") == 0
    with refresh_lock("runpod") as again:
        assert again


@pytest.mark.django_db(transaction=True)
def test_a_refresh_that_fails_while_writing_its_offers_leaves_no_partial_snapshot(require_postgres):
    """The snapshot row is written first, its offers after it: a failure in between must take the snapshot with
    it. Another session holds the offer table (as a long migration or a dump could), so the offers' INSERT gives
    up on its lock after the snapshot's INSERT went through."""
    import psycopg
    from django.db import OperationalError, connection

    gpus_sync()
    db = connection.settings_dict
    holder = psycopg.connect(
        host=db["HOST"] or "127.0.0.1", port=db["PORT"] or 5432, user=db["USER"], password=db["PASSWORD"] or None,
        dbname=db["NAME"],
    )  # fmt: skip
    try:
        holder.execute("LOCK TABLE pricing_offer IN SHARE MODE")  # reads go on, inserts wait
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = '300ms'")
        with respx.mock, pytest.raises(OperationalError, match="lock timeout"):
            _runpod()
            offers_refresh("runpod", now=T0)
    finally:
        holder.rollback()
        holder.close()
        with connection.cursor() as cursor:
            cursor.execute("RESET lock_timeout")
    assert PriceSnapshot.objects.count() == 0
    assert Offer.objects.count() == 0
    # The lock was released on the way out: the next refresh runs and stores everything.
    with respx.mock:
        _runpod()
        assert offers_refresh("runpod", now=T0).outcome == "success"
    assert Offer.objects.count() == PriceSnapshot.objects.get().offer_count == 16


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_refreshes_of_one_provider_produce_one_snapshot():
    gpus_sync()
    entered, release = threading.Event(), threading.Event()

    def slow_response(request):
        entered.set()
        assert release.wait(10)
        return httpx.Response(200, content=RUNPOD_RAW)

    results = []
    with respx.mock:
        respx.post(runpod.INFO.endpoint).mock(side_effect=slow_response)
        first = threading.Thread(target=lambda: results.append(offers_refresh("runpod", now=T0)))
        first.start()
        assert entered.wait(10)
        second = offers_refresh("runpod", now=T0)
        release.set()
        first.join(10)
    assert second.outcome == "skipped"
    assert [r.outcome for r in results] == ["success"]
    assert PriceSnapshot.objects.count() == 1


def _coreweave_file(**offer) -> str:
    """A curated offer file for CoreWeave with one HGX H200 offer of these fields, seen on 2026-11-13."""
    row = {"gpu_slug": "h200-sxm", "instance_name": "HGX H200", **offer}
    document = {
        "format": "gpufit-offers/1",
        "provider": {"slug": "coreweave", "name": "CoreWeave"},
        "captured": "2026-11-13",
        "offers": [row],
    }
    return json.dumps(document)


def test_offline_refresh_reads_recorded_api_payloads_and_curated_files(tmp_path):
    (tmp_path / "runpod.json").write_bytes(RUNPOD_RAW)
    (tmp_path / "coreweave.json").write_text(
        _coreweave_file(
            gpu_counts=[8], price_per_gpu_hour_usd="6.305", instance_price_usd=[[8, "50.44"]], confidence="medium"
        )
    )
    results = {r.provider_slug: r for r in offline_refresh(tmp_path, now=T0)}
    assert results["runpod"].outcome == results["coreweave"].outcome == "success"
    coreweave = Offer.objects.get(provider__slug="coreweave")
    assert str(coreweave.price_per_gpu_hour_usd.normalize()) == "6.305"
    assert coreweave.instance_prices_usd == [[8, "50.44"]]
    assert coreweave.captured_at == datetime(2026, 11, 13, tzinfo=UTC)


def test_curated_file_for_an_unknown_gpu_is_refused(tmp_path):
    document = {
        "format": "gpufit-offers/1",
        "provider": {"slug": "acme", "name": "Acme"},
        "offers": [{"gpu_slug": "h900", "instance_name": "x", "price_per_gpu_hour_usd": "1"}],
    }
    (tmp_path / "acme.json").write_text(json.dumps(document))
    (result,) = offline_refresh(tmp_path, now=T0)
    assert result.outcome == "failed" and "h900" in result.error
    assert Offer.objects.count() == 0


def test_a_commitment_term_too_long_to_store_fails_the_refresh_and_keeps_the_last_good_offers(tmp_path):
    """A term over the column's 32 characters would be a database error mid-refresh (PostgreSQL refuses it); cut
    short it would name another term. The payload fails with the reason; the provider's last offers stay."""

    def curated(term: str) -> str:
        return _coreweave_file(price_per_gpu_hour_usd="3.50", pricing_kind="reserved", term=term)

    (tmp_path / "coreweave.json").write_text(curated("1y"))
    assert [r.outcome for r in offline_refresh(tmp_path, now=T0)] == ["success"]
    (tmp_path / "coreweave.json").write_text(curated("one year, paid monthly, with a 30-day notice period"))
    (result,) = offline_refresh(tmp_path, now=T0)
    assert result.outcome == "failed" and "commitment term longer than 32 characters" in result.error
    assert list(Offer.objects.values_list("term", flat=True)) == ["1y"]
    assert PriceSnapshot.objects.filter(outcome="failed").count() == 1
