"""What ``manage.py estimate --price-per-gpu-hour`` prints about cost: per hour and month, per million tokens at one
replica's capacity within the planner's targets (calculator/estimation/plan/replica.py, as the model page and the
planner count it), and the break-even against ``--api-price``."""

from __future__ import annotations

from dataclasses import asdict
from datetime import date
from decimal import Decimal
from typing import Any

from calculator.estimation import (
    ApiPrice,
    TrafficMix,
    break_even,
    cost_per_hour,
    cost_per_million_tokens,
    cost_per_month,
)
from calculator.estimation.plan.planner import (
    DEFAULT_MIN_TOKENS_PER_S,
    SECONDS_PER_MONTH,
    Demand,
    ReplicaCapacity,
    monthly_output_tokens,
)
from calculator.management.options import parse_decimal, parse_int, usage_error

MAX_API_PRICE = Decimal(10_000)  # USD per million tokens


def parse_api_price(text: str) -> ApiPrice:
    """``input,output`` or ``input,output,cached input``: USD per million tokens."""
    parts = [p for p in text.replace(";", ",").split(",") if p.strip()]
    if len(parts) not in (2, 3):
        raise usage_error("--api-price", f"expected INPUT,OUTPUT[,CACHED] in USD per million tokens, got {text!r}")
    prices = [float(parse_decimal("--api-price", p, MAX_API_PRICE, allow_zero=True)) for p in parts]
    return ApiPrice(prices[0], prices[1], prices[2] if len(prices) == 3 else None)


def cost_mix(options: dict[str, Any]) -> TrafficMix:
    """``--input-ratio`` input tokens per generated token, ``--cached-share`` percent of them from a prefix cache."""
    ratio = float(parse_decimal("--input-ratio", options["input_ratio"], Decimal(1000), allow_zero=True))
    cached = parse_int("--cached-share", options["cached_share"], 100, lower=0)
    return TrafficMix(input_tokens_per_output_token=ratio, cached_input_share=cached / 100)


def cost_demand(options: dict[str, Any]) -> Demand:
    """The planner's question ``--price-per-gpu-hour`` asks: the mix of ``--input-ratio`` and ``--cached-share``, each
    token within 1 ÷ ``--min-tokens-per-s`` and the first within the planner's 2 s (median), as the model page asks."""
    floor = parse_int("--min-tokens-per-s", str(options.get("min_tokens_per_s") or DEFAULT_MIN_TOKENS_PER_S), 10_000)
    mix = cost_mix(options)
    return Demand(
        0.0,
        input_per_output=mix.input_tokens_per_output_token,
        cached_share=mix.cached_input_share,
        tpot_target_s=1 / floor,
    )


def cost_json(
    options: dict[str, Any],
    price: Decimal,
    billed_gpus: int,
    tokens_per_s: float | None,
    replica: ReplicaCapacity | None = None,
    demand: Demand | None = None,
) -> dict[str, Any]:
    """Self-hosting at a given price per GPU-hour: per hour and month, per million tokens, against an API. The
    tokens a month buys are one replica's within the targets at the peak it is sized for (``replica``, as the
    model page and the planner count them), else the workload's own requests one at a time."""
    per_hour = cost_per_hour(float(price), billed_gpus)
    per_month = cost_per_month(per_hour)
    if replica is not None and demand is not None:
        tokens_per_s = monthly_output_tokens(replica, demand) / SECONDS_PER_MONTH
    result: dict[str, Any] = {
        "price_per_gpu_hour_usd": float(price),
        "billed_gpus": billed_gpus,
        "per_hour_usd": per_hour,
        "per_month_usd": per_month,
        # the average rate at the peak replicas are sized for, else the conservative end of one request's decode
        "tokens_per_s": tokens_per_s,
        "per_million_tokens_usd": cost_per_million_tokens(per_hour, tokens_per_s),
        "replica": asdict(replica) if replica is not None else None,
        "peak_factor": demand.peak_factor if replica is not None and demand is not None else None,
        "break_even": None,
    }
    if options["api_price"]:
        api = parse_api_price(options["api_price"])
        mix = demand.mix if demand is not None else cost_mix(options)
        found = break_even(per_month, api, mix, date.today(), tokens_per_s)
        result["break_even"] = {
            "api_input_per_million_usd": api.input_per_million_usd,
            "api_output_per_million_usd": api.output_per_million_usd,
            "input_tokens_per_output_token": mix.input_tokens_per_output_token,
            "cached_input_share": mix.cached_input_share,
            "api_per_million_output_usd": found.api_per_million_output_usd,
            "break_even_output_tokens_per_month": found.break_even_output_tokens_per_month,
            "self_host_capacity_tokens_per_month": found.self_host_capacity_tokens_per_month,
            "self_host_can_reach_break_even": found.self_host_can_reach_break_even,
        }
    return result
