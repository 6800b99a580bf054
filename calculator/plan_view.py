"""The planner page as data: every figure, word and flag ``templates/plan.html`` prints, computed from the planner's
answer (calculator/page/planner.py) and the reader's state, so the template only prints fields and tests plain flags.
Money, numbers and volumes are formatted here in the reader's language, as the template's filters did."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date
from urllib.parse import quote

from calculator.charts import CostChart
from calculator.estimation.plan.planner import OwnedCosts
from calculator.formatting import format_day, format_money, format_number
from calculator.labels import (
    engine_name,
    gpu_family_label,
    hosted_provider,
    plan_kind_label,
    plan_limit_label,
    precision_name,
    pricing_kind_label,
)
from calculator.page.plan_bands import RowBand
from calculator.page.planner import OwnedRow, PlanAnswer, PlanRow
from calculator.plan_chart import ChartView, chart_view, usd
from calculator.plan_state import PlanState, volume_label, volume_words
from calculator.validation.bands import Band
from pricing.owned import OwnedMachine, OwnedServer


@dataclass(frozen=True, slots=True)
class ServerField:
    """An owned server type's purchase price field."""

    slug: str
    name: str
    value: str  # the reader's price, or "" (the list price or estimate applies)
    placeholder: str
    listed: bool  # a machine's list price, not an estimate
    price: str  # the listed price or estimate in words


@dataclass(frozen=True, slots=True)
class ProviderOption:
    slug: str
    name: str
    left_out: bool


@dataclass(frozen=True, slots=True)
class CloseMatch:
    """A catalog model whose id is close to the one asked for, with the text before its link (", " after the
    first)."""

    hub_id: str
    href: str
    before: str


def close_matches(hub_ids: Sequence[str]) -> tuple[CloseMatch, ...]:
    return tuple(
        CloseMatch(hub_id, f"?model={quote(hub_id)}", " " if i == 0 else ", ") for i, hub_id in enumerate(hub_ids)
    )


def provider_options(names: dict[str, str], excluded: Sequence[str]) -> tuple[ProviderOption, ...]:
    """The providers the reader may leave out, by name."""
    ranked = sorted(names.items(), key=lambda item: item[1].lower())
    return tuple(ProviderOption(slug, name, slug in excluded) for slug, name in ranked)


@dataclass(frozen=True, slots=True)
class EngineOption:
    key: str
    name: str
    selected: bool


@dataclass(frozen=True, slots=True)
class PlanForm:
    """The form's values as the inputs show them."""

    out: str
    ratio: str
    cached: str
    olen: str
    peak: str
    ttft: str
    tpot: str
    tail: bool  # the targets hold for 95 % of requests (else the median)
    engines: tuple[EngineOption, ...]
    spot: bool
    excluded: frozenset[str]
    more_open: bool  # the owned servers' settings differ from the defaults, or spot / left-out providers are asked
    servers: tuple[ServerField, ...]
    years: str
    kwh: str
    pue: str
    colo: str


@dataclass(frozen=True, slots=True)
class Headline:
    """The cheapest way in one line, and the demand it serves."""

    kind: str
    monthly_attr: str
    monthly: str
    api: bool
    owned: bool
    provider: str  # the API's, or the rented instance's
    replicas: int  # servers owned or instances rented
    server: str
    gpus: int
    gpu: str
    spot: str  # the spot label where the offer is one, else ""


@dataclass(frozen=True, slots=True)
class Demand:
    """The demand as the headline and the assumptions state it."""

    volume: str
    ratio: str
    cached: int
    ttft: str
    tpot: int
    peak: str
    prompt: str
    output: str
    engine: str
    precision: str


@dataclass(frozen=True, slots=True)
class CrossoverLine:
    volume_attr: int
    below: str
    above: str
    volume: str
    below_label: str
    above_label: str


@dataclass(frozen=True, slots=True)
class Stays:
    """No crossover: one kind is cheapest over the whole chart."""

    kind: str
    label: str
    low: str
    high: str


@dataclass(frozen=True, slots=True)
class RowView:
    """One way to serve it, as the table's row shows it."""

    kind: str
    monthly_attr: str
    monthly: str
    per_million: str
    used: str
    # the option: an API
    api: bool
    provider: str
    unconfirmed: bool
    intro_until: str  # the day an introductory price in force ends, else ""
    # the option: owned servers or a machine
    owned: bool
    machine: bool
    replicas: int
    server: str
    bought_estimate: bool
    bought_list: bool
    price: str
    month: str
    capex: str
    energy: str
    hosting: str
    estimated: bool
    # the option: rented instances
    gpus: int
    gpu: str
    pricing: str  # the pricing kind where it is not on-demand, else ""
    # each replica
    capacity: bool
    requests: int
    tpot: str
    ttft: str
    precision: str
    per_server: int
    tensor_parallel: int
    limit: str
    pipeline: bool
    command: str
    band: RowBandView | None = None
    # the instance's name does not say which form factor of its GPU it rents (pricing/gpus.py FORM_FACTOR_WORDS)
    form_factor_unstated: bool = False


@dataclass(frozen=True, slots=True)
class RowBandView:
    """A row's error band in words: the share and runs it rests on, whose runs, and the monthly cost it spans."""

    percent: int
    runs: int
    engine: str
    gpus: str  # the GPU family's name, "" when the band covers every family
    low: str
    high: str
    spans: bool  # the low and high ends differ (whole replicas may round both to one count)
    near_cheapest: bool


def _band_view(found: RowBand | None) -> RowBandView | None:
    if found is None or found.band is None:
        return None
    band = found.band
    return RowBandView(
        percent=max(int(band.within_percent), 1),
        runs=band.runs,
        engine=engine_name(band.engine),
        gpus=gpu_family_label(band.gpu_family) if band.gpu_family else "",
        low=usd(found.low_usd),
        high=usd(found.high_usd),
        spans=round(found.low_usd) != round(found.high_usd),
        near_cheapest=found.near_cheapest,
    )


@dataclass(frozen=True, slots=True)
class OwnedTerms:
    years: str
    pue: str
    kwh: str
    colo: str


@dataclass(frozen=True, slots=True)
class PlanView:
    """The answer part of the planner page."""

    headline: Headline | None
    demand: Demand
    tail: bool
    crossovers: tuple[CrossoverLine, ...]
    stays: Stays | None
    rows: tuple[RowView, ...]
    unmet: str
    chart: ChartView | None
    spot: bool
    excluded: str
    machine_slots: int | None  # a Mac's requests at a time, where one is listed
    owned_terms: OwnedTerms | None
    band: bool  # the speed model's error band on serving benchmarks of this engine is known
    band_percent: int
    band_runs: int


def plan_form(state: PlanState, servers: Sequence[OwnedServer | OwnedMachine], more_open: bool) -> PlanForm:
    return PlanForm(
        out=volume_label(state.out),
        ratio=f"{state.ratio:g}",
        cached=str(state.cached),
        olen=str(state.olen),
        peak=f"{state.peak:g}",
        ttft=f"{state.ttft:g}",
        tpot=str(state.tpot),
        tail=state.pct == 95,
        engines=tuple(EngineOption(key, engine_name(key), key == state.engine) for key in ("vllm", "sglang")),
        spot=bool(state.spot),
        excluded=frozenset(state.x),
        more_open=bool(state.spot or state.x or more_open),
        servers=tuple(_server_field(state, server) for server in servers),
        years=f"{state.years:g}",
        kwh=f"{state.kwh:g}",
        pue=f"{state.pue:g}",
        colo=f"{state.colo:g}",
    )


def _server_field(state: PlanState, server: OwnedServer | OwnedMachine) -> ServerField:
    price = state.server_price(server.slug)
    return ServerField(
        server.slug,
        server.name,
        f"{int(price)}" if price is not None else "",
        f"{int(server.price_usd)}",
        isinstance(server, OwnedMachine),
        format_money(server.price_usd, 0),
    )


def plan_view(
    answer: PlanAnswer,
    state: PlanState,
    rows: Sequence[PlanRow],
    charts: Sequence[CostChart],
    band: Band | None,
    excluded: Sequence[str],
    today: date,
    bands: Sequence[RowBand] = (),
) -> PlanView:
    owned_costs = answer.owned_costs if answer.best("owned") is not None else None
    machine = next((row.owned for row in answer.rows if row.owned is not None and row.owned.machine), None)
    return PlanView(
        headline=_headline(answer.cheapest),
        demand=_demand(answer, state),
        tail=state.pct == 95,
        crossovers=tuple(
            CrossoverLine(
                int(round(c.output_tokens_per_month, 0)),
                c.below,
                c.above,
                volume_words(c.output_tokens_per_month),
                plan_kind_label(c.below),
                plan_kind_label(c.above),
            )
            for c in answer.crossovers
        ),
        stays=_stays(answer),
        rows=tuple(
            replace(_row(row, today), band=_band_view(bands[i] if i < len(bands) else None))
            for i, row in enumerate(rows)
        ),
        unmet=", ".join(answer.unmet),
        chart=chart_view(charts, answer) if charts else None,
        spot=bool(state.spot),
        excluded=", ".join(excluded),
        machine_slots=_slots(machine),
        owned_terms=_owned_terms(owned_costs) if owned_costs is not None else None,
        band=band is not None,
        band_percent=max(int(band.within_percent), 1) if band is not None else 0,
        band_runs=band.runs if band is not None else 0,
    )


def _slots(machine: OwnedRow | None) -> int | None:
    """A machine on a desk's requests at a time."""
    return machine.server.slots if machine is not None and isinstance(machine.server, OwnedMachine) else None


def _headline(best: PlanRow | None) -> Headline | None:
    if best is None:
        return None
    served = best.served
    offer = best.offer.ranked if best.offer is not None else None
    return Headline(
        kind=best.kind,
        monthly_attr=str(round(served.monthly_usd, 2)),
        monthly=usd(served.monthly_usd),
        api=best.hosted is not None,
        owned=best.owned is not None,
        provider=(
            hosted_provider(best.hosted.provider)
            if best.hosted is not None
            else (offer.provider_name if offer is not None else "")
        ),
        replicas=served.replicas,
        server=best.owned.server.name if best.owned is not None else "",
        gpus=offer.instance_gpus if offer is not None else 0,
        gpu=offer.gpu_name if offer is not None else "",
        spot=pricing_kind_label("spot") if offer is not None and offer.offer.pricing_kind == "spot" else "",
    )


def _demand(answer: PlanAnswer, state: PlanState) -> Demand:
    return Demand(
        volume=volume_words(state.out),
        ratio=format_number(state.ratio, 1),
        cached=state.cached,
        ttft=format_number(state.ttft, 2),
        tpot=state.tpot,
        peak=format_number(state.peak, 1),
        prompt=format_number(answer.demand.prompt),
        output=format_number(answer.demand.output_tokens),
        engine=engine_name(answer.engine),
        precision=precision_name(answer.precision),
    )


def _stays(answer: PlanAnswer) -> Stays | None:
    """The kind cheapest over the whole chart, where more than one kind serves and none crosses another."""
    last = answer.curve[-1].cheapest_kind if answer.curve else None
    if answer.crossovers or len(answer.kinds) < 2 or last is None:
        return None
    low, high = answer.curve[0].output_tokens_per_month, answer.curve[-1].output_tokens_per_month
    return Stays(last, plan_kind_label(last), volume_words(low), volume_words(high))


def _row(row: PlanRow, today: date) -> RowView:
    served, owned, hosted = row.served, row.owned, row.hosted
    ranked = row.offer.ranked if row.offer is not None else None
    capacity = served.capacity
    intro_ends = hosted.price.intro_ends if hosted is not None else None
    month = owned.month if owned is not None else None
    return RowView(
        kind=row.kind,
        monthly_attr=str(round(served.monthly_usd, 2)),
        monthly=usd(served.monthly_usd),
        per_million=format_money(served.per_million_output_usd),
        used=format_number(served.utilisation * 100, 0) + " %" if capacity is not None else "–",
        api=hosted is not None,
        provider=(hosted_provider(hosted.provider) if hosted is not None else (ranked.provider_name if ranked else "")),
        unconfirmed=hosted is not None and hosted.confidence == "low",
        intro_until=format_day(intro_ends) if intro_ends is not None and intro_ends >= today else "",
        owned=owned is not None,
        machine=owned is not None and owned.machine,
        replicas=served.replicas,
        server=owned.server.name if owned is not None else "",
        bought_estimate=owned is not None and owned.price_basis == "estimate",
        bought_list=owned is not None and owned.price_basis == "list",
        price=format_money(owned.price_usd, 0) if owned is not None else "",
        month=usd(month.total_usd) if month is not None else "",
        capex=usd(month.depreciation_usd) if month is not None else "",
        energy=usd(month.energy_usd) if month is not None else "",
        hosting=usd(month.hosting_usd) if month is not None else "",
        estimated=owned is not None and owned.estimated,
        gpus=ranked.instance_gpus if ranked is not None else 0,
        gpu=ranked.gpu_name if ranked is not None else "",
        pricing=(
            pricing_kind_label(ranked.offer.pricing_kind)
            if ranked is not None and ranked.offer.pricing_kind != "on-demand"
            else ""
        ),
        capacity=capacity is not None,
        requests=capacity.concurrency if capacity is not None else 0,
        tpot=format_number(capacity.tpot_s * 1000, 0) if capacity is not None else "",
        ttft=format_number(capacity.ttft_s, 2) if capacity is not None else "",
        precision=precision_name(owned.precision) if owned is not None and owned.machine else "",
        per_server=owned.replicas_per_server if owned is not None else 0,
        tensor_parallel=owned.plan.tensor_parallel if owned is not None and owned.plan is not None else 0,
        limit=plan_limit_label(capacity.limit) if capacity is not None else "",
        pipeline=row.plan is not None and row.plan.pipeline_stages > 1,
        command=row.command,
        form_factor_unstated=ranked is not None and not ranked.offer.form_factor_stated,
    )


def _owned_terms(costs: OwnedCosts) -> OwnedTerms:
    years = costs.years
    return OwnedTerms(
        years=format_number(years, 0 if years == int(years) else 1),
        pue=format_number(costs.pue, 2),
        kwh=format_money(costs.kwh_usd, 4),
        colo=format_money(costs.colo_usd_per_kw_month),
    )
