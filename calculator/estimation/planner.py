"""The planner's core: how many replicas a monthly token volume needs within latency targets, and what each way to
serve it costs a month (docs/methodology.md §5.7).

A replica is one engine on one instance (the plan the model page ranks). Under steady load it runs ``c`` requests at
a time; every step decodes one token for each and computes the prompt tokens of arriving requests (each request's
prompt, less the share a prefix cache serves, spread over its output tokens: c × prompt ÷ output tokens a step), as
the continuous-batching simulation does step by step (batching.py). The step's time, from the speed model's
``StepModel``, is the time per output token (TPOT); a new prompt waits about one and a half steps, or as many steps
as its chunks take under the token budget, for its first token (TTFT). The largest ``c`` within the targets, the
engine's sequence limit and its KV cache is the replica's capacity; the volume's peak rate over that capacity is the
replica count. A hosted API charges its per-token prices, cached input at its cached price.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date

from pricing.offers import HOURS_PER_MONTH

from .batching import Scheduler
from .cost import ApiPrice, TrafficMix, api_cost_per_million_output
from .speed import StepModel

SECONDS_PER_MONTH = HOURS_PER_MONTH * 3600
TOKENS_PER_MILLION = 1_000_000
# A prompt waits on average half a step for the next step to start, then its own step(s)
WAIT_STEPS = 0.5


@dataclass(frozen=True, slots=True)
class Demand:
    """What is to be served: output tokens a month, input tokens per output token, the share of input a prefix
    cache serves, the peak over the average rate, and the median latency targets (seconds)."""

    output_tokens_per_month: float
    input_per_output: float = 3.0
    cached_share: float = 0.0
    peak_factor: float = 2.0
    ttft_target_s: float = 2.0
    tpot_target_s: float = 0.05
    prompt_tokens: int = 0  # tokens per request; 0: 1,000 × input_per_output
    output_tokens: int = 1000  # per request

    @property
    def prompt(self) -> int:
        return self.prompt_tokens or max(1, round(self.output_tokens * self.input_per_output))

    @property
    def peak_output_tokens_per_s(self) -> float:
        return self.output_tokens_per_month / SECONDS_PER_MONTH * max(1.0, self.peak_factor)

    @property
    def mix(self) -> TrafficMix:
        return TrafficMix(self.input_per_output, min(1.0, max(0.0, self.cached_share)))


@dataclass(frozen=True, slots=True)
class ReplicaCapacity:
    """One replica under steady load at the largest batch within the targets."""

    concurrency: int
    output_tokens_per_s: float
    tpot_s: float
    ttft_s: float
    limit: str  # what stops a larger batch: "tpot", "ttft", "memory" (KV cache), "sequences", "budget"


def _steady_step(step: StepModel, scheduler: Scheduler, demand: Demand, c: int) -> tuple[float, float] | None:
    """(TPOT, TTFT) at ``c`` requests at a time; None when the token budget cannot carry their prompts."""
    prompt = demand.prompt * (1 - min(1.0, max(0.0, demand.cached_share)))
    output = max(1, demand.output_tokens)
    prefill = c * prompt / output
    budget = scheduler.max_num_batched_tokens - c
    if budget <= 0 or prefill > budget:
        return None
    context = c * (demand.prompt + output / 2)
    span = c * prompt * prompt / 2 / output
    tpot = step.seconds(c, round(context), round(prefill), span)
    chunks = max(1, math.ceil(prompt / budget))
    return tpot, (WAIT_STEPS + chunks) * tpot


def replica_capacity(step: StepModel, scheduler: Scheduler, demand: Demand) -> ReplicaCapacity | None:
    """The largest batch a replica runs within the targets (doubling, then bisecting); None when not even one
    request meets them or fits."""
    per_request = demand.prompt + max(1, demand.output_tokens)
    memory_cap = scheduler.kv_tokens // per_request
    cap = min(scheduler.max_num_seqs, memory_cap)
    if cap < 1:
        return None

    def meets(c: int) -> tuple[float, float] | None:
        found = _steady_step(step, scheduler, demand, c)
        if found is None:
            return None
        tpot, ttft = found
        return found if tpot <= demand.tpot_target_s and ttft <= demand.ttft_target_s else None

    if meets(1) is None:
        return None
    low, high = 1, 2
    while high <= cap and meets(high) is not None:
        low, high = high, high * 2
    high = min(high, cap + 1)
    while high - low > 1:
        middle = (low + high) // 2
        if meets(middle) is not None:
            low = middle
        else:
            high = middle
    tpot, ttft = meets(low) or (0.0, 0.0)
    if low >= cap:
        limit = "memory" if memory_cap <= scheduler.max_num_seqs else "sequences"
    else:
        beyond = _steady_step(step, scheduler, demand, low + 1)
        limit = "budget" if beyond is None else "tpot" if beyond[0] > demand.tpot_target_s else "ttft"
    return ReplicaCapacity(low, low / tpot, tpot, ttft, limit)


@dataclass(frozen=True, slots=True)
class Served:
    """One way to serve the demand: its monthly cost and what it achieves."""

    kind: str  # "api" | "rented"
    monthly_usd: float
    per_million_output_usd: float
    replicas: int = 0
    utilisation: float = 0.0  # the average rate over what the replicas can serve
    capacity: ReplicaCapacity | None = None


def served_by_api(api: ApiPrice, demand: Demand, day: date) -> Served:
    per_million = api_cost_per_million_output(api, demand.mix, day)
    return Served("api", per_million * demand.output_tokens_per_month / TOKENS_PER_MILLION, per_million)


def served_by_replicas(per_month_usd: float, capacity: ReplicaCapacity, demand: Demand) -> Served:
    """Replicas sized for the peak rate, each rented for the whole month."""
    replicas = max(1, math.ceil(demand.peak_output_tokens_per_s / capacity.output_tokens_per_s))
    monthly = replicas * per_month_usd
    average = demand.output_tokens_per_month / SECONDS_PER_MONTH
    millions = demand.output_tokens_per_month / TOKENS_PER_MILLION
    return Served(
        "rented",
        monthly,
        monthly / millions if millions else 0.0,
        replicas,
        average / (replicas * capacity.output_tokens_per_s),
        capacity,
    )
