"""Self-hosting against the hosted APIs that serve the model: per-token prices and the break-even volume."""

from __future__ import annotations

from dataclasses import dataclass

from calculator.estimation import RankedOffer, TrafficMix, Workload, break_even
from calculator.estimation.plan.deployment import run_workload
from calculator.estimation.speed.serving import Sustained
from calculator.page.inputs import HostedPrice, PageInputs
from models_catalog.architecture import ModelSpec

from .gpus import Gpus, gpu_index


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
    sustained: Sustained | None  # the batch the configuration holds at the reader's per-request floor
    min_tokens_per_s: int  # that floor
    rows: tuple[HostedRow, ...]
    per_million_output_usd: float | None  # the first API's cost per million generated tokens with the mix
    break_even_tokens: float | None
    capacity_tokens: float | None
    reachable: bool | None
    mix: TrafficMix

    @property
    def tokens_per_s(self) -> float | None:
        """All requests together at the sustained batch, the low end of the estimate."""
        return self.sustained.tokens_per_s if self.sustained is not None else None

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
        """The configuration's month over the tokens it generates in it at the sustained batch."""
        if self.self_host is None or not self.capacity_tokens:
            return None
        return float(self.self_host.per_month_usd) / (self.capacity_tokens / 1_000_000)

    @property
    def capacity_million_tokens(self) -> float | None:
        return self.capacity_tokens / 1_000_000 if self.capacity_tokens is not None else None


def cheapest_per_token(
    gpus: Gpus, inputs: PageInputs, spec: ModelSpec, workload: Workload, floor: int
) -> tuple[RankedOffer | None, Sustained | None]:
    """Of the cheapest configuration per GPU type, the one whose month buys the most tokens at the batch it holds
    with every request at ``floor`` tokens/s or more (the cheapest per hour often holds only the reader's own
    requests: 5 × A100 fill 90 % with GLM-5.3-Flash's weights). Without any that meets the floor, the cheapest per
    hour with what it does. Each GPU type's sustained batch comes from ``inputs.sustained_batch``."""
    index, sustained = gpu_index(inputs.gpus), inputs.sustained_batch
    best: tuple[float, RankedOffer, Sustained] | None = None
    for row in gpus.by_gpu:
        gpu = index.get(row.ranked.offer.gpu_slug)
        if gpu is None or not gpu.memory_bandwidth_gbps:
            continue
        found = sustained(
            spec, run_workload(workload, row.plan.layout), gpu, row.tensor_parallel, floor, row.plan.gpus_run
        )
        if found is None or not found.meets_floor:
            continue
        per_token = float(row.ranked.per_month_usd) / found.tokens_per_s
        if best is None or per_token < best[0]:
            best = (per_token, row.ranked, found)
    if best is not None:
        return best[1], best[2]
    if not gpus.by_gpu:
        return None, None
    cheapest = gpus.by_gpu[0]
    gpu = index.get(cheapest.ranked.offer.gpu_slug)
    if gpu is None or not gpu.memory_bandwidth_gbps:
        return cheapest.ranked, None
    plan = cheapest.plan
    return cheapest.ranked, sustained(
        spec, run_workload(workload, plan.layout), gpu, plan.tensor_parallel, floor, plan.gpus_run
    )


def hosted_section(inputs: PageInputs, gpus: Gpus, spec: ModelSpec, workload: Workload) -> SelfHostVsApi:
    """The hosted APIs' prices on the day, and the break-even against the configuration cheapest per generated
    token."""
    state = inputs.state
    mix = TrafficMix(input_tokens_per_output_token=state.ratio, cached_input_share=state.cached / 100)
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
    cheapest, held = cheapest_per_token(gpus, inputs, spec, workload, state.tps)
    tokens_per_s = held.tokens_per_s if held is not None else None
    per_million = volume = capacity = reachable = None
    if rows and cheapest is not None:
        result = break_even(float(cheapest.per_month_usd), rows[0].hosted.price, mix, inputs.today, tokens_per_s)
        per_million = result.api_per_million_output_usd
        volume = result.break_even_output_tokens_per_month
        capacity = result.self_host_capacity_tokens_per_month
        reachable = result.self_host_can_reach_break_even
    return SelfHostVsApi(cheapest, held, state.tps, tuple(rows), per_million, volume, capacity, reachable, mix)
