"""The planner's core: how many replicas a monthly token volume needs within latency targets, and what each way to
serve it costs a month (docs/methodology.md §5.7).

A replica is one engine on one instance (the plan the model page ranks). Under steady load it runs ``c`` requests at
a time; every step decodes one token for each and computes the prompt chunks of arriving requests (each request
lives ``output`` steps, so c ÷ output prompts arrive a step on average, Poisson-distributed), as the
continuous-batching simulation does step by step (speed/batching.py). The steps' times, from the speed model's
``StepModel``, give the time per output token (TPOT, the mean over a request's steps) and the time to its first token
(TTFT: the step under way, then its own chunks), at the median or the 95th percentile. The largest ``c`` within the
targets, the engine's sequence limit and its KV cache is the replica's capacity; the volume's peak rate over that
capacity is the replica count. A hosted API charges its per-token prices, cached input at its cached price.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date

from pricing.offers import HOURS_PER_MONTH

from ..speed.schedulers import Scheduler
from ..speed.step_model import StepModel
from .cost import ApiPrice, TrafficMix, api_cost_per_million_output
from .queueing import largest_load, wait_quantile

SECONDS_PER_MONTH = HOURS_PER_MONTH * 3600
TOKENS_PER_MILLION = 1_000_000
# The time per output token a request sees at most unless the reader sets another: 50 ms, faster than people read a
# streamed answer (20 tokens a second). A choice the pages state, not a measured figure.
DEFAULT_TPOT_TARGET_S = 0.05
DEFAULT_MIN_TOKENS_PER_S = round(1 / DEFAULT_TPOT_TARGET_S)


@dataclass(frozen=True, slots=True)
class Demand:
    """What is to be served: output tokens a month, input tokens per output token, the share of input a prefix
    cache serves, the peak over the average rate, and the latency targets (seconds) at ``percentile`` (50: the
    median request, 95: all but one in twenty)."""

    output_tokens_per_month: float
    input_per_output: float = 3.0
    cached_share: float = 0.0
    peak_factor: float = 2.0
    ttft_target_s: float = 2.0
    tpot_target_s: float = DEFAULT_TPOT_TARGET_S
    prompt_tokens: int = 0  # tokens per request; 0: 1,000 × input_per_output
    output_tokens: int = 1000  # per request
    percentile: int = 50

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


# The latency targets' percentiles the planner answers for: the median, or 95 % of requests
PERCENTILES = (50, 95)
# z of the normal distribution at 95 %
Z95 = 1.6449
# The feedback of a slower step on the number running is bounded at this elasticity (10× the swing)
MAX_ELASTICITY = 0.9
# Poisson tails past this mass are left out of a step's mixture
TAIL_MASS = 1e-4
# The uniform share of a step an arriving prompt waits for, taken at the midpoints of this many slices
WAIT_SLICES = 8


def _poisson(mean: float) -> list[float]:
    """P(k) for k = 0 … until the tail left is below ``TAIL_MASS`` (renormalised)."""
    probabilities = [math.exp(-mean)]
    total = probabilities[0]
    k = 0
    while 1 - total > TAIL_MASS and k < 200:
        k += 1
        probabilities.append(probabilities[-1] * mean / k)
        total += probabilities[-1]
    return [p / total for p in probabilities]


def _quantile(weighted: list[tuple[float, float]], q: float) -> float:
    """The ``q`` quantile of a discrete distribution given as (value, weight) pairs."""
    ordered = sorted(weighted)
    total = sum(w for _, w in ordered)
    running = 0.0
    for value, weight in ordered:
        running += weight
        if running >= q * total:
            return value
    return ordered[-1][0]


@dataclass(frozen=True, slots=True)
class _Steps:
    """The steps of a replica running ``c`` requests: step ``k`` carries ``k`` arriving prompt chunks besides the
    decode tokens; ``probabilities[k]`` how often."""

    seconds: tuple[float, ...]
    probabilities: tuple[float, ...]
    chunks: int  # steps one prompt's prefill takes

    @property
    def mean(self) -> float:
        return sum(p * s for p, s in zip(self.probabilities, self.seconds, strict=False))

    @property
    def variance(self) -> float:
        mean = self.mean
        return sum(p * (s - mean) ** 2 for p, s in zip(self.probabilities, self.seconds, strict=False))


def _steps(step: StepModel, scheduler: Scheduler, demand: Demand, c: float) -> _Steps | None:
    """Each request lives ``output`` steps, so ``c × chunks ÷ output`` prompt chunks arrive a step on average,
    Poisson-distributed (requests arrive at random); a step with a chunk computes it beside the decode tokens, and
    costs more than its share: a step is the slower of reading the weights and computing its tokens, so the mean of
    the mixture, not the step at the mean prefill, is the time per token (Jensen). None when the token budget
    cannot carry the prompts."""
    cached = min(1.0, max(0.0, demand.cached_share))
    prefix = round(demand.prompt * cached)
    prompt = demand.prompt - prefix
    output = max(1, demand.output_tokens)
    budget = scheduler.max_num_batched_tokens - math.ceil(c)
    if budget <= 0:
        return None
    chunks = max(1, math.ceil(prompt / budget))
    chunk = prompt / chunks
    arriving = c * chunks / output
    if arriving * chunk > budget:
        return None
    span = (prompt * prefix + prompt * (prompt - 1) / 2) / chunks  # the cached tokens a chunk's tokens attend to
    context = round(c * (demand.prompt + output / 2))
    decoding = max(1, round(c))
    probabilities = _poisson(arriving)
    seconds = tuple(
        step.seconds(decoding, context, round(min(k * chunk, budget)), k * span) for k in range(len(probabilities) + 1)
    )
    return _Steps(seconds, tuple(probabilities), chunks)


@dataclass(frozen=True, slots=True)
class _Latency:
    """A replica's latencies at ``c`` requests: the time per token at the demand's percentile, and the steps the
    time to the first token is read from."""

    tpot: float
    steps: _Steps

    @property
    def mean(self) -> float:
        return self.steps.mean

    def first_token(self) -> list[tuple[float, float]]:
        """The time to the first token as (seconds, weight) pairs: an arriving prompt waits for the step under way
        (it lands in a long step more often, in proportion to its length, and waits a uniform share of it), then the
        steps of its own chunks beside the others arriving."""
        steps, mean = self.steps, self.steps.mean
        own = [steps.chunks * s for s in steps.seconds[1:]]
        weighted: list[tuple[float, float]] = []
        for p_k, s_k in zip(steps.probabilities, steps.seconds, strict=False):
            landing = (p_k * s_k / mean if mean else p_k) / WAIT_SLICES
            for i in range(WAIT_SLICES):
                wait = (i + 0.5) / WAIT_SLICES * s_k
                weighted.extend((wait + own[j], landing * p_j) for j, p_j in enumerate(steps.probabilities))
        return weighted

    def ttft(self, q: float) -> float:
        return _quantile(self.first_token(), q)

    def ttft_within(self, target: float, q: float) -> bool:
        """Whether a share ``q`` of first tokens come within ``target`` (no sorting: the mass at or below it)."""
        longest = max(self.steps.seconds)
        if longest * (1 + self.steps.chunks) <= target:  # even the longest wait and own steps are within it
            return True
        weighted = self.first_token()
        total = sum(w for _, w in weighted)
        return sum(w for v, w in weighted if v <= target) >= q * total


def _latency(step: StepModel, scheduler: Scheduler, demand: Demand, c: int) -> _Latency | None:
    """The latencies at ``c`` requests at a time; None when the token budget cannot carry their prompts.

    TPOT: a request's time per token is the mean of the ``output`` steps it lives through, so the median request
    sees the mixture's mean; the 95th percentile adds, in quadrature, the spread of that mean over ``output``
    steps and the spread of the number running (Poisson arrivals: about c ± √(2c/3) over a request's life, widened
    by the slower steps a busier batch takes)."""
    steps = _steps(step, scheduler, demand, c)
    if steps is None:
        return None
    mean = steps.mean
    output = max(1, demand.output_tokens)
    tpot = mean
    if demand.percentile >= 95:
        swing = Z95 * math.sqrt(2 * c / 3)
        busier = _steps(step, scheduler, demand, c + swing)
        spread = (busier.mean - mean) if busier is not None else mean
        # a busier batch slows every step, so its requests stay longer and more of them run: the swing grows by
        # 1 ÷ (1 − e), e the elasticity of the step time in the batch (at most 0.9 here)
        elasticity = spread / swing * c / mean if mean else 0.0
        spread /= 1 - min(MAX_ELASTICITY, max(0.0, elasticity))
        tpot = mean + math.sqrt(spread**2 + Z95**2 * steps.variance / output)
    return _Latency(tpot, steps)


def _quantile_of(demand: Demand) -> float:
    return 0.95 if demand.percentile >= 95 else 0.5


def _steady_step(step: StepModel, scheduler: Scheduler, demand: Demand, c: int) -> tuple[float, float, float] | None:
    """(TPOT, TTFT) at ``c`` requests at a time, at the demand's percentile, and the mean step (what the replica's
    throughput reads: c tokens a mean step); None when the token budget cannot carry their prompts."""
    found = _latency(step, scheduler, demand, c)
    if found is None:
        return None
    return found.tpot, found.ttft(_quantile_of(demand)), found.mean


def replica_capacity(step: StepModel, scheduler: Scheduler, demand: Demand) -> ReplicaCapacity | None:
    """The largest batch a replica runs within the targets (doubling, then bisecting); None when not even one
    request meets them or fits."""
    per_request = demand.prompt + max(1, demand.output_tokens)
    memory_cap = scheduler.kv_tokens // per_request
    cap = min(scheduler.max_num_seqs, memory_cap)
    if cap < 1:
        return None

    q = _quantile_of(demand)

    def meets(c: int) -> bool:
        found = _latency(step, scheduler, demand, c)
        return found is not None and found.tpot <= demand.tpot_target_s and found.ttft_within(demand.ttft_target_s, q)

    if not meets(1):
        return None
    low, high = 1, 2
    while high <= cap and meets(high):
        low, high = high, high * 2
    high = min(high, cap + 1)
    while high - low > 1:
        middle = (low + high) // 2
        if meets(middle):
            low = middle
        else:
            high = middle
    tpot, ttft, mean = _steady_step(step, scheduler, demand, low) or (0.0, 0.0, 0.0)
    if low >= cap:
        limit = "memory" if memory_cap < scheduler.max_num_seqs else "sequences"
        return _queued(step, scheduler, demand, low, limit) or ReplicaCapacity(low, low / mean, tpot, ttft, limit)
    beyond = _steady_step(step, scheduler, demand, low + 1)
    limit = "budget" if beyond is None else "tpot" if beyond[0] > demand.tpot_target_s else "ttft"
    return ReplicaCapacity(low, low / mean, tpot, ttft, limit)


def _queued(step: StepModel, scheduler: Scheduler, demand: Demand, slots: int, limit: str) -> ReplicaCapacity | None:
    """A replica whose batch is bounded by its KV cache or sequence limit (``slots`` places), loaded only as far as
    the wait for a free place leaves the first token within the target at the demand's percentile (queueing.py): its
    batch is the ``slots`` it runs at most, its time per token that of the number running on average, its first
    token after the wait at that percentile. None when even an idle replica's first token misses."""
    q, output = _quantile_of(demand), max(1, demand.output_tokens)
    running = float(slots)
    for _ in range(3):  # fewer running make faster steps and shorter lives: settle the load on them
        found = _steady_step(step, scheduler, demand, max(1, math.floor(running)))
        if found is None:
            return None
        tpot, ttft, mean = found
        lifetime = ttft + output * mean
        running = largest_load(slots, lifetime, q, demand.ttft_target_s - ttft)
    if running <= 0:
        return None
    waited = ttft + wait_quantile(slots, running, lifetime, q)
    return ReplicaCapacity(slots, running / lifetime * output, tpot, waited, limit)


@dataclass(frozen=True, slots=True)
class Served:
    """One way to serve the demand: its monthly cost and what it achieves."""

    kind: str  # "api" | "rented" | "owned"
    monthly_usd: float
    per_million_output_usd: float
    replicas: int = 0  # instances rented, or servers owned
    utilisation: float = 0.0  # the average rate over what the replicas can serve
    capacity: ReplicaCapacity | None = None  # one instance's or one server's


def monthly_output_tokens(capacity: ReplicaCapacity, demand: Demand) -> float:
    """What one replica generates in a month whose peak rate is ``demand.peak_factor`` × the average, as replicas
    are sized for it."""
    return capacity.output_tokens_per_s * SECONDS_PER_MONTH / max(1.0, demand.peak_factor)


def served_by_api(api: ApiPrice, demand: Demand, day: date) -> Served:
    per_million = api_cost_per_million_output(api, demand.mix, day)
    return Served("api", per_million * demand.output_tokens_per_month / TOKENS_PER_MILLION, per_million)


def served_by_replicas(per_month_usd: float, capacity: ReplicaCapacity, demand: Demand, kind: str = "rented") -> Served:
    """Replicas sized for the peak rate, each paid for the whole month (rented as sold, or owned)."""
    replicas = max(1, math.ceil(demand.peak_output_tokens_per_s / capacity.output_tokens_per_s))
    monthly = replicas * per_month_usd
    average = demand.output_tokens_per_month / SECONDS_PER_MONTH
    millions = demand.output_tokens_per_month / TOKENS_PER_MILLION
    return Served(
        kind,
        monthly,
        monthly / millions if millions else 0.0,
        replicas,
        average / (replicas * capacity.output_tokens_per_s),
        capacity,
    )


def monthly_range(served: Served, demand: Demand, low_error: float, high_error: float) -> tuple[float, float]:
    """The monthly cost of ``served`` if the speed model errs as published runs show it erring: a replica sustains
    its modelled rate ÷ (1 + error) for an error between ``low_error`` and ``high_error`` (signed shares, −0.2 for
    20 % under), its replicas counted again at each end, each paid as before. An API's price is exact."""
    capacity = served.capacity
    if capacity is None or served.replicas < 1 or capacity.output_tokens_per_s <= 0:
        return served.monthly_usd, served.monthly_usd
    per_replica = served.monthly_usd / served.replicas
    rate = capacity.output_tokens_per_s
    peak = demand.peak_output_tokens_per_s

    def cost(error: float) -> float:
        sustained = rate / max(0.05, 1 + error)
        return per_replica * max(1, math.ceil(peak / sustained))

    return min(cost(low_error), served.monthly_usd), max(cost(high_error), served.monthly_usd)


@dataclass(frozen=True, slots=True)
class OwnedCosts:
    """What owning a server costs besides its price: years it is written off over, energy per kWh, the data
    centre's power usage effectiveness, and colocation per kW of the server's rated power a month."""

    years: float
    kwh_usd: float
    pue: float
    colo_usd_per_kw_month: float


@dataclass(frozen=True, slots=True)
class OwnedMonth:
    """One owned server's month: its price written off evenly, the energy at its rated power around the clock times
    the PUE, and the colocation of that power."""

    depreciation_usd: float
    energy_usd: float
    hosting_usd: float

    @property
    def total_usd(self) -> float:
        return self.depreciation_usd + self.energy_usd + self.hosting_usd


def owned_month(price_usd: float, power_kw: float, costs: OwnedCosts) -> OwnedMonth:
    return OwnedMonth(
        depreciation_usd=price_usd / (max(costs.years, 1e-9) * 12),
        energy_usd=power_kw * HOURS_PER_MONTH * costs.pue * costs.kwh_usd,
        hosting_usd=power_kw * costs.colo_usd_per_kw_month,
    )
