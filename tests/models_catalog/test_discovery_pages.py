"""What readers see after discovery: the new release on the home page, in the catalog and in the sitemap, a new build
on its model's page, readers' names for licences and tasks, and the page cache of an unchanged model left as it was.
The last test runs the beat schedule's discovery tasks through a real Celery worker against the replayed Hub."""

from __future__ import annotations

from io import StringIO
from xml.etree import ElementTree

import pytest
from django.conf import settings
from django.core.management import call_command
from django.utils import translation

from models_catalog import discovery
from models_catalog.models import DiscoveryRun, Model
from models_catalog.reader_names import licence_name, task_name
from tests.models_catalog.discovery_replay import (
    DISCOVERY_SET,
    GATED,
    MOVING,
    NEW_RELEASE,
    NOT_SIZABLE,
    UNCHANGED,
    WITH_BUILDS,
    catalog_write,
    mount_all,
)
from tests.models_catalog.html import parse
from tests.models_catalog.hub_replay import local_hub
from tests.support import wait_for

SM = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
NEW_URL = "/en/models/Qwen/Qwen3-0.6B/"
UNCHANGED_URL = f"/en/models/{UNCHANGED}/"
BUILDS_URL = f"/en/models/{WITH_BUILDS}/"


def _new_this_week(client, url: str) -> list[str]:
    sections = parse(client.get(url).content).select("section", id="new-this-week")
    return [a.attrs["href"] for section in sections for a in section.select("a")]


def _lastmod(sitemap: ElementTree.Element, url: str) -> str | None:
    for entry in sitemap.findall(f"{SM}url"):
        if entry.findtext(f"{SM}loc", "").endswith(url):
            return entry.findtext(f"{SM}lastmod")
    return None


def _reader_sees(client) -> dict[str, object]:
    unchanged = client.get(UNCHANGED_URL)
    sitemap = ElementTree.fromstring(client.get("/sitemap-models.xml").content)
    return {
        "home": _new_this_week(client, "/en/"),
        "catalog": _new_this_week(client, "/en/models/"),
        "sitemap": _lastmod(sitemap, NEW_URL) is not None,
        "unchanged_lastmod": _lastmod(sitemap, UNCHANGED_URL),
        "build": "Qwen/Qwen3-30B-A3B-GGUF" in client.get(BUILDS_URL).content.decode(),
        "unchanged": (unchanged.status_code, unchanged["ETag"]),
    }


def _beat_sends_discovery() -> None:
    """What `celery beat` does when the schedule's discovery entries fall due: its scheduler sends each entry."""
    from celery.beat import ScheduleEntry, Scheduler

    from config.celery import app

    scheduler = Scheduler(app, lazy=True)
    for name in ("catalog-discover-models", "catalog-discover-builds", "catalog-refresh-facts"):
        scheduler.apply_async(ScheduleEntry(name=name, app=app, **settings.CELERY_BEAT_SCHEDULE[name]))


@pytest.mark.django_db
def test_discovery_reaches_the_pages_and_leaves_an_unchanged_models_page_as_it_was(hub_mock, hub_client, client):
    catalog_write()
    mount_all(hub_mock)
    before = _reader_sees(client)

    for run in (discovery.discovery_models_run, discovery.discovery_builds_run, discovery.discovery_facts_run):
        assert run(client=hub_client).outcome == DiscoveryRun.Outcome.DONE

    after = _reader_sees(client)
    assert (before["home"], before["catalog"], before["sitemap"], before["build"]) == ([], [], False, False)
    assert (after["home"], after["catalog"], after["sitemap"], after["build"]) == ([NEW_URL], [NEW_URL], True, True)
    assert after["unchanged"] == before["unchanged"]
    assert after["unchanged_lastmod"] == before["unchanged_lastmod"] is not None


@pytest.mark.django_db
def test_the_admin_shows_what_discovery_did(hub_mock, hub_client, admin_client):
    catalog_write()
    mount_all(hub_mock)
    run = discovery.discovery_models_run(client=hub_client)

    listing = admin_client.get("/admin/models_catalog/discoveryrun/").content.decode()
    detail = admin_client.get(f"/admin/models_catalog/discoveryrun/{run.pk}/change/").content.decode()
    skips = admin_client.get("/admin/models_catalog/hubskip/").content.decode()

    assert "New models" in listing
    assert f"imported  {NEW_RELEASE}" in detail and f"skipped   {NOT_SIZABLE}: not_sizable" in detail
    assert NOT_SIZABLE in skips and GATED in skips


@pytest.mark.django_db
def test_readers_names_for_licences_and_tasks_on_the_page(client):
    catalog_write()
    Model.objects.filter(hub_id=MOVING).update(licence="llama3.1", task="image-text-to-text")

    page = parse(client.get(f"/en/models/{MOVING}/").content)
    german = parse(client.get(f"/de/models/{MOVING}/").content)

    assert page.one("dd", data_fact="licence").text == "Llama 3.1 Community Licence"
    assert page.one("dd", data_fact="task").text == "Image and text to text"
    assert german.one("dd", data_fact="licence").text == "Llama 3.1 Community License"
    assert german.one("dd", data_fact="task").text == "Bild und Text zu Text"


@translation.override("en")
def test_readers_names_fall_back_to_the_hubs_id():
    assert (licence_name("MIT"), licence_name("apache-2.0"), licence_name("deepseek (model license; code MIT)")) == (
        "MIT",
        "Apache 2.0",
        "deepseek (model license; code MIT)",
    )
    assert (task_name("text-generation"), task_name("fill-mask"), task_name("")) == ("Text generation", "fill-mask", "")


@pytest.mark.django_db
@translation.override("en")
def test_the_command_runs_discovery_and_prints_each_runs_report(hub_mock, settings):
    settings.HUB_MIN_INTERVAL_S = 0
    catalog_write()
    mount_all(hub_mock)
    out = StringIO()

    call_command("discover_hub", stdout=out)

    text = out.getvalue()
    assert f"imported  {NEW_RELEASE}" in text
    assert f"skipped   {NOT_SIZABLE}: not_sizable:" in text
    assert f"skipped   {GATED}: gated:" in text
    assert "build     Qwen/Qwen3-30B-A3B: GGUF Q4_K_M in Qwen/Qwen3-30B-A3B-GGUF (18.66 GB)" in text
    assert f"changed   {MOVING}: " in text
    shown = StringIO()
    call_command("discover_hub", "--last", "3", stdout=shown)
    assert shown.getvalue().count("outcome: done") == 3


@pytest.fixture
def replayed_hub_for_worker(monkeypatch):
    """The worker started after this fixture reads the replay's endpoint and asks it without pacing."""
    with local_hub(DISCOVERY_SET) as endpoint:
        monkeypatch.setenv("HUB_ENDPOINT", endpoint)
        monkeypatch.setenv("HUB_MIN_INTERVAL_MS", "0")
        yield endpoint


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_the_beat_schedules_discovery_through_a_real_worker(replayed_hub_for_worker, celery_worker, client):
    catalog_write()
    before = _reader_sees(client)

    _beat_sends_discovery()
    assert wait_for(lambda: DiscoveryRun.objects.filter(outcome=DiscoveryRun.Outcome.DONE).count() == 3, 120)

    after = _reader_sees(client)
    assert (after["home"], after["sitemap"], after["build"]) == ([NEW_URL], True, True)
    assert client.get(NEW_URL).status_code == 200
    assert after["unchanged"] == before["unchanged"]
    assert after["unchanged_lastmod"] == before["unchanged_lastmod"] is not None
    assert Model.objects.get(hub_id=NEW_RELEASE).sources[0].startswith(replayed_hub_for_worker)
