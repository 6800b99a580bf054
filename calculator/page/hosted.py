"""Self-hosting against the hosted APIs that serve the model: per-token prices and the break-even volume."""

from __future__ import annotations

from dataclasses import dataclass

from calculator.estimation import RankedOffer, TrafficMix, Workload, break_even, speed
from calculator.page.inputs import HostedPrice, PageInputs
from models_catalog.architecture import ModelSpec

from .gpus import Gpus, gpu_index, instance_plan


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
    tokens_per_s: float | None  # all requests together, the low end of the estimate
    rows: tuple[HostedRow, ...]
    per_million_output_usd: float | None  # the first API's cost per million generated tokens with the mix
    break_even_tokens: float | None
    capacity_tokens: float | None
    reachable: bool | None
    mix: TrafficMix

    @property
    def compared_provider(self) -> str:
        """The hosted API the break-even compares with: the first row's."""
        return self.rows[0].hosted.provider if self.rows else ""

    @property
    def break_even_million_tokens(self) -> float | None:
        """Generated tokens a month at which self-hosting costs the same, in millions (as the page says it)."""
        return self.break_even_tokens / 1_000_000 if self.break_even_tokens is not None else None

    @property
    def capacity_million_tokens(self) -> float | None:
        return self.capacity_tokens / 1_000_000 if self.capacity_tokens is not None else None


def hosted_section(inputs: PageInputs, gpus: Gpus, spec: ModelSpec, workload: Workload) -> SelfHostVsApi:
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
    cheapest = gpus.ranking.cheapest
    tokens_per_s = None
    if cheapest is not None:
        gpu = gpu_index(inputs.gpus).get(cheapest.offer.gpu_slug)
        if gpu is not None and gpu.memory_bandwidth_gbps:
            running = instance_plan(cheapest, spec).tensor_parallel
            tokens_per_s = speed(spec, workload, gpu, running).decode_tokens_per_s_low
    per_million = volume = capacity = reachable = None
    if rows and cheapest is not None:
        result = break_even(float(cheapest.per_month_usd), rows[0].hosted.price, mix, inputs.today, tokens_per_s)
        per_million = result.api_per_million_output_usd
        volume = result.break_even_output_tokens_per_month
        capacity = result.self_host_capacity_tokens_per_month
        reachable = result.self_host_can_reach_break_even
    return SelfHostVsApi(cheapest, tokens_per_s, tuple(rows), per_million, volume, capacity, reachable, mix)
