"""Self-hosting against a hosted API in the reader's words: the configuration compared, what one replica of it
serves, and the break-even volume (calculator/page/hosted.py), one text for the page and its Markdown."""

from __future__ import annotations

from typing import Protocol

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from calculator.estimation import RankedOffer, TrafficMix
from calculator.estimation.plan.planner import Demand, ReplicaCapacity
from calculator.formatting import format_money, format_number

from .choices import requests_phrase
from .prices import hosted_provider

# What stops one replica's batch from growing (calculator/estimation/plan/planner.py: ``ReplicaCapacity.limit``)
REPLICA_LIMITS = {
    "tpot": _("More requests at a time would slow each token past %(tpot)s ms."),
    "ttft": _("More requests at a time would push the first token past %(ttft)s s."),
    "memory": _("Its KV cache holds no more; the wait for a free place counts in the first token's time."),
    "sequences": _("That is as many requests as the engine runs at a time."),
    "budget": _("More would not fit the engine's tokens per step."),
}
# Whose latency the targets hold: the median request, or 95 % of them
TARGET_PERCENTILES = {50: _("the median request"), 95: _("95 % of requests")}


def replica_text(capacity: ReplicaCapacity, demand: Demand) -> str:
    """How much one replica generates at the largest batch within the targets, and what stops a larger one."""
    values = {
        "requests": requests_phrase(capacity.concurrency),
        **_targets(demand),
        "who": TARGET_PERCENTILES[95 if demand.percentile >= 95 else 50],
        "prompt": format_number(demand.prompt),
        "output": format_number(demand.output_tokens),
        "rate": format_number(capacity.output_tokens_per_s),
    }
    text = _(
        "Under steady load one such server runs up to %(requests)s, each token within %(tpot)s ms and the first within "
        "%(ttft)s s for %(who)s (prompts of %(prompt)s tokens, answers of %(output)s): about %(rate)s generated "
        "tokens per second (estimated)."
    )
    return f"{str(text) % values} {str(REPLICA_LIMITS[capacity.limit]) % values}"


class SelfHostAnswer(Protocol):
    """What the texts read of ``calculator.page.hosted.SelfHostVsApi``."""

    @property
    def self_host(self) -> RankedOffer | None: ...
    @property
    def capacity(self) -> ReplicaCapacity | None: ...
    @property
    def demand(self) -> Demand: ...
    @property
    def unmet(self) -> bool: ...
    @property
    def reachable(self) -> bool | None: ...
    @property
    def per_million_output_usd(self) -> float | None: ...
    @property
    def compared_provider(self) -> str: ...
    @property
    def mix(self) -> TrafficMix: ...
    @property
    def break_even_million_tokens(self) -> float | None: ...
    @property
    def capacity_million_tokens(self) -> float | None: ...
    @property
    def self_host_per_million_usd(self) -> float | None: ...


def self_host_text(answer: SelfHostAnswer) -> str:
    """The configuration the break-even is read from and its month (``replica_text``: what one replica of it
    serves)."""
    offer = answer.self_host
    if offer is None:
        if answer.unmet:
            return gettext(
                "None of the configurations on offer keeps even one request within %(tpot)s ms per token and the "
                "first token within %(ttft)s s."
            ) % _targets(answer.demand)
        return gettext("No single-node configuration is on offer for these settings.")
    values = {
        "count": offer.instance_gpus,
        "gpu": offer.gpu_name,
        "provider": offer.provider_name,
        "month": format_money(offer.per_month_rounded, 0),
    }
    if answer.reachable:
        text = gettext(
            "Of the configurations that cost less per generated token than the API when they run full, the cheapest "
            "is %(count)s × %(gpu)s at %(provider)s: about %(month)s a month running around the clock."
        )
    else:
        text = gettext(
            "Per generated token, the cheapest configuration we found for these settings is %(count)s × %(gpu)s at "
            "%(provider)s: about %(month)s a month running around the clock."
        )
    return text % values


def break_even_text(answer: SelfHostAnswer) -> str:
    """The API's cost per generated token with the reader's mix, and the volume where self-hosting costs the same."""
    parts = []
    if answer.per_million_output_usd is not None:
        parts.append(
            gettext(
                "With %(ratio)s input tokens per generated token, %(cached)s %% of them cached, %(provider)s costs "
                "about %(price)s per million generated tokens."
            )
            % {
                "ratio": format_number(answer.mix.input_tokens_per_output_token, 1),
                "cached": round(answer.mix.cached_input_share * 100),
                "provider": hosted_provider(answer.compared_provider),
                "price": format_money(answer.per_million_output_usd),
            }
        )
    if answer.break_even_million_tokens:
        parts.append(
            gettext(
                "Self-hosting costs the same at about %(tokens)s million generated tokens a month; below that the API "
                "is cheaper."
            )
            % {"tokens": format_number(answer.break_even_million_tokens)}
        )
        values = {
            "peak": format_number(answer.demand.peak_factor, 1 if answer.demand.peak_factor % 1 else 0),
            "capacity": format_number(answer.capacity_million_tokens or 0),
            "price": format_money(answer.self_host_per_million_usd),
        }
        if answer.reachable is False:
            parts.append(
                gettext(
                    "Sized for peaks of %(peak)s × the average rate, as the planner sizes servers, the configuration "
                    "above generates only about %(capacity)s million tokens a month (estimated), so at these prices "
                    "the API stays cheaper."
                )
                % values
            )
        elif answer.reachable:
            parts.append(
                gettext(
                    "Sized for peaks of %(peak)s × the average rate, as the planner sizes servers, the configuration "
                    "above generates up to about %(capacity)s million tokens a month (estimated), about %(price)s per "
                    "million when it runs full; above the break-even, self-hosting is cheaper."
                )
                % values
            )
    return " ".join(parts)


def _targets(demand: Demand) -> dict[str, str]:
    return {
        "tpot": format_number(demand.tpot_target_s * 1000),
        "ttft": format_number(demand.ttft_target_s, 1 if demand.ttft_target_s % 1 else 0),
    }
