"""The throughput a configuration sustains when it is a cost: the most requests at a time whose KV cache fits beside
the weights and whose per-request speed stays at or above the reader's floor, along the speed model's batch curve
(speed/estimate.py: one decode step reads the weights once for the whole batch, so the total grows with the batch while
each request slows down). The break-even against a hosted API and the cost per million tokens use this point, not one
request at a time (GLM-5.3-Flash on its cheapest configuration: 80–94 M tokens a month at one request, thousands of
tokens per second at a hundred).

Pure Python: the speed model is the only input.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from models_catalog.architecture import ModelSpec

from ..workload import Workload
from .estimate import decode_rates, max_concurrency
from .work import SpeedHardware

# The batch sizes tried, doubling: a server's scheduler runs whatever arrives, so the curve is sampled, not solved.
# 256 is vLLM's default --max-num-seqs below 70 GiB of GPU memory (vllm/engine/arg_utils.py, v0.11); a larger batch
# is a tuning the page does not assume.
CONCURRENCY_STEPS: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64, 128, 256)
# Tokens per second each request sees at least, unless the reader sets another floor: about 50 ms per token, faster
# than people read a streamed answer. A choice the page states, not a measured figure.
DEFAULT_MIN_TOKENS_PER_S = 20


@dataclass(frozen=True, slots=True)
class Sustained:
    concurrency: int  # requests at a time
    tokens_per_s: float  # all of them together, the low end of the estimate
    per_request_tokens_per_s: float  # what each request sees, low end
    limit: str  # what stops a larger batch: "memory" (KV cache), "latency" (the floor), "batch" (the largest tried)
    meets_floor: bool  # False when even one request is slower than the floor


def sustained_throughput(
    spec: ModelSpec,
    workload: Workload,
    hardware: SpeedHardware,
    gpu_count: int,
    min_tokens_per_s: float,
    memory_gpus: int | None = None,
) -> Sustained | None:
    """The largest batch that fits on ``memory_gpus`` GPUs of ``hardware`` (default ``gpu_count``) and keeps every
    request at or above ``min_tokens_per_s`` when a step runs at ``gpu_count``-way tensor parallelism (pipeline
    stages hold memory but a request passes them one after another); None when the hardware lacks the figures a
    speed needs."""
    rates = decode_rates(spec, workload, hardware, gpu_count, CONCURRENCY_STEPS)
    if rates is None:
        return None
    each_one, total_one = rates[1]
    best = Sustained(1, total_one, each_one, "batch", True)
    if each_one < min_tokens_per_s:
        return replace(best, limit="latency", meets_floor=False)
    room = max_concurrency(spec, workload, hardware, max(gpu_count, memory_gpus or gpu_count))
    candidates = [c for c in CONCURRENCY_STEPS[1:] if room is None or c <= room]
    if room is not None and 1 < room < CONCURRENCY_STEPS[-1] and room not in candidates:
        candidates.append(room)
        rates |= decode_rates(spec, workload, hardware, gpu_count, (room,)) or {}
    limit = "memory" if room is not None and room < CONCURRENCY_STEPS[-1] else "batch"
    for batch in candidates:
        each, total = rates[batch]
        if each < min_tokens_per_s:
            limit = "latency"
            break
        if total > best.tokens_per_s:
            best = Sustained(batch, total, each, limit, True)
    return replace(best, limit=limit)
