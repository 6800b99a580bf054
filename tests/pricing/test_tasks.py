"""Celery tasks: each provider refreshes in its own task, retried with backoff; a real worker end to end."""

from http.server import BaseHTTPRequestHandler
from pathlib import Path

import httpx
import pytest
import respx
from django.conf import settings

from pricing import tasks
from pricing.bundled import gpus_sync
from pricing.models import Offer, PriceSnapshot
from pricing.providers import API_PROVIDERS, runpod
from pricing.services import refresh_lock, refresh_lock_expires_in, refresh_lock_seconds
from tests.support import broker_state, local_server, wait_for

RECORDED = Path(__file__).resolve().parent.parent / "data" / "provider-apis"


@pytest.fixture(autouse=True)
def fresh_cache():
    from django.core.cache import cache

    cache.clear()


def test_every_api_provider_has_its_own_beat_entry():
    entries = [e for e in settings.CELERY_BEAT_SCHEDULE.values() if e["task"] == "pricing.refresh_provider"]
    assert sorted(e["args"][0] for e in entries) == sorted(API_PROVIDERS)
    tasks_scheduled = {e["task"] for e in settings.CELERY_BEAT_SCHEDULE.values()}
    assert {
        "pricing.refresh_curated",
        "pricing.refresh_api_prices",
        "pricing.compute_price_index",
        "pricing.prune_offers",
    } <= tasks_scheduled


def test_the_refresh_lock_expires_with_the_refresh_tasks_hard_time_limit():
    task = tasks.refresh_provider
    assert task.time_limit == refresh_lock_seconds() == settings.PRICING_REFRESH_TIME_LIMIT_SECONDS
    assert 0 < task.soft_time_limit < task.time_limit  # the soft limit lets a refresh end cleanly first


def test_refresh_task_retries_network_failures_with_backoff():
    task = tasks.refresh_provider
    assert task.max_retries == 5
    assert task.retry_backoff and task.retry_jitter
    assert httpx.TransportError in task.autoretry_for


@pytest.mark.django_db
@respx.mock
def test_refresh_task_runs_the_refresh_and_returns_its_outcome():
    gpus_sync()
    respx.post(runpod.INFO.endpoint).respond(200, content=(RECORDED / "runpod-example.json").read_bytes())
    result = tasks.refresh_provider.apply(args=("runpod",))
    assert result.get() == {"provider": "runpod", "outcome": "success", "offers": 16}


@pytest.mark.django_db
@respx.mock
def test_a_timing_out_provider_is_retried_and_every_attempt_is_recorded(monkeypatch):
    # Run the retries in-process and collect the final failure instead of raising at the first retry.
    monkeypatch.setitem(tasks.refresh_provider.app.conf, "task_eager_propagates", False)
    gpus_sync()
    route = respx.post(runpod.INFO.endpoint).mock(side_effect=httpx.ReadTimeout("timed out"))
    result = tasks.refresh_provider.apply(args=("runpod",), throw=False)
    assert result.failed()
    assert route.call_count == 6  # the first try and five retries
    assert PriceSnapshot.objects.filter(outcome="failed").count() == 6
    assert Offer.objects.count() == 0


@pytest.mark.django_db
@respx.mock
def test_a_refresh_finding_the_lock_held_is_retried_and_never_reported_as_success(monkeypatch):
    monkeypatch.setitem(tasks.refresh_provider.app.conf, "task_eager_propagates", False)
    gpus_sync()
    route = respx.post(runpod.INFO.endpoint).respond(200, content=(RECORDED / "runpod-example.json").read_bytes())
    with refresh_lock("runpod"):
        result = tasks.refresh_provider.apply(args=("runpod",), throw=False)
    # In-process the retries run at once, so each finds the lock still held; a worker waits for it to expire.
    assert result.failed() and isinstance(result.result, tasks.RefreshSkipped)
    assert "skipped: another refresh is running" in str(result.result)
    assert not route.called and not PriceSnapshot.objects.exists()


@pytest.mark.django_db
def test_curated_refresh_enqueues_one_task_per_provider(monkeypatch):
    sent = []
    monkeypatch.setattr(tasks.refresh_provider, "delay", lambda slug: sent.append(slug))
    slugs = tasks.refresh_curated()
    assert sent == slugs and "coreweave" in slugs and "runpod" not in slugs


# --- a real worker on Redis -------------------------------------------------------------------------------------


class _Quiet(BaseHTTPRequestHandler):
    def do_POST(self):  # the GraphQL endpoint answers POST with the recorded response
        length = int(self.headers.get("Content-Length", 0))
        self.rfile.read(length)
        body = (RECORDED / "runpod-example.json").read_bytes()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def runpod_replay(monkeypatch):
    """A local server replaying RunPod's recorded response; the worker is pointed at it via the environment."""
    with local_server(_Quiet) as base_url:
        monkeypatch.setenv("PRICING_ENDPOINT_OVERRIDES", f"runpod={base_url}/graphql")
        yield base_url


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_real_worker_refreshes_a_provider_end_to_end(runpod_replay, celery_worker):
    gpus_sync()
    result = tasks.refresh_provider.delay("runpod")
    assert result.get(timeout=60) == {"provider": "runpod", "outcome": "success", "offers": 16}
    assert wait_for(lambda: PriceSnapshot.objects.filter(outcome="success").exists(), 10)
    snapshot = PriceSnapshot.objects.get()
    assert snapshot.provider.slug == "runpod" and snapshot.offer_count == 16
    assert Offer.objects.filter(snapshot=snapshot).count() == 16
    # The same payload again: one more snapshot, no duplicate offers.
    assert tasks.refresh_provider.delay("runpod").get(timeout=60)["outcome"] == "unchanged"
    assert Offer.objects.count() == 16


# --- a worker killed mid-refresh -----------------------------------------------------------------------------


@pytest.fixture
def short_refresh_limit(monkeypatch, settings):
    """Workers started after this fixture give a refresh (and its lock) 10 seconds instead of minutes."""
    monkeypatch.setenv("PRICING_REFRESH_TIME_LIMIT_SECONDS", "10")
    settings.PRICING_REFRESH_TIME_LIMIT_SECONDS = 10


@pytest.fixture
def offer_table_held(require_postgres):
    """A second session holding the offer table (reads go on, inserts wait), as a long migration would: a refresh
    then stalls between its snapshot's INSERT and its offers'. Yields that session; the table is free again when
    the transaction that locked it ends."""
    import psycopg
    from django.db import connection

    db = connection.settings_dict
    holder = psycopg.connect(
        host=db["HOST"] or "127.0.0.1", port=db["PORT"] or 5432, user=db["USER"], password=db["PASSWORD"] or None,
        dbname=db["NAME"], autocommit=True,
    )  # fmt: skip
    try:
        yield holder
    finally:
        holder.close()


def _waiting_on(holder, table: str) -> int:
    """Other sessions' locks on ``table`` (granted or waiting)."""
    row = holder.execute(
        "SELECT count(*) FROM pg_locks WHERE relation = %s::regclass AND pid <> pg_backend_pid()", [table]
    ).fetchone()
    return int(row[0]) if row else 0


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_mid_refresh_leaves_no_partial_snapshot_and_the_lock_frees_itself(
    runpod_replay, short_refresh_limit, offer_table_held, celery_worker
):
    import os

    from tests.models_catalog.workers import kill, running_worker, worker_pid

    gpus_sync()
    pid = worker_pid(celery_worker["hostname"])
    with offer_table_held.transaction():
        offer_table_held.execute("LOCK TABLE pricing_offer IN SHARE MODE")
        result = tasks.refresh_provider.delay("runpod")
        # The refresh has written its snapshot row and waits to write the offers: kill the worker right there.
        assert wait_for(lambda: _waiting_on(offer_table_held, "pricing_offer") > 0, 60)
        assert _waiting_on(offer_table_held, "pricing_pricesnapshot") > 0
        kill(pid)
    # The table is free again; the dead worker's transaction never committed, and its session ends with it.
    assert wait_for(lambda: _waiting_on(offer_table_held, "pricing_pricesnapshot") == 0, 30)
    assert not PriceSnapshot.objects.exists() and not Offer.objects.exists()
    assert refresh_lock_expires_in("runpod") > 0  # nobody released the lock: it expires with the time limit

    # A new worker gets the unacknowledged message back (its visibility timeout shortened to one second). While
    # the dead worker's lock still holds, the refresh is skipped and retried when it expires; then it runs.
    # Only its start-up sweep may take the message back: a sweep every second would also hand out again the retry this
    # worker holds for its countdown (QUICK_RESTORE suits a test whose task does not retry).
    env = {**celery_worker["env"], "CELERY_VISIBILITY_TIMEOUT_S": "1"}
    with running_worker(env, f"replacement-{os.getpid()}@localhost") as worker:
        assert wait_for(result.ready, 60), f"{broker_state(env['REDIS_URL'])}\n{worker.output()[-3000:]}"
        body = result.get(timeout=1)
        assert body == {"provider": "runpod", "outcome": "success", "offers": 16}, worker.output()[-3000:]
        snapshot = PriceSnapshot.objects.get(outcome="success")
        assert snapshot.offer_count == Offer.objects.filter(snapshot=snapshot).count() == 16

        # Another refresh holding the lock: the task is retried (state RETRY), not reported as done.
        with refresh_lock("runpod", timeout=5):
            second = tasks.refresh_provider.delay("runpod")
            assert wait_for(lambda: second.state == "RETRY", 30), worker.output()[-3000:]
        assert second.get(timeout=30)["outcome"] == "unchanged"
    assert Offer.objects.count() == 16


# --- the whole refresh through a real worker: gpuhunt catalogs, our parser, hosted API prices, the index ---------

GPUHUNT = RECORDED.parent / "gpuhunt" / "v3"
OPENROUTER = RECORDED / "openrouter-recorded-models-2026-08-08.json"


class _Replay(BaseHTTPRequestHandler):
    """GET /v3/<provider>/version and /v3/<provider>/<version>/catalog.zip as gpuhunt publishes them, and
    /openrouter/models; POST answers RunPod's GraphQL."""

    def _send(self, body: bytes, status: int = 200) -> None:
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        import io
        import zipfile

        parts = self.path.strip("/").split("/")
        if parts == ["openrouter", "models"]:
            return self._send(OPENROUTER.read_bytes())
        if len(parts) == 3 and parts[0] == "v3" and parts[2] == "version":
            return self._send((GPUHUNT / parts[1] / "version").read_bytes())
        if len(parts) == 4 and parts[0] == "v3" and parts[3] == "catalog.zip":
            out = io.BytesIO()
            with zipfile.ZipFile(out, "w") as archive:
                archive.write(GPUHUNT / parts[1] / parts[2] / f"{parts[1]}.csv", f"{parts[1]}.csv")
            return self._send(out.getvalue())
        return self._send(b"not recorded", 404)

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self._send((RECORDED / "runpod-example.json").read_bytes())

    def log_message(self, *args):
        pass


@pytest.fixture
def whole_replay(monkeypatch):
    with local_server(_Replay) as base_url:
        overrides = [f"{p}={base_url}/v3/{p}" for p in ("aws", "azure", "gcp")]
        overrides += [f"runpod={base_url}/graphql", f"openrouter={base_url}/openrouter/models"]
        monkeypatch.setenv("PRICING_ENDPOINT_OVERRIDES", ",".join(overrides))
        yield base_url


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_real_worker_runs_the_whole_refresh_on_recorded_data(whole_replay, celery_worker):
    from pricing.models import ApiPrice, GpuPriceIndex

    gpus_sync()
    expected = {"aws": 13, "azure": 8, "gcp": 2, "runpod": 16}
    results = {slug: tasks.refresh_provider.delay(slug) for slug in expected}
    assert {slug: r.get(timeout=60)["offers"] for slug, r in results.items()} == expected
    assert set(
        PriceSnapshot.objects.filter(provider__slug__in=["aws", "azure", "gcp"]).values_list(
            "catalog_version", flat=True
        )
    ) == {"assembled-20260615"}
    assert tasks.refresh_api_prices.delay().get(timeout=60)["added"] == 2
    assert ApiPrice.objects.count() == 2
    assert tasks.compute_price_index.delay().get(timeout=60)
    assert GpuPriceIndex.objects.filter(gpu__slug="h200-sxm").exists()
