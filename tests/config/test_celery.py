from __future__ import annotations

import pytest
from django.conf import settings

from config.celery import app
from config.tasks import health_ping


def test_beat_schedule_names_registered_tasks():
    app.loader.import_default_modules()
    for name, entry in settings.CELERY_BEAT_SCHEDULE.items():
        assert entry["task"] in app.tasks, f"beat entry {name!r} names an unknown task {entry['task']!r}"
        assert entry["schedule"], name


def test_health_task_runs_in_process_without_redis():
    if settings.REDIS_URL:
        pytest.skip("with REDIS_URL set tasks go to the broker; the worker test covers that path")
    result = health_ping.delay()
    assert result.get(timeout=5)["pong"] is True


@pytest.mark.django_db(transaction=True)
def test_real_worker_runs_the_health_task(celery_worker):
    result = health_ping.delay()
    body = result.get(timeout=30)
    assert body["pong"] is True
    assert result.status == "SUCCESS"
    assert celery_worker["hostname"] in (app.control.ping([celery_worker["hostname"]], timeout=2)[0])


def _longest_retry_countdown_s(task) -> int:
    """The longest countdown an automatic retry of `task` waits (celery.app.autoretry, before jitter)."""
    if not getattr(task, "autoretry_for", ()):
        return 0
    if not task.retry_backoff:
        return int(task.default_retry_delay)
    if task.max_retries is None:
        return int(task.retry_backoff_max)
    factor = int(max(1.0, float(task.retry_backoff)))
    return min(int(task.retry_backoff_max), factor * 2 ** (task.max_retries - 1))


def test_visibility_timeout_outlasts_every_task_holding_its_message():
    """With acks_late a worker holds a message unacknowledged while a retry waits for its countdown and while the
    task runs (at most its hard time limit). Redis hands a message held longer than the visibility timeout to
    another worker, so a shorter one would run a slow task or a waiting retry twice."""
    app.loader.import_default_modules()
    own = [task for name, task in app.tasks.items() if not name.startswith("celery.")]
    assert len(own) >= 3
    for task in own:
        countdown = _longest_retry_countdown_s(task)
        assert countdown <= settings.CELERY_RETRY_COUNTDOWN_MAX_S, task.name
        time_limit = task.time_limit or settings.CELERY_TASK_TIME_LIMIT
        assert countdown + time_limit < settings.CELERY_VISIBILITY_TIMEOUT_S, task.name
    assert settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"] == settings.CELERY_VISIBILITY_TIMEOUT_S
    # Well under Redis's default hour: a killed worker's message comes back within about 22 minutes.
    assert settings.CELERY_VISIBILITY_TIMEOUT_S == 960 + 300 + 60


def test_workers_sweep_for_dead_workers_messages_at_kombus_pace_and_the_broker_is_told():
    """The sweep period (interval × throttle) reaches the Redis transport; a test replacement worker shortens it."""
    options = settings.CELERY_BROKER_TRANSPORT_OPTIONS
    assert options["unacked_restore_interval"] == settings.CELERY_UNACKED_RESTORE_INTERVAL_S == 10
    assert options["unacked_restore_throttle"] == settings.CELERY_UNACKED_RESTORE_THROTTLE == 10
    with app.connection_for_read() as connection:
        assert connection.transport_options["unacked_restore_interval"] == 10
