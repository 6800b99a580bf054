"""Throughput under load as serving benchmarks measure it: a request-level simulation of continuous batching
(docs/methodology.md §5.6).

A serving benchmark (`vllm bench serve`, SGLang's `bench_serving`) sends requests, at once or at a rate, and reports
total and output tokens per second, time to first token (TTFT) and time per output token (TPOT). Steady decode at
the batch limit (speed/serving.py) is not what it measures: prompts of arriving requests are computed in the same steps
as the decode tokens of running ones (chunked prefill, at most ``max_num_batched_tokens`` per step), at most
``max_num_seqs`` run at once, the KV cache holds only so many tokens and requests finish at different times. This
module runs that schedule step by step, as vLLM's V1 scheduler does (vllm/v1/core/sched/scheduler.py: running
requests first, one decode token each or their next prompt chunk, then waiting requests in arrival order while the
token budget, the sequence limit and free KV blocks allow; a request that finds no block for its next token
preempts the latest-admitted one, whose tokens are recomputed), and prices each step with the speed model's
``StepModel``. Pure Python, deterministic for a seed.
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass, field
from statistics import mean, median

from models_catalog.architecture import ModelSpec

from ..engines.releases import sglang_gpu_defaults, vllm_batch_defaults, vllm_release
from ..memory.capacity import EngineSettings, engine_capacity
from ..workload import Workload
from .estimate import StepModel

DEFAULT_BLOCK_TOKENS = 16  # vLLM's KV-cache block (§3.7); SGLang pages by token


@dataclass(frozen=True, slots=True)
class Scheduler:
    """The engine's limits: sequences at once, tokens per step, and the KV cache it sized at start-up."""

    max_num_seqs: int
    max_num_batched_tokens: int
    kv_tokens: int  # "GPU KV cache size" (engine_capacity)
    block_tokens: int = DEFAULT_BLOCK_TOKENS


@dataclass(frozen=True, slots=True)
class LoadTest:
    """What the benchmark client sends: ``requests`` prompts of ``prompt_tokens`` asking for ``output_tokens``
    each (the fixed lengths of `--dataset-name random`), all at once or at ``request_rate`` per second (Poisson,
    as the client draws it), with at most ``max_concurrency`` in flight when the client limits it."""

    requests: int
    prompt_tokens: int
    output_tokens: int
    request_rate: float | None = None  # None: every request at time 0 ("inf")
    max_concurrency: int | None = None
    seed: int = 0


@dataclass(frozen=True, slots=True)
class Latency:
    mean: float
    median: float
    p99: float
    p95: float = 0.0


@dataclass(frozen=True, slots=True)
class LoadResult:
    """What a serving benchmark prints, in seconds and tokens per second."""

    duration_s: float
    completed: int
    input_tokens: int
    output_tokens: int
    output_tokens_per_s: float
    total_tokens_per_s: float
    requests_per_s: float
    ttft_s: Latency
    tpot_s: Latency
    peak_running: int
    preemptions: int
    steps: int


@dataclass(slots=True)
class _Request:
    sent: float
    prompt: int
    output: int
    computed: int = 0  # tokens whose KV is in the cache
    generated: int = 0
    blocks: int = 0
    first_token: float | None = None
    finished: float | None = None
    target: int = 0  # tokens to compute before the next token is sampled: the prompt, after a preemption more
    order: int = field(default=0)

    def __post_init__(self) -> None:
        self.target = self.target or self.prompt

    @property
    def to_prefill(self) -> int:
        return max(0, self.target - self.computed)


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0–1) by linear interpolation between the closest ranks; 0 for no values."""
    ordered = sorted(values)
    if not ordered:
        return 0.0
    rank = q * (len(ordered) - 1)
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def _latency(values: list[float]) -> Latency:
    if not values:
        return Latency(0.0, 0.0, 0.0, 0.0)
    return Latency(mean(values), median(values), percentile(values, 0.99), percentile(values, 0.95))


def _arrivals(test: LoadTest) -> list[float]:
    if not test.request_rate or test.request_rate <= 0:
        return [0.0] * test.requests
    draw = random.Random(test.seed)
    times, now = [], 0.0
    for _ in range(test.requests):
        now += draw.expovariate(test.request_rate)
        times.append(now)
    return times


def _span(start: int, tokens: int, window: int = 0) -> float:
    """Σ over the tokens start … start + tokens − 1 of the cached tokens each attends to (cut at ``window``)."""
    if tokens <= 0:
        return 0.0
    if not window or start + tokens <= window:
        return tokens * start + tokens * (tokens - 1) / 2
    below = max(0, min(start + tokens, window) - start)  # positions under the window count themselves
    return below * start + below * (below - 1) / 2 + (tokens - below) * window


def simulate(step: StepModel, scheduler: Scheduler, test: LoadTest, max_steps: int = 200_000) -> LoadResult:
    """Runs ``test`` through ``scheduler``'s limits with ``step``'s costs until every request has finished."""
    block = max(1, scheduler.block_tokens)
    total_blocks = max(1, scheduler.kv_tokens // block)
    per_request_blocks = -(-(test.prompt_tokens + test.output_tokens) // block)
    if per_request_blocks > total_blocks:
        raise ValueError("one request does not fit the KV cache")
    arrivals = _arrivals(test)
    pending = deque(range(test.requests))
    waiting: deque[_Request] = deque()
    running: list[_Request] = []
    done: list[_Request] = []
    used = 0
    now = 0.0
    in_flight = 0
    limit = test.max_concurrency or test.requests
    preemptions = peak = steps = 0
    order = 0
    freed = 0.0  # when the client last had a free slot under ``limit``: it sends then, or when the request is due
    while len(done) < test.requests:
        while pending and in_flight < limit and arrivals[pending[0]] <= now:
            index = pending.popleft()
            waiting.append(_Request(max(arrivals[index], freed), test.prompt_tokens, test.output_tokens))
            in_flight += 1
        if not running and not waiting:
            now = max(now, arrivals[pending[0]])
            continue
        budget = scheduler.max_num_batched_tokens
        decode: list[_Request] = []
        chunks: list[tuple[_Request, int]] = []
        # running requests first: a decode token each, or their next prompt chunk
        position = 0
        while position < len(running) and budget > 0:
            request = running[position]
            need = 1 if request.to_prefill == 0 else min(request.to_prefill, budget)
            wanted = -(-(request.computed + need) // block)
            while wanted - request.blocks > total_blocks - used and running[-1] is not request:
                victim = running.pop()  # the latest admitted gives its blocks back and starts over
                used -= victim.blocks
                victim.blocks = 0
                victim.target = victim.prompt + victim.generated
                victim.computed = 0
                waiting.appendleft(victim)
                preemptions += 1
            if wanted - request.blocks > total_blocks - used:
                break
            used += wanted - request.blocks
            request.blocks = wanted
            if request.to_prefill == 0:
                decode.append(request)
            else:
                chunks.append((request, need))
            budget -= need
            position += 1
        # then waiting requests, in order, while the sequence limit, the budget and free blocks allow
        while waiting and budget > 0 and len(running) < scheduler.max_num_seqs:
            request = waiting[0]
            need = min(request.to_prefill, budget)
            wanted = -(-(request.computed + need) // block)
            if wanted - request.blocks > total_blocks - used:
                break
            waiting.popleft()
            used += wanted - request.blocks
            request.blocks = wanted
            order += 1
            request.order = order
            running.append(request)
            chunks.append((request, need))
            budget -= need
        if not decode and not chunks:
            raise ValueError("the scheduler cannot make progress")
        prefill = sum(n for _, n in chunks)
        span = sum(_span(r.computed, n) for r, n in chunks)
        window_span = sum(_span(r.computed, n, step.window) for r, n in chunks) if step.window else span
        context = sum(r.computed for r in decode)
        now += step.seconds(len(decode), context, prefill, span, window_span)
        steps += 1
        peak = max(peak, len(running))
        for request in decode:
            request.computed += 1
            request.generated += 1
        for request, tokens in chunks:
            request.computed += tokens
            if request.to_prefill == 0:  # the last chunk's step samples the next token (the first, unless resumed)
                request.generated += 1
                if request.first_token is None:
                    request.first_token = now
        for request in [r for r in running if r.generated >= r.output and r.to_prefill == 0]:
            request.finished = now
            used -= request.blocks
            running.remove(request)
            done.append(request)
            if in_flight == limit:
                freed = now
            in_flight -= 1
        if steps >= max_steps:
            raise ValueError("the simulation did not finish")
    start = min(r.sent for r in done)
    duration = max(now - start, 1e-9)
    output = sum(r.output for r in done)
    prompt = sum(r.prompt for r in done)
    ttft = [(r.first_token or r.sent) - r.sent for r in done]
    tpot = [
        ((r.finished or 0.0) - (r.first_token or 0.0)) / (r.output - 1) for r in done if r.output > 1 and r.first_token
    ]
    return LoadResult(
        duration_s=duration,
        completed=len(done),
        input_tokens=prompt,
        output_tokens=output,
        output_tokens_per_s=output / duration,
        total_tokens_per_s=(prompt + output) / duration,
        requests_per_s=len(done) / duration,
        ttft_s=_latency(ttft),
        tpot_s=_latency(tpot),
        peak_running=peak,
        preemptions=preemptions,
        steps=steps,
    )


# SGLang runs at most this many requests at once unless --max-running-requests says otherwise (estimated: its request
# pool is sized from memory; the benchmarks in the validation matrix stay below it)
SGLANG_MAX_RUNNING = 1024


def engine_scheduler(
    spec: ModelSpec, workload: Workload, gpu_total_bytes: int, gpu_name: str, gpus: int, max_model_len: int
) -> Scheduler:
    """The limits ``workload.engine`` starts with on ``gpus`` GPUs of ``gpu_total_bytes``: vLLM's batch defaults of
    its release line (§4.12), SGLang's chunked-prefill size per GPU memory (§4.2), and the KV cache it sizes at
    start-up for ``max_model_len`` (memory/capacity.py)."""
    engine = workload.engine
    settings = EngineSettings(
        engine=engine,
        tensor_parallel=gpus,
        max_model_len=max_model_len,
        precision=workload.precision,
        kv_dtype=workload.kv_dtype,
        release=workload.engine_release,
        gpu_name=gpu_name,
    )
    kv_tokens = engine_capacity(spec, gpu_total_bytes, settings).kv_cache_tokens
    if engine == "sglang":
        chunked, _ = sglang_gpu_defaults(gpu_total_bytes / 2**20)
        return Scheduler(SGLANG_MAX_RUNNING, chunked, kv_tokens, 1)
    batched, seqs = vllm_batch_defaults(vllm_release(workload.engine_release), gpu_total_bytes, gpu_name)
    return Scheduler(seqs, batched, kv_tokens)
