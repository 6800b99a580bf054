"""The planner's answer for one model: every way to serve a monthly volume within latency targets, ranked by what it
costs a month: hosted APIs at their per-token prices, replicas of the model page's ranked instances as sold, and
owned servers (their price written off, energy and colocation), each sized by the core's steady-load capacity
(calculator/estimation/plan/planner.py). One function the planner page, the model page's link, the JSON API and
``manage.py plan`` read.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from calculator.estimation import Workload, estimate
from calculator.estimation.engines.builds import released_precision
from calculator.estimation.engines.launch import LaunchConfig, launch_command
from calculator.estimation.engines.sourcing import SourceKind, WeightsSource
from calculator.estimation.memory.fit import apple_fit
from calculator.estimation.plan.deployment import GpuPlan, Serving, cloud_launch, gpu_plan
from calculator.estimation.plan.planner import (
    SECONDS_PER_MONTH,
    Demand,
    OwnedCosts,
    OwnedMonth,
    ReplicaCapacity,
    Served,
    owned_month,
    replica_capacity,
    served_by_api,
    served_by_replicas,
)
from calculator.estimation.plan.replica import replica_on
from calculator.estimation.speed.schedulers import Scheduler
from calculator.estimation.speed.step_model import step_model
from calculator.page.inputs import HostedPrice, PageInputs
from calculator.state import CalculatorState
from models_catalog.architecture import ModelSpec
from pricing.gpus import GpuSpec
from pricing.offers import OfferRecord, PricingKind
from pricing.owned import OwnedMachine, OwnedServer, owned_data

from .gpus import OfferRow, gpu_index, gpus_section

# Output tokens a month the cost chart spans (log scale), and its points
CHART_LOW = 1e6
CHART_HIGH = 1e12
CHART_POINTS = 61


KINDS = ("api", "rented", "owned")
# The engines a plan runs: vLLM or SGLang on rented and owned servers, the desk machines' own (llama.cpp)
ENGINES_PLANNED = ("vllm", "sglang", *sorted({machine.engine for machine in owned_data().machines}))


@dataclass(frozen=True, slots=True)
class PlanOptions:
    """What the reader allows: spot (interruptible) offers, providers left out, and the owned servers' costs with
    the reader's own price per server type where given."""

    spot: bool = False
    excluded_providers: tuple[str, ...] = ()
    owned: OwnedCosts | None = None  # None: the sourced defaults
    server_prices: tuple[tuple[str, float], ...] = ()  # (server slug, USD)


def default_owned_costs() -> OwnedCosts:
    data = owned_data()
    return OwnedCosts(data.years.value, data.kwh_usd.value, data.pue.value, data.colo_usd_per_kw_month.value)


@dataclass(frozen=True, slots=True)
class OwnedRow:
    """Owned hardware: a server type running as many replicas as its GPUs hold, each split as ``plan``, or a single
    machine on a desk (a Mac) running one llama.cpp server at ``precision``."""

    server: OwnedServer | OwnedMachine
    price_usd: float
    price_basis: str  # "estimate" (the listed server price), "list" (a machine's list price), "yours"
    plan: GpuPlan | None  # one replica's split (servers)
    replicas_per_server: int
    month: OwnedMonth  # one server or machine
    precision: str = ""  # a machine's GGUF type
    wired_limit_mb: int | None = None  # a Mac's GPU memory limit to set first

    @property
    def estimated(self) -> bool:
        return self.price_basis == "estimate"

    @property
    def machine(self) -> bool:
        return isinstance(self.server, OwnedMachine)


@dataclass(frozen=True, slots=True)
class PlanRow:
    served: Served
    hosted: HostedPrice | None = None  # kind "api"
    offer: OfferRow | None = None  # kind "rented": the instance as sold and the engine's split on it
    owned: OwnedRow | None = None  # kind "owned"
    command: str = ""  # the launch command of one replica ("" for an API, or when no build holds the precision)

    @property
    def kind(self) -> str:
        return self.served.kind

    @property
    def plan(self) -> GpuPlan | None:
        """One replica's split (rented or owned)."""
        if self.offer is not None:
            return self.offer.plan
        return self.owned.plan if self.owned is not None else None


@dataclass(frozen=True, slots=True)
class Crossover:
    output_tokens_per_month: float
    below: str  # the kind cheapest just below it: "api" | "rented" | "owned"
    above: str


@dataclass(frozen=True, slots=True)
class CurvePoint:
    output_tokens_per_month: float
    api_usd: float | None
    rented_usd: float | None
    owned_usd: float | None = None

    def cost(self, kind: str) -> float | None:
        return {"api": self.api_usd, "rented": self.rented_usd, "owned": self.owned_usd}[kind]

    @property
    def cheapest_kind(self) -> str | None:
        costs = [(cost, kind) for kind in KINDS if (cost := self.cost(kind)) is not None]
        return min(costs)[1] if costs else None


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
    options: PlanOptions = PlanOptions()
    owned_costs: OwnedCosts | None = None

    @property
    def cheapest(self) -> PlanRow | None:
        return self.rows[0] if self.rows else None

    def best(self, kind: str) -> PlanRow | None:
        return next((row for row in self.rows if row.kind == kind), None)

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(kind for kind in KINDS if self.best(kind) is not None)


def plan_answer(
    inputs: PageInputs, demand: Demand, options: PlanOptions | None = None, spot: Sequence[OfferRecord] = ()
) -> PlanAnswer:
    """Every way to serve ``demand`` with the model of ``inputs``, cheapest a month first; ``spot``: the current
    spot offers, ranked with the on-demand ones where ``options`` allows them."""
    options = options or PlanOptions()
    spec, state = inputs.spec, inputs.state
    precision = state.precision if state.precision else released_precision(spec.native_dtype)
    engine = state.engine if state.engine in ("vllm", "sglang") else "vllm"
    workload = Workload(
        precision=precision,
        context=demand.prompt + demand.output_tokens,
        engine=engine,
        kv_dtype=state.kv,
        engine_release=state.release_for(engine),
    )
    need = estimate(spec, workload).total_bytes
    excluded = set(options.excluded_providers)
    offered = [*inputs.offers, *(spot if options.spot else ())]
    offers = [o for o in offered if o.provider_slug not in excluded]
    kinds: tuple[PricingKind, ...] = ("on-demand", "spot") if options.spot else ("on-demand",)
    gpus = gpus_section(need, spec, workload, offers, inputs.gpus, kinds)
    index = gpu_index(inputs.gpus)
    rows: list[PlanRow] = []
    unmet: list[str] = []
    for row in gpus.by_gpu:
        gpu = index[row.ranked.offer.gpu_slug]
        capacity = replica_on(spec, workload, gpu, row.plan.tensor_parallel, row.plan.pipeline_stages, demand)
        if capacity is None:
            unmet.append(row.ranked.gpu_name)
            continue
        rows.append(PlanRow(served_by_replicas(float(row.ranked.per_month_usd), capacity, demand), offer=row))
    costs = options.owned or default_owned_costs()
    prices = dict(options.server_prices)
    for server in owned_data().servers:
        server_gpu = index.get(server.gpu_slug)
        if server_gpu is None:
            continue
        owned = _owned(spec, workload, need, server, server_gpu, demand, costs, prices.get(server.slug))
        if owned is not None:
            rows.append(owned)
    for machine in owned_data().machines:
        machine_gpu = index.get(machine.gpu_slug)
        if machine_gpu is None:
            continue
        found = _machine(inputs, machine, machine_gpu, demand, costs, prices.get(machine.slug))
        if found is not None:
            rows.append(found)
    for hosted in inputs.hosted:
        rows.append(PlanRow(served_by_api(hosted.price, demand, inputs.today), hosted=hosted))
    source = inputs.weights_source(workload.engine, precision)
    rows = [_with_command(row, source, workload, demand, spec.max_context) for row in rows]
    rows.sort(key=lambda r: (r.served.monthly_usd, KINDS.index(r.kind)))
    curve = _curve(rows, demand)
    return PlanAnswer(
        demand,
        workload.engine,
        precision,
        need,
        tuple(rows),
        tuple(unmet),
        curve,
        _solved_crossovers(rows, demand),
        options,
        costs,
    )


def _owned(
    spec: ModelSpec,
    workload: Workload,
    need: int,
    server: OwnedServer,
    gpu: GpuSpec,
    demand: Demand,
    costs: OwnedCosts,
    price: float | None,
) -> PlanRow | None:
    """``server`` runs as many replicas as its GPUs hold (one per group of 1, 2, 4 or 8 GPUs, the split that serves
    the most within the targets); None when one replica needs more GPUs than the server has or meets no target."""
    best: tuple[float, GpuPlan, int, ReplicaCapacity] | None = None
    for group in (n for n in (1, 2, 4, 8) if n <= server.gpus and server.gpus % n == 0):
        plan = gpu_plan(spec, workload, gpu, need_bytes=need, instance_gpus=group)
        if plan.gpus_needed > group:
            continue
        capacity = replica_on(spec, workload, gpu, plan.tensor_parallel, plan.pipeline_stages, demand)
        if capacity is None:
            continue
        replicas = server.gpus // group
        if best is None or capacity.output_tokens_per_s * replicas > best[0]:
            best = (capacity.output_tokens_per_s * replicas, plan, replicas, capacity)
    if best is None:
        return None
    _total, plan, replicas, capacity = best
    per_server = replace(
        capacity,
        concurrency=capacity.concurrency * replicas,
        output_tokens_per_s=capacity.output_tokens_per_s * replicas,
    )
    month = owned_month(price if price is not None else server.price_usd, server.power_kw, costs)
    served = served_by_replicas(month.total_usd, per_server, demand, kind="owned")
    basis = "yours" if price is not None else "estimate"
    owned = OwnedRow(server, price if price is not None else server.price_usd, basis, plan, replicas, month)
    return PlanRow(served, owned=owned)


# The GGUF types a machine is tried at, widest first
MACHINE_PRECISIONS = ("q8_0", "q4_k_m")


def _machine(
    inputs: PageInputs, machine: OwnedMachine, gpu: GpuSpec, demand: Demand, costs: OwnedCosts, price: float | None
) -> PlanRow | None:
    """One machine on a desk serving the whole peak with llama.cpp's default slots at the widest GGUF type that fits
    after raising its GPU memory limit and meets the targets alone; None when none does (more Macs are not a serving
    plan)."""
    spec = inputs.spec
    length = demand.prompt + demand.output_tokens
    ram = machine.memory_gb * 2**30
    for precision in MACHINE_PRECISIONS:
        workload = Workload(
            precision=precision,
            context=length * machine.slots,
            engine=machine.engine,
            concurrency=machine.slots,
            engine_release=inputs.state.release_for(machine.engine),
        )
        need = estimate(spec, workload).total_bytes
        fit = apple_fit(need, ram)
        if not fit.fits_after_raise:
            continue
        step = step_model(spec, replace(workload, context=length, concurrency=1), gpu)
        if step is None:
            return None
        scheduler = Scheduler(machine.slots, machine.batch_tokens, length * machine.slots, 1)
        capacity = replica_capacity(step, scheduler, demand)
        if capacity is None:
            continue  # a narrower type runs faster
        month = owned_month(price if price is not None else machine.price_usd, machine.power_kw, _desk(costs))
        served = served_by_replicas(month.total_usd, capacity, demand, kind="owned")
        if served.replicas > 1:
            continue
        owned = OwnedRow(
            machine,
            price if price is not None else machine.price_usd,
            "yours" if price is not None else "list",
            None,
            1,
            month,
            precision,
            None if fit.fits_default else fit.wired_limit_mb,
        )
        source = inputs.weights_source(machine.engine, precision)
        command = ""
        if source.runnable:
            command = launch_command(
                LaunchConfig(
                    engine=machine.engine,
                    model=source.model,
                    from_hub=source.kind is SourceKind.PUBLISHED,
                    prepare=source.prepare,
                    context=length,
                    concurrency=machine.slots,
                    wired_limit_mb=owned.wired_limit_mb,
                    engine_release=inputs.state.release_for(machine.engine),
                )
            ).script
        return PlanRow(served, owned=owned, command=command)
    return None


def _desk(costs: OwnedCosts) -> OwnedCosts:
    """A machine on a desk: energy at the price per kWh, no PUE, no colocation."""
    return replace(costs, pue=1.0, colo_usd_per_kw_month=0.0)


# Room above the planned request in a command's --max-model-len: vLLM and SGLang refuse a request whose prompt and
# output together exceed it, and a planned mean leaves none for a longer request or the chat template's tokens. Their
# KV pool is sized by the memory left, not by this limit (docs/methodology.md §4.8), so the room costs only the
# start-up check that one request of that length fits; twice the planned length, in whole thousands (estimated), and
# never more than the replica's planned requests hold together, so that check passes on the memory it was sized for.
COMMAND_ROOM = 2
COMMAND_ROUNDING = 1024


def command_context(demand: Demand, requests: int, max_context: int | None) -> int:
    """The --max-model-len a planned replica of ``requests`` at a time is started with: room above prompt + output,
    within what its planned requests hold together and the model's own limit."""
    planned = demand.prompt + demand.output_tokens
    wanted = -(-COMMAND_ROOM * planned // COMMAND_ROUNDING) * COMMAND_ROUNDING
    held = min(wanted, max(1, requests) * planned, max_context or wanted)
    return max(planned, held)


def _with_command(
    row: PlanRow, source: WeightsSource, workload: Workload, demand: Demand, max_context: int | None
) -> PlanRow:
    """``row`` with the command that starts one of its replicas at the requests it runs within the targets."""
    plan, capacity = row.plan, row.served.capacity
    if plan is None or capacity is None or row.command:
        return row
    per_replica = max(1, capacity.concurrency // (row.owned.replicas_per_server if row.owned is not None else 1))
    serving = Serving(command_context(demand, per_replica, max_context), per_replica, workload.kv_dtype)
    return replace(row, command=cloud_launch(plan, source, serving, workload.engine))


def _cost_at(row: PlanRow, demand: Demand, volume: float, whole: bool = True) -> float | None:
    """What ``row`` costs a month at ``volume``: whole replicas (as paid), or their fraction (``whole=False``: the
    trend the crossovers are read from, without the steps of rounding)."""
    if row.kind == "api":
        return row.served.per_million_output_usd * volume / 1e6
    capacity = row.served.capacity
    assert capacity is not None
    peak = volume / SECONDS_PER_MONTH * max(1.0, demand.peak_factor)
    replicas = peak / capacity.output_tokens_per_s
    if row.owned is not None and row.owned.machine and replicas > 1:
        return None  # one machine on a desk, not a fleet of them
    replicas = max(1, math.ceil(replicas)) if whole else max(1.0, replicas)
    return replicas * row.served.monthly_usd / max(1, row.served.replicas)


def _cheapest(rows: list[PlanRow], demand: Demand, volume: float, whole: bool) -> dict[str, float]:
    costs: dict[str, float] = {}
    for row in rows:
        cost = _cost_at(row, demand, volume, whole)
        if cost is None:
            continue
        if row.kind not in costs or cost < costs[row.kind]:
            costs[row.kind] = cost
    return costs


def _volumes() -> list[float]:
    step = (math.log10(CHART_HIGH) - math.log10(CHART_LOW)) / (CHART_POINTS - 1)
    return [10 ** (math.log10(CHART_LOW) + i * step) for i in range(CHART_POINTS)]


def _curve(rows: list[PlanRow], demand: Demand, whole: bool = True) -> tuple[CurvePoint, ...]:
    """The cheapest API, rented and owned option at each volume of the chart (log steps), as paid; with
    ``whole=False`` the trend of fractional replicas, where one kind's cost falls below another's for good rather than
    where rounding up one more replica makes two kinds swap back and forth (the crossovers read it)."""
    points = []
    for volume in _volumes():
        costs = _cheapest(rows, demand, volume, whole)
        points.append(CurvePoint(volume, costs.get("api"), costs.get("rented"), costs.get("owned")))
    return tuple(points)


def _crossovers(curve: tuple[CurvePoint, ...]) -> tuple[Crossover, ...]:
    """The volumes where the cheapest kind changes."""
    found = []
    previous: str | None = None
    for point in curve:
        cheaper = point.cheapest_kind
        if cheaper is None:
            continue
        if previous is not None and cheaper != previous:
            found.append(Crossover(point.output_tokens_per_month, previous, cheaper))
        previous = cheaper
    return tuple(found)


def _solved_crossovers(rows: list[PlanRow], demand: Demand) -> tuple[Crossover, ...]:
    """The crossovers of the chart's grid, each solved to the volume where the two kinds cost the same (bisection in
    log volume on the trend of fractional replicas, to a millionth), not the grid point after it."""
    return tuple(
        replace(found, output_tokens_per_month=_crossing(rows, demand, found))
        for found in _crossovers(_curve(rows, demand, whole=False))
    )


def _crossing(rows: list[PlanRow], demand: Demand, found: Crossover) -> float:
    high = found.output_tokens_per_month
    low = high / (CHART_HIGH / CHART_LOW) ** (1 / (CHART_POINTS - 1))  # the grid point before it
    while high / low > 1 + 1e-6:
        middle = math.sqrt(low * high)
        costs = _cheapest(rows, demand, middle, whole=False)
        cheaper = min(costs, key=lambda kind: costs[kind]) if costs else found.above
        if cheaper == found.above:
            high = middle
        else:
            low = middle
    return high


# The volume the model page's common question asks about: a billion output tokens a month, the planner's defaults
FAQ_VOLUME = 1e9


def faq_state(state: CalculatorState) -> tuple[object, ...]:
    """What of a calculator state ``faq_answer`` reads: the precision, engine, KV dtype and release lines the
    replicas run, the mix and the per-request speed (a page's context, concurrency or RAM leave the plan as it is)."""
    releases = tuple(state.release_for(engine) for engine in ENGINES_PLANNED)
    return (state.precision, state.engine, state.kv, releases, state.ratio, state.cached, state.tps)


def faq_answer(inputs: PageInputs) -> PlanAnswer:
    """The planner's answer for ``FAQ_VOLUME`` with the page's input mix, cached share and per-request speed (a time
    per token of 1 ÷ the tokens/s each request sees at least): the FAQ's question, and the plan the page's self-host
    against API reads."""
    state = inputs.state
    demand = Demand(
        FAQ_VOLUME, input_per_output=state.ratio, cached_share=state.cached / 100, tpot_target_s=1 / max(1, state.tps)
    )
    return plan_answer(inputs, demand)
