"""The planner (calculator/estimation/plan/planner.py, calculator/page/planner.py, docs/methodology.md §5.7): replicas
for a monthly volume within latency targets against hosted APIs, with the arithmetic written out."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from datetime import date
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from calculator.estimation import Workload
from calculator.estimation.plan.cost import ApiPrice
from calculator.estimation.plan.planner import (
    SECONDS_PER_MONTH,
    Demand,
    OwnedCosts,
    ReplicaCapacity,
    _steady_step,
    monthly_range,
    owned_month,
    replica_capacity,
    served_by_api,
    served_by_replicas,
)
from calculator.estimation.speed.batching import simulate
from calculator.estimation.speed.load_test import LoadTest
from calculator.estimation.speed.schedulers import Scheduler
from calculator.estimation.speed.step_model import step_model
from calculator.page.planner import CurvePoint, _crossovers
from calculator.plan_state import parse_plan, parse_volume, plan_query, volume_label
from models_catalog import services
from pricing.api_price_services import api_prices_load
from pricing.gpus import gpu_by_slug
from tests.calculator.estimation_specs import hub_spec
from tests.models_catalog.html import parse
from tests.support import module_rows

SHIPPED = Path(services.__file__).resolve().parent / "data" / "hub"
MODEL = "zai-org/GLM-5.3-Flash"
TODAY = date(2026, 12, 2)


def test_an_api_answer_is_its_prices_times_the_volume():
    # 1 B output tokens, 3 input each, half of them cached: 1,000 × (2.00 + 3 × (0.5 × 0.60 + 0.5 × 0.15))
    api = ApiPrice(input_per_million_usd=0.60, output_per_million_usd=2.00, cached_input_per_million_usd=0.15)
    served = served_by_api(api, Demand(1e9, input_per_output=3, cached_share=0.5), TODAY)
    assert served.per_million_output_usd == pytest.approx(2.00 + 3 * (0.30 + 0.075))
    assert served.monthly_usd == pytest.approx(1000 * 3.125)


def test_a_rented_answer_sizes_replicas_for_the_peak():
    # 10 B tokens a month = 3,805.2 tokens/s on average, 7,610.5 at a peak of 2×; 1,000 tokens/s a replica → 8
    capacity = ReplicaCapacity(concurrency=40, output_tokens_per_s=1000.0, tpot_s=0.04, ttft_s=0.1, limit="tpot")
    demand = Demand(1e10, peak_factor=2.0)
    served = served_by_replicas(2000.0, capacity, demand)
    assert demand.peak_output_tokens_per_s == pytest.approx(1e10 / SECONDS_PER_MONTH * 2)
    assert served.replicas == math.ceil(1e10 / SECONDS_PER_MONTH * 2 / 1000) == 8
    assert served.monthly_usd == 16000.0
    assert served.per_million_output_usd == pytest.approx(16000 / 10_000)
    assert served.utilisation == pytest.approx(1e10 / SECONDS_PER_MONTH / 8000)


def _capacity(tpot_ms: int, ttft_s: float = 2.0) -> ReplicaCapacity | None:
    spec = hub_spec("meta-llama/Llama-3.1-8B-Instruct")
    gpu = gpu_by_slug("h100-sxm")
    assert gpu is not None
    step = step_model(spec, Workload(precision="bf16", context=4000), gpu)
    assert step is not None
    scheduler = Scheduler(max_num_seqs=1024, max_num_batched_tokens=8192, kv_tokens=4_000_000)
    return replica_capacity(step, scheduler, Demand(1e9, tpot_target_s=tpot_ms / 1000, ttft_target_s=ttft_s))


def test_a_tighter_latency_target_runs_fewer_requests_per_replica_and_needs_more_replicas():
    loose, tight = _capacity(60), _capacity(20)
    assert loose is not None and tight is not None
    assert tight.concurrency < loose.concurrency and tight.tpot_s <= 0.020 < loose.tpot_s <= 0.060
    assert tight.limit == loose.limit == "tpot"
    demand = Demand(1e11)
    assert served_by_replicas(1.0, tight, demand).replicas > served_by_replicas(1.0, loose, demand).replicas
    assert _capacity(1) is None  # one token a millisecond is beyond any replica


STEADY_CASES = [
    # model, GPU, output tokens per request, input per output, TPOT target (s)
    ("meta-llama/Llama-3.1-8B-Instruct", "h100-sxm", 500, 3, 0.04),
    ("Qwen/Qwen3-30B-A3B", "h100-sxm", 300, 10, 0.05),
    ("meta-llama/Llama-3.1-8B-Instruct", "l40s", 200, 5, 0.05),
]


def _steady_case(model: str, gpu_slug: str, olen: int, ratio: int, tpot: float):
    spec = hub_spec(model)
    gpu = gpu_by_slug(gpu_slug)
    assert gpu is not None
    step = step_model(spec, Workload(precision="bf16", context=olen * (ratio + 1)), gpu)
    assert step is not None
    scheduler = Scheduler(max_num_seqs=1024, max_num_batched_tokens=8192, kv_tokens=4_000_000)
    return step, scheduler, Demand(1e9, input_per_output=ratio, tpot_target_s=tpot, ttft_target_s=5, output_tokens=olen)


@pytest.mark.parametrize(("model", "gpu_slug", "olen", "ratio", "tpot"), STEADY_CASES)
def test_the_steady_state_agrees_with_the_step_by_step_simulation_at_the_same_load(model, gpu_slug, olen, ratio, tpot):
    # random arrivals at 80 % of the planner's capacity; the simulation settles at some number running (Little's law:
    # arrival rate × time in the engine), where the planner's steady state must give its latencies
    step, scheduler, demand = _steady_case(model, gpu_slug, olen, ratio, tpot)
    found = replica_capacity(step, scheduler, demand)
    assert found is not None
    rate = 0.8 * found.output_tokens_per_s / olen
    test = LoadTest(requests=1200, prompt_tokens=olen * ratio, output_tokens=olen, request_rate=rate, seed=1)
    run = simulate(step, scheduler, test)
    running = round(rate * (run.ttft_s.mean + (olen - 1) * run.tpot_s.mean))
    median = _steady_step(step, scheduler, demand, running)
    p95 = _steady_step(step, scheduler, replace(demand, percentile=95), running)
    assert median is not None and p95 is not None
    assert median[0] == pytest.approx(run.tpot_s.median, rel=0.08)
    assert median[1] == pytest.approx(run.ttft_s.median, rel=0.15)
    assert p95[0] == pytest.approx(run.tpot_s.p95, rel=0.15)
    assert p95[1] == pytest.approx(run.ttft_s.p95, rel=0.35)


def test_a_replica_at_the_planners_capacity_keeps_up_in_the_simulation():
    # at 95 % of the capacity the planner names, the simulated engine keeps the median time per token within the
    # target and never preempts (a step at the mean prompt load instead of the mixture of steps promised ~40 % more,
    # and the same simulation then ran twice the target)
    step, scheduler, demand = _steady_case("meta-llama/Llama-3.1-8B-Instruct", "h100-sxm", 500, 3, 0.04)
    found = replica_capacity(step, scheduler, demand)
    assert found is not None and found.limit == "tpot"
    rate = 0.95 * found.output_tokens_per_s / 500
    run = simulate(step, scheduler, LoadTest(requests=1500, prompt_tokens=1500, output_tokens=500, request_rate=rate))
    assert run.tpot_s.median <= demand.tpot_target_s and run.preemptions == 0


def test_targets_for_95_percent_of_requests_run_fewer_requests_per_replica():
    step, scheduler, demand = _steady_case("meta-llama/Llama-3.1-8B-Instruct", "h100-sxm", 500, 3, 0.04)
    median = replica_capacity(step, scheduler, demand)
    tail = replica_capacity(step, scheduler, replace(demand, percentile=95))
    assert median is not None and tail is not None
    assert tail.concurrency < median.concurrency and tail.output_tokens_per_s < median.output_tokens_per_s
    at_median = _steady_step(step, scheduler, demand, tail.concurrency)
    at_tail = _steady_step(step, scheduler, replace(demand, percentile=95), tail.concurrency)
    assert at_median is not None and at_tail is not None
    assert at_tail[0] > at_median[0] and at_tail[1] > at_median[1]


def test_an_owned_server_costs_its_write_off_energy_and_colocation():
    # $270,000 over 5 years = $4,500 a month; 10.2 kW × 730 h × PUE 1.54 × $0.0895 = $1,026.28; 10.2 kW × $184.06
    # = $1,877.41
    month = owned_month(270_000, 10.2, OwnedCosts(years=5, kwh_usd=0.0895, pue=1.54, colo_usd_per_kw_month=184.06))
    assert month.depreciation_usd == pytest.approx(4500.0)
    assert month.energy_usd == pytest.approx(10.2 * 730 * 1.54 * 0.0895)
    assert month.hosting_usd == pytest.approx(1877.412)
    assert month.total_usd == pytest.approx(4500 + 1026.28 + 1877.41, abs=0.01)


def test_the_cheapest_kind_changes_where_the_curves_cross():
    # an API at $1 per million output tokens, a rented replica at $800 for each started 10⁹ tokens, owned servers
    # at a flat $5,000: at 5 × 10⁸ the API ($500 < $800), at 2 × 10⁹ rented ($1,600 < $2,000), at 6 × 10⁹ still
    # rented ($4,800 < $5,000), at 2 × 10¹⁰ owned ($5,000 < $16,000)
    points = tuple(CurvePoint(v, v / 1e6, 800 * math.ceil(v / 1e9), 5000.0) for v in (1e8, 5e8, 2e9, 4e9, 6e9, 2e10))
    assert [(c.below, c.above, c.output_tokens_per_month) for c in _crossovers(points)] == [
        ("api", "rented", 2e9),
        ("rented", "owned", 2e10),
    ]


def test_a_prefix_cache_lowers_both_the_api_and_the_replica_costs():
    api = ApiPrice(0.60, 2.00, 0.15)
    # short answers to long prompts (3,000 tokens for 100) make the prompts' computation, which a cache hit saves,
    # count; where reading the cache dominates (long contexts), a hit saves nothing on the replicas
    cold = Demand(1e9, input_per_output=30, cached_share=0.0, output_tokens=100)
    warm = Demand(1e9, input_per_output=30, cached_share=0.8, output_tokens=100)
    assert served_by_api(api, warm, TODAY).monthly_usd < served_by_api(api, cold, TODAY).monthly_usd
    spec = hub_spec("meta-llama/Llama-3.1-8B-Instruct")
    gpu = gpu_by_slug("h100-sxm")
    assert gpu is not None
    step = step_model(spec, Workload(precision="bf16", context=4000), gpu)
    assert step is not None
    scheduler = Scheduler(1024, 8192, 4_000_000)
    slow, fast = replica_capacity(step, scheduler, cold), replica_capacity(step, scheduler, warm)
    assert slow is not None and fast is not None and fast.output_tokens_per_s > slow.output_tokens_per_s


@pytest.mark.parametrize(
    ("text", "tokens"), [("1B", 1e9), ("250M", 2.5e8), ("2.5T", 2.5e12), ("40000", 4e4), ("1 k", 1e3)]
)
def test_volumes_read_as_decimal_token_counts(text, tokens):
    assert parse_volume(text) == tokens
    assert parse_volume(volume_label(tokens)) == tokens


def test_unusable_planner_values_are_named_and_the_defaults_kept():
    from django.http import QueryDict

    parsed = parse_plan(QueryDict("out=0&ratio=-1&cached=150&tpot=abc&engine=ollama&ttft=2.5"))
    assert {u.name for u in parsed.unused} == {"out", "ratio", "cached", "tpot", "engine"}
    assert parsed.state.out == 1e9 and parsed.state.ttft == 2.5
    assert plan_query(parsed.state) == "ttft=2.5"


# A model whose cheapest way changes twice over the planner's volumes (API → rented → owned)
CROSSING_MODEL = "Qwen/Qwen3-30B-A3B"


def _write_site() -> None:
    services.model_import_offline(SHIPPED, only=[MODEL, "meta-llama/Llama-3.1-8B-Instruct", CROSSING_MODEL])
    call_command("loaddata", "seed_offers_2026-11-13", verbosity=0)
    api_prices_load()


_site_rows = module_rows(_write_site)


@pytest.fixture
def site(_site_rows, db):
    """Three models, the seed offers and the hosted API prices, written once for the module."""


@pytest.mark.django_db
def test_the_page_the_api_and_the_command_line_give_one_ranked_answer(client, site):
    query = {"model": MODEL, "out": "10B", "cached": "50"}
    page = parse(client.get("/en/plan/", query).content)
    shown = [(row.attrs["data-kind"], float(row.attrs["data-monthly"])) for row in page.select("tr", data_kind=True)]
    api = json.loads(client.get("/api/v1/plan", query).content)
    out = StringIO()
    call_command("plan", MODEL, "--out", "10B", "--cached", "50", "--json", stdout=out)
    cli = json.loads(out.getvalue())
    assert api["options"] == cli["options"]
    assert shown == [(o["kind"], o["monthly_usd"]) for o in api["options"]][: len(shown)]
    assert [o["monthly_usd"] for o in api["options"]] == sorted(o["monthly_usd"] for o in api["options"])
    assert {o["kind"] for o in api["options"]} == {"api", "rented", "owned"}
    owned = next(o for o in api["options"] if o["kind"] == "owned")
    assert owned["purchase_price_estimated"] is True and owned["purchase_price_source"].startswith("https://")
    assert owned["monthly_usd"] == pytest.approx(owned["servers"] * owned["per_month_per_server_usd"], abs=0.05)
    assert all("vllm serve" in o["command"] for o in api["options"] if o["kind"] != "api")


@pytest.mark.django_db
def test_every_replica_row_carries_its_engines_band_and_the_cost_it_spans(client, site):
    query = {"model": MODEL, "out": "10B", "cached": "50"}
    options = json.loads(client.get("/api/v1/plan", query).content)["options"]
    api_rows = [o for o in options if o["kind"] == "api"]
    replica_rows = [o for o in options if o["kind"] == "rented"]
    assert api_rows and all(o["band"] is None for o in api_rows)  # a price per token is exact
    assert replica_rows and all(o["band"] is not None for o in replica_rows)
    for row in replica_rows:
        band = row["band"]
        assert band["engine"] == "vllm" and band["published_runs"] >= 3 and band["within_percent"] > 0
        assert band["monthly_usd_low"] <= row["monthly_usd"] <= band["monthly_usd_high"]
    cheapest = options[0]
    ceiling = cheapest["band"]["monthly_usd_high"] if cheapest["band"] else cheapest["monthly_usd"]
    for row in options[1:]:
        low = row["band"]["monthly_usd_low"] if row["band"] else row["monthly_usd"]
        assert (row["band"] or {}).get("within_band_of_cheapest", False) == (row["band"] is not None and low <= ceiling)
    page = parse(client.get("/en/plan/", query).content)
    notes = page.select("span", data_band_percent=True)
    assert len(notes) == len([o for o in options[: len(page.select("tr", data_kind=True))] if o["band"]])
    assert "published runs of vLLM" in notes[0].text


def test_a_band_widens_the_monthly_cost_by_whole_replicas():
    capacity = ReplicaCapacity(32, 1000.0, 0.03, 0.5, "tpot")
    demand = Demand(output_tokens_per_month=1000.0 * SECONDS_PER_MONTH * 4.5 / 2.0)  # peak 4.5 replicas' worth
    served = served_by_replicas(100.0, capacity, demand)
    assert served.replicas == 5
    assert monthly_range(served, demand, 0.0, 0.0) == (500.0, 500.0)
    # the model reads 25 % under to 50 % over the published runs: a replica really sustains 1.33 to 0.67 of its rate
    low, high = monthly_range(served, demand, -0.25, 0.5)
    assert (low, high) == (400.0, 700.0)  # 4.5 × 0.75 → 4 replicas, 4.5 × 1.5 → 7


@pytest.mark.django_db
def test_the_readers_options_reach_every_surface_alike(client, site):
    # 95th-percentile targets, spot offers allowed, one provider left out, the reader's own price for an H100 server
    query = {"model": MODEL, "out": "10B", "cached": "50", "pct": "95", "spot": "1", "x": "hotaisle"}
    query["price-dgx-h100"] = "250000"
    api = json.loads(client.get("/api/v1/plan", query).content)
    out = StringIO()
    call_command(
        "plan",
        MODEL,
        "--out",
        "10B",
        "--cached",
        "50",
        "--pct",
        "95",
        "--spot",
        "1",
        "--exclude",
        "hotaisle",
        "--price",
        "dgx-h100=250000",
        "--json",
        stdout=out,
    )
    assert json.loads(out.getvalue())["options"] == api["options"]
    page = parse(client.get("/en/plan/", query).content)
    shown = [(row.attrs["data-kind"], float(row.attrs["data-monthly"])) for row in page.select("tr", data_kind=True)]
    assert shown == [(o["kind"], o["monthly_usd"]) for o in api["options"]][: len(shown)]
    assert all(o.get("provider") != "Hot Aisle" for o in api["options"])
    h100 = next(o for o in api["options"] if o.get("server_slug") == "dgx-h100")
    assert h100["purchase_price_usd"] == 250000 and h100["purchase_price_estimated"] is False
    # the default answer for the same volume: on-demand only, and a median target serves more per replica
    default = json.loads(client.get("/api/v1/plan", {"model": MODEL, "out": "10B", "cached": "50"}).content)
    assert all(o.get("pricing_kind", "on-demand") == "on-demand" for o in default["options"])
    first = {o.get("gpu_slug"): o for o in default["options"] if o["kind"] == "rented"}
    for option in api["options"]:
        same = first.get(option.get("gpu_slug"))
        if option["kind"] == "rented" and same and same["instance"] == option["instance"]:
            assert option["requests_per_replica"] <= same["requests_per_replica"]


@pytest.mark.django_db
def test_bad_planner_input_answers_with_reasons_never_a_500(client, site):
    response = client.get("/api/v1/plan", {"model": MODEL, "out": "lots", "tpot": "0"})
    assert response.status_code == 400
    assert set(json.loads(response.content)["error"]["parameters"]) == {"out", "tpot"}
    page = client.get("/de/plan/", {"model": MODEL, "out": "lots"})
    assert page.status_code == 200 and b'data-ignored="out"' in page.content
    unknown = client.get("/en/plan/", {"model": "nobody/nothing"})
    assert unknown.status_code == 404 and b"search" in unknown.content
    assert client.get("/en/plan/", {"model": MODEL, "tpot": "1"}).status_code == 200


@pytest.mark.parametrize(
    ("tokens", "english", "german"),
    [(1e9, "1B", "1 Mrd."), (2.5e9, "2.5B", "2,5 Mrd."), (3e5, "300K", "300 Tsd."), (1e12, "1T", "1 Bio.")],
)
def test_volumes_read_in_the_readers_language(tokens, english, german):
    from django.utils import translation

    from calculator.plan_state import volume_words

    with translation.override("en"):
        assert volume_words(tokens) == english
    with translation.override("de"):
        assert volume_words(tokens) == german


@pytest.mark.django_db
def test_a_mac_on_a_desk_serves_a_small_volume_and_only_a_small_one(client, site):
    # Llama-3.1-8B, 100 M output tokens a month (38 tokens/s on average, 76 at the peak): one Mac Studio with
    # llama.cpp's 4 default slots carries it; its month is $3,999 ÷ 60 + 0.48 kW × 730 h × $0.0895 (no PUE, no
    # colocation on a desk) = $66.65 + $31.36
    small = {"model": "meta-llama/Llama-3.1-8B-Instruct", "out": "100M", "ratio": "1", "olen": "500"}
    options = json.loads(client.get("/api/v1/plan", small).content)["options"]
    mac = next(o for o in options if o.get("server_slug") == "mac-studio-m3-ultra-96gb")
    assert mac["kind"] == "owned" and mac["servers"] == 1 and mac["purchase_price_basis"] == "list"
    assert mac["per_month_per_server_usd"] == pytest.approx(3999 / 60 + 0.48 * 730 * 0.0895, abs=0.01)
    assert mac["engine"] == "llama.cpp" and mac["precision"] in ("q8_0", "q4_k_m")
    assert mac["requests_per_server"] == 4 and "llama-server" in mac["command"] and "-np 4" in mac["command"]
    assert mac["output_tokens_per_s_per_server"] >= 1e8 / SECONDS_PER_MONTH * 2
    # a thousand times the volume needs more than one machine: no Mac row then
    large = json.loads(client.get("/api/v1/plan", small | {"out": "100B"}).content)["options"]
    assert all(o.get("server_slug") != "mac-studio-m3-ultra-96gb" for o in large)
    page = parse(client.get("/de/plan/", small).content)
    assert page.one("li", id="plan-machine-assumptions") is not None


def test_the_faq_plan_is_kept_per_model_day_and_state_and_equals_a_fresh_plan(site):
    from calculator.page import plan_kept as kept
    from calculator.page.basis import page_basis
    from calculator.state import CalculatorState
    from models_catalog.models import Model

    kept.FAQ_PLANS.forget()
    model = Model.objects.get(hub_id="zai-org/GLM-5.3-Flash")
    sources = page_basis(model, date.today()).sources
    assert sources is not None
    state = CalculatorState().with_defaults_of(sources.choices)
    inputs = sources.inputs(state)
    first = kept.faq_plan(inputs)
    assert kept.faq_plan(sources.inputs(state)) is first  # kept
    assert first == kept.faq_answer(inputs)
    other = kept.faq_plan(sources.inputs(replace(state, cached=50)))
    assert other is not first and other == kept.faq_answer(sources.inputs(replace(state, cached=50)))
    inline = replace(inputs, hub_id="")  # a config sent inline has no catalog id: planned each time
    assert kept.faq_plan(inline) is not kept.faq_plan(inline)
    # what the plan does not read plans nothing again, and a fresh plan of it is the same
    for change in ({"context": 32768}, {"concurrency": 8}, {"ram": 128}, {"mode": "lora"}):
        varied = replace(state, **change)
        assert kept.faq_plan(sources.inputs(varied)) is first, change
        assert kept.faq_answer(sources.inputs(varied)) == first, change
    for change in ({"tps": 40}, {"precision": "int4"}, {"engine": "sglang"}, {"ratio": 5.0}):
        assert kept.faq_plan(sources.inputs(replace(state, **change))) is not first, change


def test_the_planner_builder_computes_and_keeps_nothing():
    """Its one kept value, the FAQ plan, is declared in calculator/page/plan_kept.py through web/kept.py."""
    from calculator.page import plan_kept
    from calculator.page import planner as builder

    source = Path(builder.__file__).read_text()
    assert "Kept" not in source and "web.kept" not in source
    assert plan_kept.FAQ_PLANS.name == "faq-plan"


def test_a_planned_command_leaves_room_above_the_planned_request_within_what_its_requests_hold():
    """--max-model-len was prompt + output exactly (4,000): a longer request or the chat template's tokens were
    refused. Twice the planned length in whole thousands, no more than the replica's requests hold together, no more
    than the model's own limit, never less than the planned request."""
    from calculator.page.planner import command_context

    demand = Demand(output_tokens_per_month=1e9, prompt_tokens=3_000, output_tokens=1_000)
    assert demand.prompt + demand.output_tokens == 4_000
    assert command_context(demand, 10, 131_072) == 8_192
    assert command_context(demand, 1, 131_072) == 4_000  # one request at a time: its pool holds one planned request
    assert command_context(demand, 10, 6_000) == 6_000  # the model's own limit
    assert command_context(demand, 10, None) == 8_192


def test_a_crossover_is_solved_to_the_volume_where_both_kinds_cost_the_same(site):
    from calculator.page.basis import page_basis
    from calculator.page.planner import _cheapest, _volumes, faq_answer
    from calculator.state import CalculatorState
    from models_catalog.models import Model

    sources = page_basis(Model.objects.get(hub_id=CROSSING_MODEL), date.today()).sources
    assert sources is not None
    answer = faq_answer(sources.inputs(CalculatorState().with_defaults_of(sources.choices)))
    assert answer.crossovers
    grid = _volumes()
    for crossing in answer.crossovers:
        volume = crossing.output_tokens_per_month
        assert all(abs(volume / point - 1) > 1e-3 for point in grid)  # solved, not a grid point
        costs = _cheapest(list(answer.rows), answer.demand, volume, whole=False)
        assert costs[crossing.below] == pytest.approx(costs[crossing.above], rel=1e-4)


@pytest.mark.django_db
def test_form_factors_of_one_chip_are_rented_apart_and_an_offer_that_names_none_says_so(client, site):
    """RunPod's H200 NVL no longer stands for the SXM part (other speed, other replica count): each has its rows, and
    Nebius's "8x H200 141GB" is counted as the SXM part without the page claiming the offer says so."""
    page = parse(client.get("/en/plan/", {"model": MODEL, "out": "10B", "cached": "50"}).content)
    rented = {row.one("th").text.split(" · ")[0]: row for row in page.select("tr", data_kind="rented")}
    nvl = next(name for name in rented if "× H200 NVL 141GB" in name)
    sxm = next(name for name in rented if "× H200 SXM 141GB" in name)
    assert nvl.endswith("RunPod") and sxm.endswith("Nebius")
    assert nvl.split(" instances")[0] != sxm.split(" instances")[0]  # the replicas each part takes differ
    assert rented[sxm].select("span", data_form_factor_unstated=True)
    assert not rented[nvl].select("span", data_form_factor_unstated=True)  # "8x H200 NVL"


@pytest.mark.parametrize("slots", [8, 24, 48])
def test_a_replica_bounded_by_its_kv_cache_is_loaded_only_as_far_as_the_queue_for_a_place_allows(slots):
    # the KV cache holds `slots` requests: arrivals beyond them wait for one to finish. At the rate the planner names,
    # the simulation's 95th-percentile first token comes within the 2 s target; 15 % more and it does not (loaded to
    # the full cache, as the planner did before, the same queue grows without bound)
    spec, gpu = hub_spec("meta-llama/Llama-3.1-8B-Instruct"), gpu_by_slug("h100-sxm")
    assert gpu is not None
    step = step_model(spec, Workload(precision="bf16", context=2000), gpu)
    assert step is not None
    scheduler = Scheduler(max_num_seqs=1024, max_num_batched_tokens=8192, kv_tokens=slots * 2000)
    demand = Demand(1e9, input_per_output=3, output_tokens=500, percentile=95, ttft_target_s=2.0)
    found = replica_capacity(step, scheduler, demand)
    assert found is not None and found.limit == "memory" and found.concurrency == slots
    assert found.ttft_s == pytest.approx(2.0, abs=0.01)  # the wait at p95 uses what the target leaves

    def ttft_p95(share: float) -> float:
        rate = share * found.output_tokens_per_s / 500
        test = LoadTest(requests=1500, prompt_tokens=1500, output_tokens=500, request_rate=rate, seed=1)
        return simulate(step, scheduler, test).ttft_s.p95

    assert ttft_p95(1.0) <= demand.ttft_target_s < ttft_p95(1.15)
