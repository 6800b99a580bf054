"""Self-hosting against the hosted APIs that serve the model: per-token prices and the break-even volume, read from
the planner's answer for the page's settings (``plan_kept.faq_plan``), so a configuration has the capacity here that
it has in the FAQ, on the planner page and in the API."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from calculator.estimation import RankedOffer, TrafficMix, break_even
from calculator.estimation.plan.cost import api_cost_per_million_output
from calculator.estimation.plan.planner import (
    SECONDS_PER_MONTH,
    TOKENS_PER_MILLION,
    Demand,
    ReplicaCapacity,
    monthly_output_tokens,
)
from calculator.page.inputs import HostedPrice, PageInputs

from .planner import PlanAnswer, PlanRow


@dataclass(frozen=True, slots=True)
class HostedRow:
    hosted: HostedPrice
    input_usd: float
    cached_usd: float
    output_usd: float
    intro_in_force: bool
    intro_expired: bool


@dataclass(frozen=True, slots=True)
class SelfHostVsApi:
    self_host: RankedOffer | None
    capacity: ReplicaCapacity | None  # one replica of it under steady load within the demand's targets
    demand: Demand  # the planner's question the page asks: the page's mix and per-token target
    unmet: bool  # configurations are on offer, but none keeps one request within the targets
    rows: tuple[HostedRow, ...]
    per_million_output_usd: float | None  # the first API's cost per million generated tokens with the mix
    break_even_tokens: float | None
    capacity_tokens: float | None  # a month at a peak of ``demand.peak_factor`` × the average rate
    reachable: bool | None

    @property
    def mix(self) -> TrafficMix:
        return self.demand.mix

    @property
    def tpot_ms(self) -> int:
        """The time per token the page's speed floor asks for, as the planner's query names it."""
        return round(self.demand.tpot_target_s * 1000)

    @property
    def tokens_per_s(self) -> float | None:
        """One replica's generated tokens a second at the largest batch within the targets."""
        return self.capacity.output_tokens_per_s if self.capacity is not None else None

    @property
    def compared_provider(self) -> str:
        """The hosted API the break-even compares with: the first row's."""
        return self.rows[0].hosted.provider if self.rows else ""

    @property
    def break_even_million_tokens(self) -> float | None:
        """Generated tokens a month at which self-hosting costs the same, in millions (as the page says it)."""
        return self.break_even_tokens / 1_000_000 if self.break_even_tokens is not None else None

    @property
    def self_host_per_million_usd(self) -> float | None:
        """The configuration's month over the tokens it generates in it at the peak it is sized for."""
        if self.self_host is None or not self.capacity_tokens:
            return None
        return float(self.self_host.per_month_usd) / (self.capacity_tokens / TOKENS_PER_MILLION)

    @property
    def capacity_million_tokens(self) -> float | None:
        return self.capacity_tokens / TOKENS_PER_MILLION if self.capacity_tokens is not None else None


def break_even_row(rented: Sequence[PlanRow], api_per_million: float | None, demand: Demand) -> PlanRow | None:
    """The rented configuration the break-even is read from, as the planner's crossover reads it: of those that,
    full, cost less per generated token than the API, the cheapest a month (the volume where self-hosting first
    pays off is its month over the API's price); without one, or without an API, the cheapest per token."""

    def per_million(row: PlanRow) -> float:
        capacity = row.served.capacity
        assert capacity is not None  # a rented row is sized by its capacity
        return (
            row.served.monthly_usd
            / row.served.replicas
            / (monthly_output_tokens(capacity, demand) / TOKENS_PER_MILLION)
        )

    if not rented:
        return None
    if api_per_million is not None:
        cheaper = [row for row in rented if per_million(row) <= api_per_million]
        if cheaper:
            return min(cheaper, key=lambda row: row.served.monthly_usd / row.served.replicas)
    return min(rented, key=per_million)


def hosted_section(inputs: PageInputs, plan: PlanAnswer) -> SelfHostVsApi:
    """The hosted APIs' prices on the day, and the break-even against the rented configuration the planner's
    answer for the page's settings reads it from."""
    demand = plan.demand
    rows = []
    for hosted in inputs.hosted:
        input_usd, cached_usd, output_usd = hosted.price.prices_on(inputs.today)
        intro = hosted.price.intro_ends
        rows.append(
            HostedRow(
                hosted=hosted,
                input_usd=input_usd,
                cached_usd=cached_usd,
                output_usd=output_usd,
                intro_in_force=intro is not None and inputs.today <= intro,
                intro_expired=intro is not None and inputs.today > intro,
            )
        )
    rented = [row for row in plan.rows if row.kind == "rented" and row.offer is not None]
    api_per_million = api_cost_per_million_output(rows[0].hosted.price, demand.mix, inputs.today) if rows else None
    chosen = break_even_row(rented, api_per_million, demand)
    if chosen is None or chosen.offer is None or chosen.served.capacity is None:
        return SelfHostVsApi(None, None, demand, bool(plan.unmet), tuple(rows), api_per_million, None, None, None)
    offer, capacity = chosen.offer.ranked, chosen.served.capacity
    volume = capacity_tokens = reachable = None
    if rows:
        per_second = monthly_output_tokens(capacity, demand) / SECONDS_PER_MONTH
        found = break_even(float(offer.per_month_usd), rows[0].hosted.price, demand.mix, inputs.today, per_second)
        volume = found.break_even_output_tokens_per_month
        capacity_tokens = found.self_host_capacity_tokens_per_month
        reachable = found.self_host_can_reach_break_even
    else:
        capacity_tokens = monthly_output_tokens(capacity, demand)
    return SelfHostVsApi(
        offer, capacity, demand, False, tuple(rows), api_per_million, volume, capacity_tokens, reachable
    )
