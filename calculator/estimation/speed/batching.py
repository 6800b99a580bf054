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


@dataclass(slots=True)
class _Simulation:
    """The state of one simulated benchmark: the client's queue, the engine's waiting and running requests, the KV
    blocks they hold, and the clock."""

    step: StepModel
    scheduler: Scheduler
    test: LoadTest
    block: int  # tokens per KV block
    total_blocks: int
    arrivals: list[float]
    pending: deque[int]  # requests the client has not sent yet, by index into ``arrivals``
    limit: int  # requests the client keeps in flight at most
    waiting: deque[_Request] = field(default_factory=deque)
    running: list[_Request] = field(default_factory=list)
    done: list[_Request] = field(default_factory=list)
    used: int = 0  # KV blocks held
    now: float = 0.0
    in_flight: int = 0
    preemptions: int = 0
    peak: int = 0
    steps: int = 0
    order: int = 0
    freed: float = (
        0.0  # when the client last had a free slot under ``limit``: it sends then, or when the request is due
    )

    def send_due(self) -> None:
        """The client sends every request that is due, while it has a slot."""
        while self.pending and self.in_flight < self.limit and self.arrivals[self.pending[0]] <= self.now:
            index = self.pending.popleft()
            test = self.test
            self.waiting.append(_Request(max(self.arrivals[index], self.freed), test.prompt_tokens, test.output_tokens))
            self.in_flight += 1

    def schedule(self) -> tuple[list[_Request], list[tuple[_Request, int]]]:
        """One step's work: running requests first (a decode token each, or their next prompt chunk), then waiting
        requests in order; the decoding requests and the prompt chunks (request, tokens)."""
        decode: list[_Request] = []
        chunks: list[tuple[_Request, int]] = []
        budget = self._schedule_running(self.scheduler.max_num_batched_tokens, decode, chunks)
        self._admit_waiting(budget, chunks)
        return decode, chunks

    def _schedule_running(self, budget: int, decode: list[_Request], chunks: list[tuple[_Request, int]]) -> int:
        """The running requests' tokens within ``budget``; a request that finds no free block preempts the latest
        admitted. The budget left."""
        position = 0
        while position < len(self.running) and budget > 0:
            request = self.running[position]
            need = 1 if request.to_prefill == 0 else min(request.to_prefill, budget)
            wanted = -(-(request.computed + need) // self.block)
            while wanted - request.blocks > self.total_blocks - self.used and self.running[-1] is not request:
                self._preempt_latest()
            if wanted - request.blocks > self.total_blocks - self.used:
                break
            self.used += wanted - request.blocks
            request.blocks = wanted
            if request.to_prefill == 0:
                decode.append(request)
            else:
                chunks.append((request, need))
            budget -= need
            position += 1
        return budget

    def _preempt_latest(self) -> None:
        """The latest admitted request gives its blocks back and starts over."""
        victim = self.running.pop()
        self.used -= victim.blocks
        victim.blocks = 0
        victim.target = victim.prompt + victim.generated
        victim.computed = 0
        self.waiting.appendleft(victim)
        self.preemptions += 1

    def _admit_waiting(self, budget: int, chunks: list[tuple[_Request, int]]) -> None:
        """Waiting requests, in order, while the sequence limit, the budget and free blocks allow."""
        while self.waiting and budget > 0 and len(self.running) < self.scheduler.max_num_seqs:
            request = self.waiting[0]
            need = min(request.to_prefill, budget)
            wanted = -(-(request.computed + need) // self.block)
            if wanted - request.blocks > self.total_blocks - self.used:
                break
            self.waiting.popleft()
            self.used += wanted - request.blocks
            request.blocks = wanted
            self.order += 1
            request.order = self.order
            self.running.append(request)
            chunks.append((request, need))
            budget -= need

    def advance(self, decode: list[_Request], chunks: list[tuple[_Request, int]]) -> None:
        """Runs one step: the clock moves by its cost, each request by its tokens."""
        step = self.step
        prefill = sum(n for _, n in chunks)
        span = sum(_span(r.computed, n) for r, n in chunks)
        window_span = sum(_span(r.computed, n, step.window) for r, n in chunks) if step.window else span
        context = sum(r.computed for r in decode)
        self.now += step.seconds(len(decode), context, prefill, span, window_span)
        self.steps += 1
        self.peak = max(self.peak, len(self.running))
        for request in decode:
            request.computed += 1
            request.generated += 1
        for request, tokens in chunks:
            request.computed += tokens
            if request.to_prefill == 0:  # the last chunk's step samples the next token (the first, unless resumed)
                request.generated += 1
                if request.first_token is None:
                    request.first_token = self.now

    def retire_finished(self) -> None:
        """Requests that generated their last token leave, with their blocks and the client's slot."""
        for request in [r for r in self.running if r.generated >= r.output and r.to_prefill == 0]:
            request.finished = self.now
            self.used -= request.blocks
            self.running.remove(request)
            self.done.append(request)
            if self.in_flight == self.limit:
                self.freed = self.now
            self.in_flight -= 1

    def result(self) -> LoadResult:
        """What the benchmark prints for the finished requests."""
        done = self.done
        start = min(r.sent for r in done)
        duration = max(self.now - start, 1e-9)
        output = sum(r.output for r in done)
        prompt = sum(r.prompt for r in done)
        ttft = [(r.first_token or r.sent) - r.sent for r in done]
        tpot = [
            ((r.finished or 0.0) - (r.first_token or 0.0)) / (r.output - 1)
            for r in done
            if r.output > 1 and r.first_token
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
            peak_running=self.peak,
            preemptions=self.preemptions,
            steps=self.steps,
        )


def simulate(step: StepModel, scheduler: Scheduler, test: LoadTest, max_steps: int = 200_000) -> LoadResult:
    """Runs ``test`` through ``scheduler``'s limits with ``step``'s costs until every request has finished."""
    block = max(1, scheduler.block_tokens)
    total_blocks = max(1, scheduler.kv_tokens // block)
    per_request_blocks = -(-(test.prompt_tokens + test.output_tokens) // block)
    if per_request_blocks > total_blocks:
        raise ValueError("one request does not fit the KV cache")
    run = _Simulation(
        step,
        scheduler,
        test,
        block,
        total_blocks,
        _arrivals(test),
        deque(range(test.requests)),
        test.max_concurrency or test.requests,
    )
    while len(run.done) < test.requests:
        run.send_due()
        if not run.running and not run.waiting:
            run.now = max(run.now, run.arrivals[run.pending[0]])
            continue
        decode, chunks = run.schedule()
        if not decode and not chunks:
            raise ValueError("the scheduler cannot make progress")
        run.advance(decode, chunks)
        run.retire_finished()
        if run.steps >= max_steps:
            raise ValueError("the simulation did not finish")
    return run.result()


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
