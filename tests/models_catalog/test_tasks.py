"""The import task: transient failures retried, the last one recorded; end to end through a real worker."""

from __future__ import annotations

import httpx
import pytest

from models_catalog import hub, import_requests
from models_catalog.models import ImportRequest, Model
from models_catalog.tasks import model_import_task
from tests.models_catalog.html import parse
from tests.models_catalog.hub_replay import ENDPOINT, QWEN_SET, local_hub
from tests.support import wait_for

QWEN = "Qwen/Qwen3-30B-A3B"


@pytest.mark.django_db
def test_transient_failure_is_reraised_for_a_retry_and_recorded_on_the_last_attempt(hub_client, hub_mock):
    hub_mock.get(f"{ENDPOINT}/api/models/{QWEN}").mock(side_effect=httpx.ConnectError("refused"))
    ImportRequest.objects.create(hub_id=QWEN)

    with pytest.raises(hub.HubUnavailable):
        import_requests.import_request_run(QWEN, final_attempt=False, client=hub_client)
    assert ImportRequest.objects.get().state == "running"

    assert import_requests.import_request_run(QWEN, final_attempt=True, client=hub_client) == "failed"
    request = ImportRequest.objects.get()
    assert (request.state, request.failure) == ("failed", "unavailable")
    assert "could not be reached" in request.reason


def test_task_retries_on_hub_outages_with_backoff_and_a_small_limit():
    assert hub.HubUnavailable in model_import_task.autoretry_for
    assert hub.HubRateLimited in model_import_task.autoretry_for
    assert model_import_task.retry_backoff is True
    assert model_import_task.max_retries == 3


@pytest.fixture
def recorded_hub_for_worker(monkeypatch):
    """A local Hub replaying the recorded responses; the worker started after this fixture reads HUB_ENDPOINT."""
    with local_hub(QWEN_SET) as endpoint:
        monkeypatch.setenv("HUB_ENDPOINT", endpoint)
        yield endpoint


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_on_demand_import_through_a_real_worker(recorded_hub_for_worker, celery_worker, client):
    response = client.post("/en/models/import/", {"hub_id": QWEN})
    assert response.status_code == 302
    status_url = response["Location"]

    seen = {}

    def finished() -> bool:
        seen["fragment"] = parse(client.get(status_url, headers={"HX-Request": "true"}).content)
        seen["state"] = seen["fragment"].one("div", id="import-status").attrs["data-state"]
        return seen["state"] in ("done", "failed")

    wait_for(finished, 60, interval=0.25)
    fragment, state = seen["fragment"], seen["state"]
    assert state == "done", f"import ended {state!r}"
    assert fragment.one("section", id="model-facts").attrs["data-hub-id"] == QWEN
    model = Model.objects.get(hub_id=QWEN)
    assert (model.params_total, model.params_total_source) == (30_532_122_624, "safetensors")
    assert model.builds.count() == 4
    assert model.sources[0].startswith(recorded_hub_for_worker)
