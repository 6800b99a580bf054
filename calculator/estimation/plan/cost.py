"""What running a model costs: per hour, per month (730 h), per million generated tokens, and the break-even
against a hosted API's per-token prices (input, cached input, output, introductory offers with an end date)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from pricing.offers import HOURS_PER_MONTH

SECONDS_PER_HOUR = 3600
TOKENS_PER_MILLION = 1_000_000


def cost_per_hour(price_per_gpu_hour_usd: float, billed_gpus: int) -> float:
    """You pay for every GPU of the instance you rent, not only the ones you need."""
    return price_per_gpu_hour_usd * max(0, billed_gpus)


def cost_per_month(cost_per_hour_usd: float) -> float:
    return cost_per_hour_usd * HOURS_PER_MONTH


def cost_per_million_tokens(cost_per_hour_usd: float, tokens_per_second: float | None) -> float | None:
    """USD per million generated tokens at ``tokens_per_second`` sustained output; None when the speed is unknown."""
    if not tokens_per_second or tokens_per_second <= 0:
        return None
    return cost_per_hour_usd / (tokens_per_second * SECONDS_PER_HOUR) * TOKENS_PER_MILLION


@dataclass(frozen=True, slots=True)
class ApiPrice:
    """A hosted API's list prices in USD per million tokens, and an introductory offer if there is one."""

    input_per_million_usd: float
    output_per_million_usd: float
    cached_input_per_million_usd: float | None = None
    intro_input_per_million_usd: float | None = None
    intro_cached_input_per_million_usd: float | None = None
    intro_output_per_million_usd: float | None = None
    intro_ends: date | None = None  # last day of the introductory offer

    def prices_on(self, day: date) -> tuple[float, float, float]:
        """(input, cached input, output) per million tokens that apply on ``day``."""
        cached = self.cached_input_per_million_usd
        if cached is None:
            cached = self.input_per_million_usd
        prices = (self.input_per_million_usd, cached, self.output_per_million_usd)
        if self.intro_ends is not None and day <= self.intro_ends:
            intro_input = self.intro_input_per_million_usd
            intro_cached = self.intro_cached_input_per_million_usd
            intro_output = self.intro_output_per_million_usd
            prices = (
                prices[0] if intro_input is None else intro_input,
                prices[1] if intro_cached is None else intro_cached,
                prices[2] if intro_output is None else intro_output,
            )
        return prices


@dataclass(frozen=True, slots=True)
class TrafficMix:
    """How many input tokens arrive per generated token, and which share of them the API serves from cache."""

    input_tokens_per_output_token: float = 3.0
    cached_input_share: float = 0.0


def api_cost_per_million_output(api: ApiPrice, mix: TrafficMix, day: date) -> float:
    """USD the API charges per million generated tokens, counting the input tokens that come with them."""
    input_price, cached_price, output_price = api.prices_on(day)
    share = min(1.0, max(0.0, mix.cached_input_share))
    per_input = input_price * (1 - share) + cached_price * share
    return output_price + mix.input_tokens_per_output_token * per_input


@dataclass(frozen=True, slots=True)
class BreakEven:
    self_host_per_month_usd: float
    api_per_million_output_usd: float
    break_even_output_tokens_per_month: float | None  # below this, the API is cheaper
    self_host_capacity_tokens_per_month: float | None  # what the hardware can generate in 730 h
    self_host_can_reach_break_even: bool | None
    intro_price_applied: bool


def break_even(
    self_host_per_month_usd: float,
    api: ApiPrice,
    mix: TrafficMix,
    day: date,
    tokens_per_second: float | None = None,
) -> BreakEven:
    """Monthly output volume at which self-hosting costs as much as the API on ``day``."""
    per_million = api_cost_per_million_output(api, mix, day)
    volume = self_host_per_month_usd / per_million * TOKENS_PER_MILLION if per_million > 0 else None
    capacity = tokens_per_second * HOURS_PER_MONTH * SECONDS_PER_HOUR if tokens_per_second else None
    reachable = None if capacity is None or volume is None else capacity >= volume
    intro = api.intro_ends is not None and day <= api.intro_ends
    return BreakEven(self_host_per_month_usd, per_million, volume, capacity, reachable, intro)
