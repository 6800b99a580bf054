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
