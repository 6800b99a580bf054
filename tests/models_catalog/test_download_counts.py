"""Recorded Hub download counts (models_catalog/data/hub_downloads.json): the offline import stores each with the day
it was read and its source; a model the scrape lacks keeps none; a live figure is never replaced."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from models_catalog import services
from models_catalog.hub_ids import parse_hub_id
from models_catalog.models import Model, ModelFact
from models_catalog.records import ModelRecord, load_download_counts, with_download_count
from tests.models_catalog.html import parse

SHIPPED = Path(services.__file__).resolve().parent / "data" / "hub"


@pytest.mark.django_db
def test_the_offline_import_stores_each_count_with_its_day_and_source(client):
    services.model_import_offline(SHIPPED, only=["meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3-32B"])
    llama = Model.objects.get(hub_id="meta-llama/Llama-3.1-8B-Instruct")
    assert (llama.downloads, llama.downloads_as_of) == (9393633, date(2026, 5, 12))
    fact = ModelFact.objects.get(model=llama, kind="downloads")
    assert "AlexsJones/llmfit" in fact.source_detail and "5bdc9df9" in fact.source_detail
    qwen = Model.objects.get(hub_id="Qwen/Qwen3-32B")  # not in the scrape: no figure, nothing shown
    assert qwen.downloads is None and qwen.downloads_as_of is None
    fact = parse(client.get("/en/models/meta-llama/Llama-3.1-8B-Instruct/").content).one(data_fact="downloads")
    assert fact.text == "9,393,633 (as read on May 12, 2026)"


def test_a_live_count_is_never_replaced():
    recorded = load_download_counts()
    live = ModelRecord(
        hub_id=parse_hub_id("meta-llama/Llama-3.1-8B-Instruct"),
        origin="hub",
        fetched_at=datetime(2026, 12, 1, tzinfo=UTC),
        config={},
        config_status="complete",
        downloads=5,
        downloads_as_of=date(2026, 12, 1),
    )
    assert with_download_count(live, recorded) is live
