"""The planner's answer for one model: every way to serve a monthly volume within latency targets, ranked by what it
costs a month: hosted APIs at their per-token prices, and replicas of the model page's ranked instances as sold,
each sized by the core's steady-load capacity (calculator/estimation/planner.py). One function the planner page,
the model page's link, the JSON API and ``manage.py plan`` read.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from calculator.estimation import Workload, estimate
from calculator.estimation.batching import engine_scheduler
from calculator.estimation.builds import released_precision
from calculator.estimation.planner import (
    SECONDS_PER_MONTH,
    Demand,
    ReplicaCapacity,
    Served,
    replica_capacity,
    served_by_api,
    served_by_replicas,
)
from calculator.estimation.speed import step_model
from calculator.page.inputs import HostedPrice, PageInputs
from models_catalog.architecture import ModelSpec
from pricing.gpus import GpuSpec

from .gpus import OfferRow, gpu_index, gpus_section

# Output tokens a month the cost chart spans (log scale), and its points
CHART_LOW = 1e6
CHART_HIGH = 1e12
CHART_POINTS = 61


@dataclass(frozen=True, slots=True)
class PlanRow:
    served: Served
    hosted: HostedPrice | None = None  # kind "api"
    offer: OfferRow | None = None  # kind "rented": the instance as sold and the engine's split on it

    @property
    def kind(self) -> str:
        return self.served.kind


@dataclass(frozen=True, slots=True)
class Crossover:
    output_tokens_per_month: float
    below: str  # the kind cheapest just below it: "api" | "rented"
    above: str


@dataclass(frozen=True, slots=True)
class CurvePoint:
    output_tokens_per_month: float
    api_usd: float | None
    rented_usd: float | None


@dataclass(frozen=True, slots=True)
class PlanAnswer:
    demand: Demand
    engine: str
    precision: str
    need_bytes: int  # one replica's memory at one request of prompt + output tokens
    rows: tuple[PlanRow, ...]  # cheapest first
    unmet: tuple[str, ...]  # GPU types ranked for the model whose replica meets no latency target
    curve: tuple[CurvePoint, ...]
    crossovers: tuple[Crossover, ...]

    @property
    def cheapest(self) -> PlanRow | None:
        return self.rows[0] if self.rows else None

    def best(self, kind: str) -> PlanRow | None:
        return next((row for row in self.rows if row.kind == kind), None)


def plan_answer(inputs: PageInputs, demand: Demand) -> PlanAnswer:
    """Every way to serve ``demand`` with the model of ``inputs``, cheapest a month first."""
    spec, state = inputs.spec, inputs.state
    precision = state.precision if state.precision else released_precision(spec.native_dtype)
    workload = Workload(
        precision=precision,
        context=demand.prompt + demand.output_tokens,
        engine=state.engine if state.engine in ("vllm", "sglang") else "vllm",
        kv_dtype=state.kv,
        engine_release=state.release,
    )
    need = estimate(spec, workload).total_bytes
    gpus = gpus_section(need, spec, workload, inputs.offers, inputs.gpus)
    index = gpu_index(inputs.gpus)
    rows: list[PlanRow] = []
    unmet: list[str] = []
    for row in gpus.by_gpu:
        gpu = index[row.ranked.offer.gpu_slug]
        capacity = _replica(spec, workload, row, gpu, demand)
        if capacity is None:
            unmet.append(row.ranked.gpu_name)
            continue
        rows.append(PlanRow(served_by_replicas(float(row.ranked.per_month_usd), capacity, demand), offer=row))
    for hosted in inputs.hosted:
        rows.append(PlanRow(served_by_api(hosted.price, demand, inputs.today), hosted=hosted))
    rows.sort(key=lambda r: (r.served.monthly_usd, r.kind))
    curve = _curve(rows, demand)
    return PlanAnswer(demand, workload.engine, precision, need, tuple(rows), tuple(unmet), curve, _crossovers(curve))


def _replica(
    spec: ModelSpec, workload: Workload, row: OfferRow, gpu: GpuSpec, demand: Demand
) -> ReplicaCapacity | None:
    """The steady-load capacity of one replica on ``row``'s instance; None without a speed figure or when one
    request misses the targets. Under pipeline stages a token passes every stage in turn (a step reads all the
    weights, one stage after another) while as many batches as stages are in flight (estimated)."""
    if not gpu.memory_bandwidth_gbps:
        return None
    tp, stages = row.plan.tensor_parallel, max(1, row.plan.pipeline_stages)
    step = step_model(spec, workload, gpu, tp)
    if step is None:
        return None
    scheduler = engine_scheduler(spec, workload, gpu.capacity_bytes, gpu.name, tp * stages, workload.context)
    if stages > 1:
        scheduler = replace(scheduler, kv_tokens=scheduler.kv_tokens // stages)
    found = replica_capacity(step, scheduler, demand)
    if found is None or stages == 1:
        return found
    return replace(
        found, concurrency=found.concurrency * stages, output_tokens_per_s=found.output_tokens_per_s * stages
    )


def _cost_at(row: PlanRow, demand: Demand, volume: float) -> float:
    if row.kind == "api":
        return row.served.per_million_output_usd * volume / 1e6
    capacity = row.served.capacity
    assert capacity is not None
    peak = volume / SECONDS_PER_MONTH * max(1.0, demand.peak_factor)
    replicas = max(1, math.ceil(peak / capacity.output_tokens_per_s))
    return replicas * row.served.monthly_usd / max(1, row.served.replicas)


def _curve(rows: list[PlanRow], demand: Demand) -> tuple[CurvePoint, ...]:
    """The cheapest API and the cheapest rented option at each volume of the chart (log steps)."""
    points = []
    step = (math.log10(CHART_HIGH) - math.log10(CHART_LOW)) / (CHART_POINTS - 1)
    for i in range(CHART_POINTS):
        volume = 10 ** (math.log10(CHART_LOW) + i * step)
        costs: dict[str, float] = {}
        for row in rows:
            cost = _cost_at(row, demand, volume)
            if row.kind not in costs or cost < costs[row.kind]:
                costs[row.kind] = cost
        points.append(CurvePoint(volume, costs.get("api"), costs.get("rented")))
    return tuple(points)


def _crossovers(curve: tuple[CurvePoint, ...]) -> tuple[Crossover, ...]:
    found = []
    previous = None
    for point in curve:
        if point.api_usd is None or point.rented_usd is None:
            continue
        cheaper = "api" if point.api_usd <= point.rented_usd else "rented"
        if previous is not None and cheaper != previous[1]:
            found.append(Crossover(point.output_tokens_per_month, previous[1], cheaper))
        previous = (point, cheaper)
    return tuple(found)


# The volume the model page's common question asks about: a billion output tokens a month, the planner's defaults
FAQ_VOLUME = 1e9


def faq_plan(inputs: PageInputs) -> PlanAnswer:
    """The planner's answer for ``FAQ_VOLUME`` with the page's input mix and cached share (the FAQ's question)."""
    state = inputs.state
    demand = Demand(FAQ_VOLUME, input_per_output=state.ratio, cached_share=state.cached / 100)
    return plan_answer(inputs, demand)
