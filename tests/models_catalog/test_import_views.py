"""On-demand import from the pages: bad ids refused without a network call, the import run (Celery eager) and its
status page, failures named precisely, the hourly limit per client; judged on the HTML. An empty catalog."""

from __future__ import annotations

import re

import pytest
from django.core.cache import cache

from models_catalog.models import ImportRequest, Model
from tests.models_catalog.html import parse
from tests.models_catalog.hub_replay import QWEN_SET, mount, recording

QWEN = "Qwen/Qwen3-30B-A3B"

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()


@pytest.mark.parametrize("path", ["/en/models/a--b/c/", "/en/models/org/na..me/", "/en/models/-org/x/"])
def test_invalid_id_in_url_is_a_404_without_import_offer(client, hub_mock, path):
    response = client.get(path)

    assert response.status_code == 404
    page = parse(response.content)
    assert page.one(id="hub-id-error")
    assert not page.select("input", name="hub_id")
    assert hub_mock.calls.call_count == 0


@pytest.mark.parametrize("bad", ["../../etc", "x" * 300, "org/" + "n" * 300, "zаi-org/GLM", "", "org/a--b"])
def test_import_rejects_bad_ids_without_a_network_call(client, hub_mock, bad):
    response = client.post("/en/models/import/", {"hub_id": bad})

    assert response.status_code == 400
    assert not ImportRequest.objects.exists()
    assert hub_mock.calls.call_count == 0


def test_on_demand_import_runs_and_the_status_page_shows_the_result(
    client, hub_mock, django_capture_on_commit_callbacks, eager_celery
):
    for name in QWEN_SET:
        mount(hub_mock, name)

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/en/models/import/", {"hub_id": QWEN})

    assert response.status_code == 302
    assert response["Location"] == f"/en/models/import/{QWEN}/"
    assert ImportRequest.objects.get().state == "done"
    status = client.get(response["Location"], headers={"HX-Request": "true"})
    fragment = parse(status.content)
    box = fragment.one("div", id="import-status")
    assert box.attrs["data-state"] == "done"
    assert "hx-trigger" not in box.attrs  # polling stops once the result is in
    assert fragment.one("section", id="model-facts").attrs["data-hub-id"] == QWEN
    assert "HX-Request" in status["Vary"]
    assert status["Cache-Control"] == "no-store"
    assert Model.objects.get().builds.count() == 4


def test_pending_import_page_polls_every_two_seconds_and_works_without_js(client):
    ImportRequest.objects.create(hub_id="org/pending-model")

    page = client.get("/en/models/import/org/pending-model/")

    html = page.content.decode()
    box = parse(html).one("div", id="import-status")
    assert box.attrs["hx-trigger"] == "every 2s"
    assert box.attrs["hx-get"] == "/en/models/import/org/pending-model/"
    assert re.search(r'<noscript><meta http-equiv="refresh" content="\d+"></noscript>', html)
    assert parse(html).select("a", href="/en/models/import/org/pending-model/")


@pytest.mark.parametrize(
    ("names", "failure", "words"),
    [
        (("model_info_Llama-3.1-8B-Instruct_gated", "config_Llama-3.1-8B-Instruct_401_gated"), "gated", "Gated"),
        (("model_info_404_not_found",), "not_found", "not on the Hugging Face Hub"),
    ],
)
def test_failed_import_shows_the_precise_failure(
    client, hub_mock, django_capture_on_commit_callbacks, eager_celery, names, failure, words
):
    for name in names:
        mount(hub_mock, name)
    hub_id = recording(names[0])["path"].removeprefix("/api/models/")

    with django_capture_on_commit_callbacks(execute=True):
        client.post("/en/models/import/", {"hub_id": hub_id})

    page = parse(client.get(f"/en/models/import/{hub_id}/").content)
    alert = page.one(data_failure=failure)
    assert words in alert.text
    assert not Model.objects.exists()


def test_unsizable_repo_says_what_is_missing(client, hub_mock, django_capture_on_commit_callbacks, eager_celery):
    mount(hub_mock, "model_info_Qwen3-30B-A3B")
    sha = recording("model_info_Qwen3-30B-A3B")["json"]["sha"]
    hub_mock.get(f"https://huggingface.co/{QWEN}/resolve/{sha}/config.json").respond(200, json={"in_channels": 4})

    with django_capture_on_commit_callbacks(execute=True):
        client.post("/en/models/import/", {"hub_id": QWEN})

    alert = parse(client.get(f"/en/models/import/{QWEN}/").content).one(data_failure="not_sizable")
    assert "not a transformer we can size" in alert.text
    assert "hidden_size" in alert.text


def test_imports_per_client_are_limited_per_hour(
    client, hub_mock, settings, django_capture_on_commit_callbacks, eager_celery
):
    settings.CATALOG_IMPORTS_PER_CLIENT_PER_HOUR = 2
    hub_mock.get(url__regex=r"https://huggingface\.co/api/models/.*").respond(
        404, headers={"X-Error-Code": "RepoNotFound"}, json={"error": "Repository not found"}
    )

    with django_capture_on_commit_callbacks(execute=True):
        first = client.post("/en/models/import/", {"hub_id": "org/one"})
        second = client.post("/en/models/import/", {"hub_id": "org/two"})
        third = client.post("/en/models/import/", {"hub_id": "org/three"})

    assert (first.status_code, second.status_code, third.status_code) == (302, 302, 429)
    assert parse(third.content).one(id="throttled")
    assert not ImportRequest.objects.filter(hub_id="org/three").exists()
    assert hub_mock.calls.call_count == 2


def test_import_limit_counts_the_client_behind_a_trusted_proxy(
    client, hub_mock, settings, django_capture_on_commit_callbacks, eager_celery
):
    settings.CATALOG_IMPORTS_PER_CLIENT_PER_HOUR = 1
    settings.TRUSTED_PROXY_HOPS = 1
    hub_mock.get(url__regex=r"https://huggingface\.co/api/models/.*").respond(
        404, headers={"X-Error-Code": "RepoNotFound"}, json={"error": "Repository not found"}
    )

    with django_capture_on_commit_callbacks(execute=True):
        # the proxy is 10.0.0.1 for everyone; the clients differ
        alice = client.post("/en/models/import/", {"hub_id": "org/one"}, HTTP_X_FORWARDED_FOR="203.0.113.7")
        bob = client.post("/en/models/import/", {"hub_id": "org/two"}, HTTP_X_FORWARDED_FOR="198.51.100.4")
        # a forged left-most entry does not give alice a fresh allowance
        forged = client.post("/en/models/import/", {"hub_id": "org/three"}, HTTP_X_FORWARDED_FOR="1.2.3.4, 203.0.113.7")

    assert (alice.status_code, bob.status_code, forged.status_code) == (302, 302, 429)
