"""Throughput and latency under load as serving benchmarks measure them: a request-level simulation of continuous
batching (docs/methodology.md §5.6).

A serving benchmark (`vllm bench serve`, SGLang's `bench_serving`; speed/load_test.py) sends requests, at once or at a
rate, and reports total and output tokens per second, time to first token (TTFT) and time per output token (TPOT).
Steady decode at the batch limit (speed/estimate.py's batch curve) is not what it measures: prompts of arriving requests
are computed beside or between the decode tokens of running ones, the engine runs only so many requests at once, its KV
cache holds only so many tokens, and requests finish at different times. This module runs that schedule step by step as
the engine's own scheduler does (speed/schedulers.py: vLLM V1's mixed steps, V0's prefill-first steps, SGLang's prefill
batches with their KV reservation) and prices each step with the speed model's ``StepModel``. Pure Python, deterministic
for a seed.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from .load_test import LoadResult, LoadTest, arrivals, latency, lengths
from .schedulers import (
    SGLANG_CLIP_MAX_NEW_TOKENS,
    SGLANG_INIT_NEW_TOKEN_RATIO,
    SGLANG_MIN_NEW_TOKEN_RATIO_FACTOR,
    SGLANG_NEW_TOKEN_RATIO_DECAY_STEPS,
    SGLANG_RETRACT_DECODE_STEPS,
    Scheduler,
)
from .step_model import StepModel

_SGLANG_MIN_RATIO = SGLANG_INIT_NEW_TOKEN_RATIO * SGLANG_MIN_NEW_TOKEN_RATIO_FACTOR
_SGLANG_DECAY = (SGLANG_INIT_NEW_TOKEN_RATIO - _SGLANG_MIN_RATIO) / SGLANG_NEW_TOKEN_RATIO_DECAY_STEPS

Work = tuple[list["_Request"], list[tuple["_Request", int]]]  # decoding requests, prompt chunks (request, tokens)


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

    @property
    def still_to_write(self) -> int:
        """Output tokens SGLang expects it still to write, clipped as its scheduler clips them."""
        return min(max(0, self.output - self.generated), SGLANG_CLIP_MAX_NEW_TOKENS)


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
    block: int  # tokens per KV block
    total_blocks: int
    arrivals: list[float]
    lengths: list[tuple[int, int]]
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
    new_token_ratio: float = SGLANG_INIT_NEW_TOKEN_RATIO
    # when the client last had a free slot under ``limit``: it sends then, or when the request is due
    freed: float = 0.0

    @property
    def free(self) -> int:
        return self.total_blocks - self.used

    def send_due(self) -> None:
        """The client sends every request that is due, while it has a slot."""
        while self.pending and self.in_flight < self.limit and self.arrivals[self.pending[0]] <= self.now:
            index = self.pending.popleft()
            prompt, output = self.lengths[index]
            self.waiting.append(_Request(max(self.arrivals[index], self.freed), prompt, output))
            self.in_flight += 1

    def blocks_for(self, request: _Request, tokens: int) -> int:
        """Blocks ``request`` needs beyond those it holds to cache ``tokens`` more."""
        return -(-(request.computed + tokens) // self.block) - request.blocks

    def hold(self, request: _Request, tokens: int) -> None:
        extra = self.blocks_for(request, tokens)
        self.used += extra
        request.blocks += extra

    def admit(self, request: _Request) -> None:
        self.order += 1
        request.order = self.order
        self.running.append(request)

    def release(self, request: _Request) -> None:
        """``request`` gives its blocks back and will compute its prompt and output so far again."""
        self.used -= request.blocks
        request.blocks = 0
        request.target = request.prompt + request.generated
        request.computed = 0
        self.preemptions += 1

    def schedule(self) -> Work:
        """One step's work under the scheduler's policy."""
        if self.scheduler.policy == "sglang":
            return _schedule_sglang(self)
        if self.scheduler.policy == "prefill_first":
            return _schedule_prefill_first(self)
        return _schedule_mixed(self)

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
            ttft_s=latency(ttft),
            tpot_s=latency(tpot),
            peak_running=self.peak,
            preemptions=self.preemptions,
            steps=self.steps,
        )


def _schedule_mixed(run: _Simulation) -> Work:
    """vLLM V1: running requests first (a decode token each, or their next prompt chunk), then waiting requests in
    order, all within one token budget; a request that finds no free block preempts the latest admitted."""
    decode: list[_Request] = []
    chunks: list[tuple[_Request, int]] = []
    budget = run.scheduler.max_num_batched_tokens
    position = 0
    while position < len(run.running) and budget > 0:
        request = run.running[position]
        need = 1 if request.to_prefill == 0 else min(request.to_prefill, budget)
        while run.blocks_for(request, need) > run.free and run.running[-1] is not request:
            _preempt_latest(run)
        if run.blocks_for(request, need) > run.free:
            break
        run.hold(request, need)
        if request.to_prefill == 0:
            decode.append(request)
        else:
            chunks.append((request, need))
        budget -= need
        position += 1
    while run.waiting and budget > 0 and len(run.running) < run.scheduler.max_num_seqs:
        request = run.waiting[0]
        need = min(request.to_prefill, budget)
        if run.blocks_for(request, need) > run.free:
            break
        run.waiting.popleft()
        run.hold(request, need)
        run.admit(request)
        chunks.append((request, need))
        budget -= need
    return decode, chunks


def _preempt_latest(run: _Simulation) -> None:
    """The latest admitted request gives its blocks back and waits first in line."""
    victim = run.running.pop()
    run.release(victim)
    run.waiting.appendleft(victim)


def _schedule_prefill_first(run: _Simulation) -> Work:
    """vLLM V0: whole prompts of waiting requests in a step of their own while budget, sequences and blocks allow;
    otherwise every running request decodes, the latest admitted preempted while a block is missing."""
    chunks: list[tuple[_Request, int]] = []
    budget = run.scheduler.max_num_batched_tokens
    while run.waiting and len(run.running) < run.scheduler.max_num_seqs:
        request = run.waiting[0]
        if request.to_prefill > budget or run.blocks_for(request, request.to_prefill) > run.free:
            break
        run.waiting.popleft()
        chunks.append((request, request.to_prefill))
        budget -= request.to_prefill
        run.hold(request, request.to_prefill)
        run.admit(request)
    if chunks:
        return [], chunks
    decode: list[_Request] = []
    for request in list(run.running):
        if request not in run.running:
            break  # preempted below while making room for an earlier one
        while run.blocks_for(request, 1) > run.free and run.running[-1] is not request:
            _preempt_latest(run)
        if run.blocks_for(request, 1) > run.free:
            break
        run.hold(request, 1)
        decode.append(request)
    return decode, []


def _schedule_sglang(run: _Simulation) -> Work:
    """SGLang: a prefill batch when one can be formed (the request whose prompt is being chunked first, then waiting
    requests while the reservation allows), decode of every running request otherwise."""
    chunks = _sglang_prefill(run)
    if chunks:
        return [], chunks
    return _sglang_decode(run), []


def _sglang_prefill(run: _Simulation) -> list[tuple[_Request, int]]:
    chunks: list[tuple[_Request, int]] = []
    chunk_left = run.scheduler.max_num_batched_tokens
    input_left = run.scheduler.max_prefill_tokens
    for request in [r for r in run.running if r.to_prefill > 0]:  # the chunked request goes on
        tokens = min(request.to_prefill, chunk_left, run.free)
        if tokens <= 0:
            continue
        run.hold(request, tokens)
        chunks.append((request, tokens))
        chunk_left -= tokens
        input_left -= tokens
        if tokens < request.to_prefill:
            return chunks
    reserved = sum(r.still_to_write * run.new_token_ratio for r in run.running if r.to_prefill == 0)
    room = run.free - reserved
    while run.waiting and chunk_left > 0 and input_left > 0 and len(run.running) < run.scheduler.max_num_seqs:
        request = run.waiting[0]
        total = request.to_prefill + request.still_to_write
        if total > room:
            break
        tokens = min(request.to_prefill, chunk_left)
        run.waiting.popleft()
        run.hold(request, tokens)
        run.admit(request)
        chunks.append((request, tokens))
        room -= total
        chunk_left -= tokens
        input_left -= tokens
        if tokens < request.to_prefill:
            break  # one chunked request at a time
    return chunks


def _sglang_decode(run: _Simulation) -> list[_Request]:
    """Every running request decodes one token; without room for them all, requests are retracted (those with the
    least output, then the longest prompt) and the ratio set to what the rest have really written."""
    decoding = [r for r in run.running if r.to_prefill == 0]
    if len(decoding) > run.free:
        while decoding and len(decoding) * SGLANG_RETRACT_DECODE_STEPS > run.free and len(decoding) > 1:
            victim = min(decoding, key=lambda r: (r.generated, -r.prompt))
            decoding.remove(victim)
            run.running.remove(victim)
            run.release(victim)
            run.waiting.append(victim)
        written = sum(r.generated for r in decoding)
        wanted = sum(r.output for r in decoding)
        run.new_token_ratio = min(1.0, (written + SGLANG_RETRACT_DECODE_STEPS * len(decoding)) / (wanted + 1))
    else:
        run.new_token_ratio = max(run.new_token_ratio - _SGLANG_DECAY, _SGLANG_MIN_RATIO)
    for request in decoding:
        run.hold(request, 1)
    return decoding


def simulate(step: StepModel, scheduler: Scheduler, test: LoadTest, max_steps: int = 400_000) -> LoadResult:
    """Runs ``test`` through ``scheduler``'s limits with ``step``'s costs until every request has finished."""
    block = max(1, scheduler.block_tokens)
    total_blocks = max(1, scheduler.kv_tokens // block)
    drawn = lengths(test)
    longest = max(p + o for p, o in drawn)
    if -(-longest // block) > total_blocks:
        raise ValueError("one request does not fit the KV cache")
    run = _Simulation(
        step,
        scheduler,
        block,
        total_blocks,
        arrivals(test),
        drawn,
        deque(range(test.requests)),
        test.max_concurrency or test.requests,
    )
    while len(run.done) < test.requests:
        run.send_due()
        if not run.running and not run.waiting:
            run.new_token_ratio = SGLANG_INIT_NEW_TOKEN_RATIO  # SGLang resets its estimate when idle
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
