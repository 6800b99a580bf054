"""On-demand imports never get stuck and never answer 500: stalled requests expire, a re-post queues them again,
racing first posts make one request, no network or no Redis ends on a page that says so."""

from __future__ import annotations

import threading
from datetime import timedelta
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest
import redis
from django.conf import settings
from django.db import connection
from django.test import Client
from django.utils import timezone

from config.celery import app
from models_catalog import import_requests
from models_catalog.hub_ids import parse_hub_id
from models_catalog.models import ImportRequest, Model
from models_catalog.tasks import model_import_task
from tests.models_catalog.html import parse
from tests.models_catalog.hub_replay import QWEN_SET, mount
from tests.models_catalog.outages import HungServer, OwnRedis, closed_port
from tests.support import local_server

QWEN = "Qwen/Qwen3-30B-A3B"
IMPORT_URL = "/en/models/import/"


class Sent:
    """Stands in for the broker where a test counts the tasks a service queues."""

    def __init__(self) -> None:
        self.hub_ids: list[str] = []
        self._lock = threading.Lock()

    def __call__(self, hub_id: str) -> None:
        with self._lock:
            self.hub_ids.append(hub_id)


def _status(client: Client, hub_id: str):
    response = client.get(f"{IMPORT_URL}{hub_id}/")
    assert response.status_code == 200
    return parse(response.content)


def _aged(hub_id: str, state: str, seconds: float) -> ImportRequest:
    return ImportRequest.objects.create(
        hub_id=hub_id, state=state, attempts=1, queued_at=timezone.now() - timedelta(seconds=seconds)
    )


# --- stalled requests -----
def test_time_limit_is_four_attempts_of_300_s_and_three_backoffs_of_120_s():
    assert settings.CATALOG_IMPORT_TIME_LIMIT_S == 4 * 300 + 3 * 120 == 1560
    assert model_import_task.max_retries == settings.CATALOG_IMPORT_MAX_RETRIES
    assert model_import_task.retry_backoff_max == settings.CATALOG_IMPORT_RETRY_BACKOFF_MAX_S


@pytest.mark.django_db
def test_reaper_fails_only_imports_pending_past_their_time_limit():
    limit = settings.CATALOG_IMPORT_TIME_LIMIT_S
    _aged("org/stuck-queued", "queued", limit + 60)
    _aged("org/stuck-running", "running", limit + 1)
    _aged("org/still-running", "running", limit - 60)
    _aged("org/done-long-ago", "done", limit * 10)
    _aged("org/failed-long-ago", "failed", limit * 10)

    assert import_requests.import_requests_expire() == 2

    by_state = {r.hub_id: (r.state, r.failure) for r in ImportRequest.objects.all()}
    assert by_state == {
        "org/stuck-queued": ("failed", "timed_out"),
        "org/stuck-running": ("failed", "timed_out"),
        "org/still-running": ("running", ""),
        "org/done-long-ago": ("done", ""),
        "org/failed-long-ago": ("failed", ""),
    }
    assert (
        ImportRequest.objects.get(hub_id="org/stuck-running").reason == "the import did not finish in time; try again"
    )
    assert import_requests.import_requests_expire() == 0


@pytest.mark.django_db
def test_late_message_for_an_expired_import_still_completes_it(hub_client, hub_mock):
    """A redelivered message can arrive after the reaper gave up on its request: the import runs, its time limit
    counted from then, and ends done."""
    for name in QWEN_SET:
        mount(hub_mock, name)
    _aged(QWEN, "running", settings.CATALOG_IMPORT_TIME_LIMIT_S + 1)
    assert import_requests.import_requests_expire() == 1

    assert import_requests.import_request_run(QWEN, final_attempt=False, client=hub_client) == "done"

    request = ImportRequest.objects.get()
    assert (request.state, request.failure, request.attempts) == ("done", "", 2)
    assert not request.is_stale(timezone.now()) and request.queued_at > timezone.now() - timedelta(minutes=1)


def test_beat_runs_the_reaper_more_often_than_the_time_limit():
    app.loader.import_default_modules()
    entries = [
        e for e in settings.CELERY_BEAT_SCHEDULE.values() if e["task"] == "models_catalog.expire_import_requests"
    ]
    assert len(entries) == 1 and entries[0]["task"] in app.tasks
    assert entries[0]["schedule"] < settings.CATALOG_IMPORT_TIME_LIMIT_S


@pytest.mark.django_db
def test_status_page_of_a_stalled_import_stops_polling_and_offers_a_new_try(client):
    _aged("org/stalled", "running", settings.CATALOG_IMPORT_TIME_LIMIT_S + 1)

    response = client.get(f"{IMPORT_URL}org/stalled/")

    html = response.content.decode()
    box = parse(html).one("div", id="import-status")
    assert box.attrs["data-state"] == "failed"
    assert "hx-trigger" not in box.attrs and "http-equiv" not in html
    assert "did not finish in time" in parse(html).one(data_failure="timed_out").text
    form = parse(html).one("form", **{"class": "import-retry"})
    assert form.attrs["action"] == IMPORT_URL
    assert parse(html).one("input", name="hub_id").attrs["value"] == "org/stalled"


@pytest.mark.django_db
def test_import_pending_within_its_time_limit_keeps_polling(client):
    _aged("org/slow", "running", settings.CATALOG_IMPORT_TIME_LIMIT_S - 60)

    box = _status(client, "org/slow").one("div", id="import-status")

    assert box.attrs["data-state"] == "running" and box.attrs["hx-trigger"] == "every 2s"


@pytest.mark.django_db
def test_reposting_a_stalled_import_queues_it_again_and_it_completes(
    client, hub_mock, django_capture_on_commit_callbacks, eager_celery
):
    for name in QWEN_SET:
        mount(hub_mock, name)
    _aged(QWEN, "running", settings.CATALOG_IMPORT_TIME_LIMIT_S + 1)

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = client.post(IMPORT_URL, {"hub_id": QWEN})

    assert response.status_code == 302 and len(callbacks) == 1
    request = ImportRequest.objects.get()
    assert (request.state, request.attempts) == ("done", 1)
    assert Model.objects.filter(hub_id=QWEN).exists()


@pytest.mark.django_db
def test_reposting_an_import_in_hand_queues_nothing(client, hub_mock, django_capture_on_commit_callbacks):
    _aged("org/slow", "running", settings.CATALOG_IMPORT_TIME_LIMIT_S - 60)

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = client.post(IMPORT_URL, {"hub_id": "ORG/Slow"})

    assert response.status_code == 302 and response["Location"] == f"{IMPORT_URL}ORG/Slow/"
    assert callbacks == [] and hub_mock.calls.call_count == 0
    assert ImportRequest.objects.get().state == "running"


@pytest.mark.django_db
def test_requeuing_a_failed_import_counts_against_the_hourly_limit(client, settings):
    settings.CATALOG_IMPORTS_PER_CLIENT_PER_HOUR = 1
    _aged("org/one", "failed", 60)
    _aged("org/two", "failed", 60)
    sent = Sent()

    import_requests.import_request_start(parse_hub_id("org/one"), client_key="reader", enqueue=sent)
    with pytest.raises(import_requests.ImportsThrottled):
        import_requests.import_request_start(parse_hub_id("org/two"), client_key="reader", enqueue=sent)

    assert ImportRequest.objects.get(hub_id="org/two").state == "failed"


@pytest.mark.django_db
def test_worker_killed_on_every_delivery_ends_the_import_as_failed(hub_client, hub_mock):
    # The first run, 3 retries and 2 redeliveries: every run so far ended with its worker.
    ImportRequest.objects.create(hub_id=QWEN, state="running", attempts=6)

    assert import_requests.import_request_run(QWEN, final_attempt=False, client=hub_client) == "failed"

    request = ImportRequest.objects.get()
    assert request.failure == "worker_lost" and request.can_retry
    assert hub_mock.calls.call_count == 0


# --- one request per id -----
@pytest.mark.django_db(transaction=True)
def test_first_posts_in_mixed_case_make_one_request_and_one_task():
    sent = Sent()
    for n, typed in enumerate(("Acme/Mixed-Model", "acme/mixed-model", "ACME/MIXED-MODEL")):
        import_requests.import_request_start(parse_hub_id(typed), client_key=f"reader-{n}", enqueue=sent)

    assert list(ImportRequest.objects.values_list("hub_id", "state")) == [("Acme/Mixed-Model", "queued")]
    assert sent.hub_ids == ["Acme/Mixed-Model"]


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_concurrent_first_posts_in_mixed_case_make_one_request_and_one_task(require_postgres, require_redis, settings):
    """Real threads, each its own database connection, posting at one moment: the unique Lower(hub_id) makes all
    but one insert fail, and those posts answer like any repeat post. The broker holds the tasks they queued."""
    settings.CATALOG_IMPORTS_PER_CLIENT_PER_HOUR = 1000
    app.control.purge()
    spellings = ("Acme/Race-{n}", "acme/race-{n}", "ACME/RACE-{n}", "acme/Race-{n}", "Acme/race-{n}", "aCme/rAce-{n}")
    rounds = 4
    statuses: list[int] = []
    lock = threading.Lock()

    def post(barrier: threading.Barrier, typed: str) -> None:
        try:
            barrier.wait(timeout=30)
            response = Client().post(IMPORT_URL, {"hub_id": typed})
            with lock:
                statuses.append(response.status_code)
        finally:
            connection.close()

    for n in range(rounds):
        barrier = threading.Barrier(len(spellings))
        threads = [threading.Thread(target=post, args=(barrier, s.format(n=n))) for s in spellings]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)

    assert statuses == [302] * (rounds * len(spellings))
    assert ImportRequest.objects.count() == rounds
    assert set(ImportRequest.objects.values_list("state", flat=True)) == {"queued"}
    assert app.control.purge() == rounds  # one task per id in the queue


# --- no network, embedded default -----
@pytest.mark.django_db(transaction=True)
def test_import_without_a_network_ends_on_the_failure_page_not_a_500(client, settings, eager_celery):
    """Tasks run eagerly in the web process; the Hub endpoint refuses connections."""
    with closed_port() as port:
        settings.HUB_ENDPOINT = f"http://127.0.0.1:{port}"
        response = client.post(IMPORT_URL, {"hub_id": QWEN})

    assert response.status_code == 302
    page = _status(client, QWEN)
    box = page.one("div", id="import-status")
    assert box.attrs["data-state"] == "failed" and "hx-trigger" not in box.attrs
    alert = page.one(data_failure="unavailable")
    assert "The Hugging Face Hub could not be reached" in alert.text
    assert "ConnectError" not in alert.text  # the log names the exception; the reader gets the sentence above
    assert "try the import again in a few minutes" in alert.text
    assert page.one("form", **{"class": "import-retry"})
    assert ImportRequest.objects.get().attempts == 1


@pytest.mark.django_db(transaction=True)
def test_import_in_the_web_request_asks_the_hub_once_instead_of_backing_off(client, settings, eager_celery):
    """A Hub answering 503: a worker would retry with backoff; in the request one attempt is recorded at once."""
    paths: list[str] = []

    class Down(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            paths.append(self.path)
            self.send_response(503)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args) -> None:
            pass

    with local_server(Down) as endpoint:
        settings.HUB_ENDPOINT = endpoint
        response = client.post(IMPORT_URL, {"hub_id": QWEN})

    assert response.status_code == 302
    assert len(paths) == 1 and paths[0].startswith(f"/api/models/{QWEN}")
    request = ImportRequest.objects.get()
    assert (request.state, request.failure, request.reason) == ("failed", "unavailable", "the Hub answered 503")


# --- Redis down or hung -----
@pytest.fixture
def queued_celery():
    """Tasks go to a broker even on the embedded default (where they would run eagerly)."""
    before = app.conf.task_always_eager
    app.conf.task_always_eager = False
    yield
    app.conf.task_always_eager = before


def _cache_at(port: int) -> dict:
    """The configured Redis cache (its timeouts included) moved to another port; a bare one on the embedded default."""
    default: dict[str, Any] = settings.CACHES["default"]
    if "RedisCache" not in default["BACKEND"]:
        default = {"BACKEND": "django.core.cache.backends.redis.RedisCache"}
    return {"default": {**default, "LOCATION": f"redis://127.0.0.1:{port}/2"}}


@pytest.mark.django_db
def test_import_post_with_redis_down_is_a_503_that_says_imports_are_paused(client, settings):
    with closed_port() as port:
        settings.CACHES = _cache_at(port)
        response = client.post(IMPORT_URL, {"hub_id": QWEN})

    assert response.status_code == 503
    assert response["Retry-After"] == "120" and response["Cache-Control"] == "no-store"
    text = parse(response.content).one("p", id="imports-paused").text
    assert "imports from the Hugging Face Hub are paused" in text and "The model pages still work" in text
    assert not ImportRequest.objects.exists()


@pytest.mark.django_db
def test_import_post_with_redis_hung_is_a_503_before_redis_would_answer(client, settings):
    if not settings.REDIS_URL:
        pytest.skip("the embedded default has no Redis to hang")
    with HungServer() as hung:
        settings.CACHES = _cache_at(hung.port)
        response = client.post(IMPORT_URL, {"hub_id": QWEN})

    assert response.status_code == 503
    assert parse(response.content).one("p", id="imports-paused")
    assert hung.accepted >= 1 and hung.hung_up_on == 0  # the cache gave up; the server never let it go
    assert not ImportRequest.objects.exists()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("outage", ["down", "hung"])
def test_task_that_cannot_be_queued_leaves_the_request_failed_not_pending(outage, queued_celery, client):
    """The broker alone fails (the cache still counts): the configured broker timeouts and publish retry apply."""
    with closed_port() as port, HungServer() as hung:
        url = f"redis://127.0.0.1:{port if outage == 'down' else hung.port}/2"

        def enqueue(hub_id: str) -> None:
            with app.connection_for_write(url) as broker:
                model_import_task.apply_async((hub_id,), producer=app.amqp.Producer(broker, auto_declare=False))

        with pytest.raises(import_requests.ImportsPaused):
            import_requests.import_request_start(parse_hub_id(QWEN), client_key="reader", enqueue=enqueue)

    assert hung.hung_up_on == 0
    request = ImportRequest.objects.get()
    assert (request.state, request.failure, request.is_pending) == ("failed", "paused", False)
    page = _status(client, QWEN)
    assert "Imports are paused" in page.one(data_failure="paused").text
    assert page.one("form", **{"class": "import-retry"})

    sent = Sent()
    import_requests.import_request_start(parse_hub_id(QWEN), client_key="reader", enqueue=sent)
    assert sent.hub_ids == [QWEN] and ImportRequest.objects.get().state == "queued"


# --- a broker restart -----
class Published:
    """Publishes each import onto the real broker's queue list, as Celery's publish does (the tasks are not run)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.hub_ids: list[str] = []

    def __call__(self, hub_id: str) -> None:
        redis.Redis.from_url(self.url).lpush("celery", hub_id)
        self.hub_ids.append(hub_id)

    def on_the_broker(self) -> list[str]:
        client = redis.Redis.from_url(self.url, decode_responses=True)
        return [str(raw) for raw in client.lrange("celery", 0, -1)]


def _queued_on(broker: OwnRedis, settings, django_capture_on_commit_callbacks) -> Published:
    settings.CELERY_BROKER_URL = broker.url
    published = Published(broker.url)
    with django_capture_on_commit_callbacks(execute=True):
        import_requests.import_request_start(parse_hub_id(QWEN), client_key="reader", enqueue=published)
    assert published.on_the_broker() == [QWEN] and ImportRequest.objects.get().state == "queued"
    # the next request comes a while later (a request queued a moment ago may not have its marker yet)
    ImportRequest.objects.update(queued_at=timezone.now() - timedelta(seconds=import_requests.LOST_AFTER_S + 1))
    return published


@pytest.mark.django_db
def test_an_import_a_broker_restart_lost_is_queued_again_at_the_next_request(
    settings, tmp_path, django_capture_on_commit_callbacks
):
    with OwnRedis(tmp_path) as broker:
        published = _queued_on(broker, settings, django_capture_on_commit_callbacks)
        broker.kill()
        broker.start()  # without persistence: the queue comes back empty
        assert published.on_the_broker() == []

        with django_capture_on_commit_callbacks(execute=True):
            again = import_requests.import_request_requeue_lost(parse_hub_id(QWEN), enqueue=published)
            once = import_requests.import_request_requeue_lost(parse_hub_id(QWEN), enqueue=published)

        assert (again, once) == (True, False)  # queued again once, then its marker is back
        assert published.on_the_broker() == [QWEN] and published.hub_ids == [QWEN, QWEN]
        assert ImportRequest.objects.get().state == "queued"


@pytest.mark.django_db
def test_a_repost_after_a_broker_restart_queues_the_lost_import_again(
    settings, tmp_path, django_capture_on_commit_callbacks
):
    with OwnRedis(tmp_path) as broker:
        published = _queued_on(broker, settings, django_capture_on_commit_callbacks)
        broker.kill()
        broker.start()
        with django_capture_on_commit_callbacks(execute=True):
            import_requests.import_request_start(parse_hub_id(QWEN), client_key="reader", enqueue=published)
        assert published.on_the_broker() == [QWEN]


@pytest.mark.django_db
def test_a_broker_restarted_from_its_append_only_file_keeps_the_import_queued_once(
    settings, tmp_path, django_capture_on_commit_callbacks
):
    with OwnRedis(tmp_path, persistent=True) as broker:
        published = _queued_on(broker, settings, django_capture_on_commit_callbacks)
        broker.kill()
        broker.start()

        with django_capture_on_commit_callbacks(execute=True):
            assert import_requests.import_request_requeue_lost(parse_hub_id(QWEN), enqueue=published) is False
        assert published.on_the_broker() == [QWEN] and published.hub_ids == [QWEN]


@pytest.mark.django_db
def test_a_broker_that_does_not_answer_cannot_tell_and_queues_nothing(settings, django_capture_on_commit_callbacks):
    sent = Sent()
    _aged(QWEN, "queued", import_requests.LOST_AFTER_S + 1)
    with closed_port() as port:
        settings.CELERY_BROKER_URL = f"redis://127.0.0.1:{port}/0"
        with django_capture_on_commit_callbacks(execute=True):
            assert import_requests.import_request_requeue_lost(parse_hub_id(QWEN), enqueue=sent) is False
    assert sent.hub_ids == []
