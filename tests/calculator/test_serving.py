"""The throughput a configuration sustains (calculator/estimation/speed/serving.py) and the break-even that uses it: the
largest batch that fits and keeps each request at the reader's floor, not one request at a time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import call_command

from calculator.estimation import Workload, speed
from calculator.estimation.speed.serving import CONCURRENCY_STEPS, sustained_throughput
from calculator.validation.kv import HUB
from models_catalog import services
from models_catalog.specs import spec_from_recorded_folder
from pricing.api_price_services import api_prices_load
from pricing.gpus import gpu_by_slug
from tests.models_catalog.html import parse

GLM = "zai-org/GLM-5.3-Flash"
SHIPPED = Path(services.__file__).resolve().parent / "data" / "hub"


def _gpu(slug: str):
    gpu = gpu_by_slug(slug)
    assert gpu is not None
    return gpu


@pytest.mark.parametrize(
    ("hub_id", "slug", "count"), [(GLM, "h200-sxm", 8), ("meta-llama/Llama-3.1-8B-Instruct", "l4", 1)]
)
@pytest.mark.parametrize("floor", [5, 20, 60])
def test_the_sustained_batch_fits_keeps_the_floor_and_beats_one_request(hub_id, slug, count, floor):
    spec, gpu = spec_from_recorded_folder(HUB / hub_id), _gpu(slug)
    workload = Workload(precision="fp8", engine="vllm")
    found = sustained_throughput(spec, workload, gpu, count, floor)
    one = speed(spec, workload, gpu, count)
    assert found is not None and one.decode_tokens_per_s_low is not None
    if not found.meets_floor:
        assert found.concurrency == 1 and found.limit == "latency"
        return
    assert found.per_request_tokens_per_s >= floor
    assert found.tokens_per_s >= one.decode_tokens_per_s_low
    assert one.max_concurrency is None or found.concurrency <= one.max_concurrency
    if found.limit == "latency":  # the next step would fall below the floor
        following = next((c for c in CONCURRENCY_STEPS if c > found.concurrency), None)
        if following is not None and (one.max_concurrency is None or following <= one.max_concurrency):
            slower = speed(spec, Workload(precision="fp8", engine="vllm", concurrency=following), gpu, count)
            assert slower.per_request_tokens_per_s_low is not None and slower.per_request_tokens_per_s_low < floor


def test_a_higher_floor_never_allows_a_larger_batch():
    spec, gpu = spec_from_recorded_folder(HUB / GLM), _gpu("h200-sxm")
    batches = [sustained_throughput(spec, Workload(precision="fp8"), gpu, 8, floor) for floor in (1, 20, 40, 80, 400)]
    sizes = [b.concurrency for b in batches if b is not None]
    assert sizes == sorted(sizes, reverse=True) and sizes[0] > 1


def test_memory_bounds_the_batch_and_pipeline_stages_hold_memory():
    """Five A100 SXM 80GB hold GLM-5.3-Flash's FP8 weights (356 GB) at 90 % fill with room for 14 requests of 8K: run as
    one tensor-parallel rank × 5 pipeline stages, the stages' memory still counts (it once counted one GPU's, 0)."""
    spec, gpu = spec_from_recorded_folder(HUB / GLM), _gpu("a100-80gb-sxm")
    workload = Workload(precision="fp8")
    room = speed(spec, workload, gpu, 5).max_concurrency
    assert room is not None and 1 < room < CONCURRENCY_STEPS[-1]
    staged = sustained_throughput(spec, workload, gpu, 1, 1, memory_gpus=5)
    assert staged is not None and staged.limit == "memory" and staged.concurrency == room


@pytest.fixture
def site(db):
    """GLM-5.3-Flash, the seed offers and the hosted API prices."""
    services.model_import_offline(SHIPPED, only=[GLM])
    call_command("loaddata", "seed_offers_2026-11-13", verbosity=0)
    api_prices_load()


def test_the_break_even_counts_the_batch_the_configuration_holds_and_the_reader_sets_the_floor(client, site):
    """GLM-5.3-Flash: one request at a time gave 80–94 M tokens a month, 'the API stays cheaper'; at the batch the
    cheapest-per-token configuration holds, it generates billions and pays off above the break-even."""
    data = json.loads(client.get("/api/v1/estimate", {"model": GLM}).content)["api"]
    assert data["min_tokens_per_s"] == 20 and data["sustained"]["concurrency"] > 16
    assert data["sustained"]["per_request_tokens_per_s"] >= 20
    assert data["self_host_capacity_tokens_per_month"] > 1e9
    page = parse(client.get(f"/en/models/{GLM}/").content)
    text = " ".join(page.one(id="api").text.split())
    assert f"With {data['sustained']['concurrency']} concurrent requests, each at" in text
    strict = json.loads(client.get("/api/v1/estimate", {"model": GLM, "tps": "200"}).content)["api"]
    assert strict["sustained"]["concurrency"] < data["sustained"]["concurrency"]
    assert strict["min_tokens_per_s"] == 200
    bad = client.get("/api/v1/estimate", {"model": GLM, "tps": "0"})
    assert bad.status_code == 400 and "tps" in json.loads(bad.content)["error"]["parameters"]
    german = " ".join(parse(client.get(f"/de/models/{GLM}/?tps=40").content).one(id="api").text.split())
    assert "jede mit" in german and "Tokens pro Sekunde" in german
