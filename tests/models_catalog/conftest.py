from __future__ import annotations

import pytest
import respx

from models_catalog.hub import HubClient, HubSettings
from tests.models_catalog.hub_replay import ENDPOINT


class SleepRecorder:
    def __init__(self) -> None:
        self.waits: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


@pytest.fixture
def sleeps() -> SleepRecorder:
    return SleepRecorder()


@pytest.fixture
def hub_client(sleeps: SleepRecorder) -> HubClient:
    """A Hub client that records backoff waits instead of sleeping."""
    return HubClient(HubSettings(endpoint=ENDPOINT, max_retries=3, backoff_s=0.5, sleep=sleeps))


@pytest.fixture
def hub_mock():
    """Every request must match a recorded route: an unexpected call fails the test instead of reaching the network."""
    with respx.mock(assert_all_mocked=True, assert_all_called=False) as router:
        yield router


@pytest.fixture
def eager_celery():
    """Run tasks in the test process even when REDIS_URL configures a broker (the page tests need no worker)."""
    from config.celery import app

    before = (app.conf.task_always_eager, app.conf.task_eager_propagates)
    app.conf.update(task_always_eager=True, task_eager_propagates=True)
    yield
    app.conf.update(task_always_eager=before[0], task_eager_propagates=before[1])
