"""Self-hosting against a hosted API on the model page (calculator/page/hosted.py): it reads the planner's answer
for the page's settings, so a configuration's capacity, the break-even and the planner's rows are one set of numbers,
and the break-even is where the planner's cheapest rented way first costs less than the API."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from django.core.management import call_command

from calculator.estimation.plan.planner import SECONDS_PER_MONTH, monthly_output_tokens
from calculator.page import builders
from calculator.page.hosted import SelfHostVsApi
from calculator.page.planner import faq_answer
from calculator.page.work import PageWork
from models_catalog import services
from pricing.api_price_services import api_prices_load
from tests.calculator.page_inputs import page_inputs
from tests.models_catalog.html import parse

GLM = "zai-org/GLM-5.3-Flash"
LLAMA_8B = "meta-llama/Llama-3.1-8B-Instruct"
SHIPPED = Path(services.__file__).resolve().parent / "data" / "hub"


def _rented_month(row, volume: float, peak: float) -> float:
    """A rented row's month at ``volume`` output tokens, fractional replicas (the planner's trend)."""
    capacity = row.served.capacity
    replicas = volume / SECONDS_PER_MONTH * peak / capacity.output_tokens_per_s
    return max(1.0, replicas) * row.served.monthly_usd / row.served.replicas


@pytest.mark.parametrize("hub_id", [LLAMA_8B, GLM, "Qwen/Qwen3-30B-A3B"])
@pytest.mark.parametrize("query", [{}, {"cached": "50"}, {"tps": "10"}])
def test_the_break_even_is_where_the_planners_cheapest_rented_way_first_costs_less_than_the_api(hub_id, query):
    inputs = page_inputs(hub_id, query)
    api = builders.build_api(PageWork(inputs))
    plan = faq_answer(inputs)
    rented = [row for row in plan.rows if row.kind == "rented"]
    assert api.rows and rented and api.self_host is not None and api.capacity is not None
    chosen = next(r for r in rented if r.offer.ranked == api.self_host)
    assert chosen.served.capacity == api.capacity  # the planner's own row, not a second estimate
    api_cost = api.per_million_output_usd / 1e6
    peak = plan.demand.peak_factor
    volume = api.break_even_tokens
    assert volume == pytest.approx(float(api.self_host.per_month_usd) / api_cost)
    below, above = volume * 0.99, volume * 1.01
    # below it the API is cheaper than every rented way; above it the chosen one is cheaper, when it can serve it
    assert all(_rented_month(row, below, peak) > below * api_cost for row in rented)
    if api.reachable:
        assert _rented_month(chosen, above, peak) < above * api_cost
        assert api.capacity_tokens == pytest.approx(monthly_output_tokens(api.capacity, plan.demand))
    else:
        assert all(_rented_month(row, v, peak) > v * api_cost for row in rented for v in (above, 1e12))


def test_the_readers_speed_floor_is_the_planners_time_per_token():
    slow, fast = (builders.build_api(PageWork(page_inputs(GLM, {"tps": t}))) for t in ("20", "40"))
    assert slow.demand.tpot_target_s == pytest.approx(0.05) and fast.demand.tpot_target_s == pytest.approx(0.025)
    assert slow.capacity is not None and fast.capacity is not None
    assert fast.capacity.tpot_s <= 0.025 < slow.capacity.tpot_s <= 0.05
    assert fast.tpot_ms == 25


def test_no_configuration_within_the_targets_is_said_so_not_priced():
    """At 1,000 tokens per second per request no GPU on offer keeps even one request of GLM-5.3-Flash within 1 ms a
    token: the chapter says so (it once fell back to one request at a time)."""
    api = builders.build_api(PageWork(page_inputs(GLM, {"tps": "1000"})))
    assert isinstance(api, SelfHostVsApi)
    assert api.self_host is None and api.capacity is None and api.unmet and api.break_even_tokens is None


@pytest.fixture
def site(db):
    """GLM-5.3-Flash, the seed offers and the hosted API prices."""
    services.model_import_offline(SHIPPED, only=[GLM])
    call_command("loaddata", "seed_offers_2026-11-13", verbosity=0)
    api_prices_load()


def test_the_page_the_json_and_the_planner_read_one_replica(client, site):
    data = json.loads(client.get("/api/v1/estimate", {"model": GLM}).content)["api"]
    replica, targets = data["replica"], data["targets"]
    assert targets == {
        "ttft_s": 2.0,
        "tpot_s": 0.05,
        "percentile": 50,
        "peak_factor": 2.0,
        "prompt_tokens": 3000,
        "output_tokens": 1000,
    }
    plan = json.loads(client.get("/api/v1/plan", {"model": GLM}).content)["options"]
    same = [
        o
        for o in plan
        if o["kind"] == "rented"
        and o["gpu_slug"] == data["self_host"]["gpu"]
        and o["provider"] == data["self_host"]["provider_name"]
        and o["instance_gpus"] == data["self_host"]["instance_gpus"]
    ]
    assert same and same[0]["requests_per_replica"] == replica["concurrency"]
    assert same[0]["output_tokens_per_s_per_replica"] == round(replica["output_tokens_per_s"], 1)
    assert data["tokens_per_s"] == replica["output_tokens_per_s"]
    assert data["self_host_capacity_tokens_per_month"] == pytest.approx(
        replica["output_tokens_per_s"] * SECONDS_PER_MONTH / 2
    )
    page = parse(client.get(f"/en/models/{GLM}/?show=api-body").content)
    text = " ".join(page.one(id="api").text.split())
    assert f"one such server runs up to {replica['concurrency']} concurrent requests" in text
    assert "each token within 50 ms and the first within 2 s for the median request" in text
    link = page.one(id="plan-link").one("a").attrs["href"]
    assert "tpot=50" in link and "ratio=3.0" in link
    strict = json.loads(client.get("/api/v1/estimate", {"model": GLM, "tps": "40"}).content)["api"]
    assert strict["targets"]["tpot_s"] == 0.025 and strict["replica"]["tpot_s"] <= 0.025
    bad = client.get("/api/v1/estimate", {"model": GLM, "tps": "0"})
    assert bad.status_code == 400 and "tps" in json.loads(bad.content)["error"]["parameters"]
    german = " ".join(parse(client.get(f"/de/models/{GLM}/?tps=40&show=api-body").content).one(id="api").text.split())
    assert "25 ms" in german and "Tokens pro Sekunde" in german and "the median request" not in german
    assert math.isfinite(data["break_even_output_tokens_per_month"])
