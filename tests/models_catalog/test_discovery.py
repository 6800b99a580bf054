"""Discovery against the replayed Hub: new releases imported, what the reader cannot size skipped with the reason,
new builds of listed models found, moving facts refreshed, and nothing listed lost or changed by a failed run."""

from __future__ import annotations

from datetime import UTC, datetime

import httpx
import pytest
from celery.exceptions import SoftTimeLimitExceeded
from django.core.cache import cache

from models_catalog import discovery
from models_catalog.models import DiscoveryRun, HubSkip, Model
from tests.models_catalog.discovery_replay import (
    BELOW_FLOOR,
    DELETED,
    GATED,
    MOVING,
    NEW_RELEASE,
    NOT_SIZABLE,
    UNCHANGED,
    WITH_BUILDS,
    catalog_write,
    mount_all,
)
from tests.models_catalog.hub_replay import ENDPOINT, response
from tests.support import module_rows
from web.generations import CATALOG_GENERATION

pytestmark = pytest.mark.xdist_group("discovery")
NOW = datetime(2026, 12, 4, 6, 0, tzinfo=UTC)

_catalog = module_rows(catalog_write)


@pytest.fixture
def catalog(_catalog, db) -> None:
    return None


@pytest.fixture
def hub(hub_mock):
    mount_all(hub_mock)
    return hub_mock


def _snapshot() -> dict[str, tuple]:
    return {
        m.hub_id: (m.downloads, m.likes, m.gated, m.licence, m.hub_sha, m.updated_at, m.builds.count())
        for m in Model.objects.order_by("hub_id")
    }


def test_new_release_is_imported_and_what_the_reader_cannot_size_is_skipped_with_the_reason(catalog, hub, hub_client):
    run = discovery.discovery_models_run(client=hub_client, now=NOW)

    assert run.outcome == DiscoveryRun.Outcome.DONE
    assert run.report["imported"] == [NEW_RELEASE]
    new = Model.objects.get(hub_id=NEW_RELEASE)
    assert (new.params_total, new.params_total_source, new.downloads) == (751_632_384, "safetensors", 18_554_097)
    assert new.listed_at is not None
    skipped = run.report["skipped"]
    assert set(skipped) == {NOT_SIZABLE, GATED}
    assert skipped[NOT_SIZABLE] == "not_sizable: not a transformer we can size: config.json has no num_attention_heads"
    assert skipped[GATED].startswith("gated: the repo is gated (manual approval)")
    # never half imported; below the floor or a quantized build: not a model of its own
    assert not Model.objects.filter(hub_id__in=[NOT_SIZABLE, GATED, BELOW_FLOOR, f"{WITH_BUILDS}-GGUF"]).exists()
    assert set(HubSkip.objects.values_list("hub_id", "failure")) == {(NOT_SIZABLE, "not_sizable"), (GATED, "gated")}


def test_a_second_run_is_a_no_op(catalog, hub, hub_client):
    discovery.discovery_models_run(client=hub_client, now=NOW)
    before, token = _snapshot(), CATALOG_GENERATION.current()

    again = discovery.discovery_models_run(client=hub_client, now=NOW)

    assert (again.report["imported"], again.report["skipped"]) == ([], {})
    assert _snapshot() == before
    assert CATALOG_GENERATION.current() == token


def test_published_builds_of_a_listed_model_join_its_builds_with_their_file_sizes(catalog, hub, hub_client):
    model = Model.objects.get(hub_id=WITH_BUILDS)
    before = set(model.builds.values_list("repo_id", "label"))

    run = discovery.discovery_builds_run(client=hub_client, now=NOW)

    found = {(b["repo_id"], b["format"], b["label"], b["size_bytes"]) for b in run.report["builds"]}
    assert found == {
        ("Qwen/Qwen3-30B-A3B-GGUF", "GGUF", "Q4_K_M", 18_662_759_954),
        ("Qwen/Qwen3-30B-A3B-GGUF", "GGUF", "Q8_0", 32_440_380_288),
        ("Qwen/Qwen3-30B-A3B-FP8", "FP8", "FP8", 30_532_122_624),
        ("mlx-community/Qwen3-30B-A3B-4bit", "MLX", "4-bit", 17_174_318_976),
    }
    after = set(model.builds.values_list("repo_id", "label"))
    assert before < after
    assert ("Qwen/Qwen3-30B-A3B-GGUF", "Q4_K_M") in after
    token = CATALOG_GENERATION.current()
    again = discovery.discovery_builds_run(client=hub_client, now=NOW)
    assert again.report["builds"] == []
    assert CATALOG_GENERATION.current() == token


def test_moving_facts_are_refreshed_and_an_unchanged_model_is_not_written(catalog, hub, hub_client):
    unchanged_at = Model.objects.get(hub_id=UNCHANGED).updated_at
    deleted = _snapshot()[DELETED]

    run = discovery.discovery_facts_run(client=hub_client, now=NOW)

    moving = Model.objects.get(hub_id=MOVING)
    assert (moving.gated, moving.licence, moving.downloads, moving.likes) == ("manual", "llama3.1", 1000, 100)
    assert moving.hub_sha == "a5d6a5228210a5a0b056bd9762df3d5e25154e33"
    assert moving.downloads_as_of == NOW.date()
    assert moving.facts.get(kind="downloads", source="hub_api").value_int == 1000
    assert "gated: – → manual" in run.report["changed"][MOVING]
    assert UNCHANGED not in run.report["changed"]
    unchanged = Model.objects.get(hub_id=UNCHANGED)
    assert unchanged.updated_at == unchanged_at  # the sitemap's lastmod stays
    assert unchanged.hub_checked_at == NOW
    # a repo the Hub no longer has is reported and kept as it was
    assert DELETED in run.report["missing"]
    assert _snapshot()[DELETED] == deleted


def test_a_renamed_repo_is_reported_and_kept_under_its_address(catalog, hub, hub_client):
    Model.objects.filter(hub_id=MOVING).update(hub_id="meta-llama/Meta-Llama-3.1-70B-Instruct")
    Model.objects.exclude(hub_id="meta-llama/Meta-Llama-3.1-70B-Instruct").update(hub_checked_at=NOW)

    run = discovery.discovery_facts_run(client=hub_client, now=NOW)

    assert run.report["renamed"] == {"meta-llama/Meta-Llama-3.1-70B-Instruct": "meta-llama/Llama-3.1-70B-Instruct"}
    assert Model.objects.filter(hub_id="meta-llama/Meta-Llama-3.1-70B-Instruct").exists()
    assert not Model.objects.filter(hub_id="meta-llama/Llama-3.1-70B-Instruct").exists()


def test_a_429_with_retry_after_is_waited_out(catalog, hub, hub_client, sleeps):
    hub.routes.clear()
    hub.get(f"{ENDPOINT}/api/models/{MOVING}").mock(
        side_effect=[response("model_info_429_rate_limited"), response("model_info_Llama-3.1-8B-Instruct_gated")]
    )
    mount_all(hub)
    Model.objects.exclude(hub_id=MOVING).update(hub_checked_at=NOW)

    run = discovery.discovery_facts_run(client=hub_client, now=NOW)

    assert 2.0 in sleeps.waits
    assert run.outcome == DiscoveryRun.Outcome.DONE
    assert MOVING in run.report["changed"]


def test_a_longer_retry_after_stops_the_run_and_changes_nothing(catalog, hub, hub_client):
    hub.routes.clear()
    hub.get(f"{ENDPOINT}/api/models/{MOVING}").mock(return_value=response("model_info_429_rate_limited"))
    mount_all(hub)
    hub_client.settings.max_retry_after_s = 1.0
    before = _snapshot()

    run = discovery.discovery_facts_run(client=hub_client, now=NOW)

    assert run.outcome == DiscoveryRun.Outcome.PARTIAL
    assert "asks us to wait 2 s" in run.report["stopped"]
    assert _snapshot()[MOVING] == before[MOVING]


def test_a_hub_that_times_out_changes_nothing_listed(catalog, hub_mock, hub_client):
    hub_mock.get(url__regex=rf"^{ENDPOINT}/api/models.*").mock(side_effect=httpx.ReadTimeout("timed out"))
    before, token = _snapshot(), CATALOG_GENERATION.current()

    runs = [
        discovery.discovery_models_run(client=hub_client, now=NOW),
        discovery.discovery_builds_run(client=hub_client, now=NOW),
        discovery.discovery_facts_run(client=hub_client, now=NOW),
    ]

    assert runs[0].outcome == DiscoveryRun.Outcome.FAILED
    assert all("timed out" in reason for reason in runs[1].report["failures"].values())
    assert set(runs[2].report["failures"]) == set(before)
    assert _snapshot() == before
    assert CATALOG_GENERATION.current() == token


def test_a_run_under_way_elsewhere_is_not_run_twice(catalog, hub_mock, hub_client):
    cache.add("catalog:discovery:models:lock", "another-worker", timeout=60)

    run = discovery.discovery_models_run(client=hub_client, now=NOW)

    assert run.outcome == DiscoveryRun.Outcome.LOCKED
    assert not hub_mock.calls


def test_requests_are_paced_below_the_hubs_limit(catalog, hub, hub_client, sleeps):
    clock = iter(float(i) * 0.1 for i in range(10_000))
    hub_client.settings.min_interval_s = 0.7
    hub_client.settings.clock = lambda: next(clock)

    discovery.discovery_facts_run(client=hub_client, now=NOW)

    assert len(hub.calls) >= 4
    assert sleeps.waits and all(0 < wait <= 0.7 for wait in sleeps.waits)


def test_a_run_stopped_by_its_time_limit_keeps_and_shows_the_builds_it_found(catalog, hub, hub_client):
    hub.routes.clear()
    hub.get(f"{ENDPOINT}/api/models/mlx-community/Qwen3-30B-A3B-4bit").mock(side_effect=SoftTimeLimitExceeded())
    mount_all(hub)
    token = CATALOG_GENERATION.current()

    run = discovery.discovery_builds_run(client=hub_client, now=NOW)

    assert run.outcome == DiscoveryRun.Outcome.PARTIAL
    assert "time limit" in run.report["stopped"]
    assert {b["repo_id"] for b in run.report["builds"]} == {"Qwen/Qwen3-30B-A3B-GGUF", "Qwen/Qwen3-30B-A3B-FP8"}
    assert Model.objects.get(hub_id=WITH_BUILDS).builds.filter(repo_id="Qwen/Qwen3-30B-A3B-FP8").exists()
    assert CATALOG_GENERATION.current() != token
