"""A worker killed mid-import (out of memory, SIGKILL) does not leave the import running forever.

The import's first Hub request stalls, so the task is known to be mid-run when the test kills its process; after
the kill the Hub answers again, as it would for the next delivery.
"""

from __future__ import annotations

import os

import pytest

from config.celery import app
from models_catalog.models import ImportRequest, Model
from tests.models_catalog.hub_replay import QWEN_SET, Stall, local_hub
from tests.models_catalog.workers import active_task_pids, kill, running_worker, worker_pid
from tests.support import QUICK_RESTORE, broker_state, wait_for

QWEN = "Qwen/Qwen3-30B-A3B"


@pytest.fixture
def stalling_hub(monkeypatch):
    """A local Hub replaying the recorded responses whose first model-info request hangs until released; the
    workers started after this fixture read HUB_ENDPOINT."""
    stall = Stall(f"/api/models/{QWEN}")
    with local_hub(QWEN_SET, stall=stall) as endpoint:
        monkeypatch.setenv("HUB_ENDPOINT", endpoint)
        yield stall


def _import() -> tuple[str, int] | None:
    request = ImportRequest.objects.filter(hub_id=QWEN).first()
    return (request.state, request.attempts) if request else None


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_pool_process_killed_mid_import_is_requeued_and_the_import_completes(stalling_hub, celery_worker, client):
    """The production pool (prefork): its main process sees the child die and, with task_reject_on_worker_lost,
    puts the unacknowledged message back on the queue at once; a new child runs it to the end."""
    app.control.cancel_consumer("celery", destination=[celery_worker["hostname"]], reply=True)
    hostname = f"prefork-{os.getpid()}@localhost"
    with running_worker(celery_worker["env"], hostname, pool="prefork") as worker:
        assert client.post("/en/models/import/", {"hub_id": QWEN}).status_code == 302
        assert stalling_hub.reached.wait(60), worker.output()[-3000:]
        pids: list[int] = []

        def task_running() -> bool:
            pids[:] = active_task_pids(hostname)
            return bool(pids)

        assert wait_for(task_running, 10)
        assert len(pids) == 1 and pids[0] != worker.process.pid

        kill(pids[0])
        stalling_hub.released.set()

        assert wait_for(lambda: _import() == ("done", 2), 60), f"{_import()}\n{worker.output()[-3000:]}"
        assert "WorkerLostError" in worker.output()
    assert Model.objects.get(hub_id=QWEN).builds.count() == 4


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_worker_killed_mid_import_its_message_returns_to_a_new_worker(stalling_hub, celery_worker, client):
    """The whole worker killed (solo pool, or a container stopped hard): nobody is left to reject the message.
    Redis keeps it unacknowledged, and a worker started later restores it once the visibility timeout has passed
    (shortened here to one second, and swept for every second, for the replacement worker only)."""
    pid = worker_pid(celery_worker["hostname"])
    assert client.post("/en/models/import/", {"hub_id": QWEN}).status_code == 302
    assert stalling_hub.reached.wait(60)
    assert _import() == ("running", 1)

    kill(pid)
    stalling_hub.released.set()
    assert _import() == ("running", 1)  # nothing recorded the end of that run

    env = {**celery_worker["env"], **QUICK_RESTORE}
    with running_worker(env, f"replacement-{os.getpid()}@localhost") as worker:
        assert wait_for(lambda: _import() == ("done", 2), 60), (
            f"{_import()}\n{broker_state(env['REDIS_URL'])}\n{worker.output()[-3000:]}"
        )
    assert Model.objects.get(hub_id=QWEN).builds.count() == 4
