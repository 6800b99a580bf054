"""What a serving benchmark sends and what it prints (docs/methodology.md §5.6): the requests of `vllm bench serve` or
SGLang's `bench_serving` (how many, how long their prompts and answers, all at once or at a rate, with or without a
concurrency limit) and the figures they report (output and total tokens per second, TTFT and TPOT at the mean,
median, 95th and 99th percentile). Pure Python, deterministic for a seed.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import mean, median

# The datasets a benchmark draws prompts from. "fixed": every request asks ``prompt_tokens`` and ``output_tokens``
# (`--dataset-name random` with its default range ratio 0). "random": lengths drawn uniformly within ± the range ratio
# (vllm/benchmarks/datasets.py RandomDataset: randint(L·(1 − r), L·(1 + r))). "sharegpt": real conversations, whose
# prompts and answers (stopped at the end-of-sequence token, often within a few tokens) spread far on either side of
# their mean; drawn here from the measured per-request lengths of three vLLM ShareGPT runs, as ratios to their mean at
# each percentile (data/sharegpt_lengths.json: github.com/LambdaLabsML/vllm-benchmark results/prompt_640), at least
# 1 token each; prompts and answers drawn independently.
DATASETS = ("fixed", "random", "sharegpt")
SHAREGPT_DATA = Path(__file__).resolve().parent / "data" / "sharegpt_lengths.json"
_SHAREGPT = json.loads(SHAREGPT_DATA.read_text(encoding="utf-8"))
SHAREGPT_PROMPTS: tuple[float, ...] = tuple(_SHAREGPT["input"])  # length ÷ mean at quantiles 0, 0.01, …, 1
SHAREGPT_OUTPUTS: tuple[float, ...] = tuple(_SHAREGPT["output"])


@dataclass(frozen=True, slots=True)
class LoadTest:
    """``requests`` prompts of ``prompt_tokens`` asking for ``output_tokens`` each (the means when ``dataset`` spreads
    them), all at once or at ``request_rate`` per second (Poisson, as the client draws it), with at most
    ``max_concurrency`` in flight when the client limits it."""

    requests: int
    prompt_tokens: int
    output_tokens: int
    request_rate: float | None = None  # None: every request at time 0 ("inf")
    max_concurrency: int | None = None
    seed: int = 0
    dataset: str = "fixed"
    range_ratio: float = 0.0  # "random" only


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


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0–1) by linear interpolation between the closest ranks; 0 for no values."""
    ordered = sorted(values)
    if not ordered:
        return 0.0
    rank = q * (len(ordered) - 1)
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def latency(values: list[float]) -> Latency:
    if not values:
        return Latency(0.0, 0.0, 0.0, 0.0)
    return Latency(mean(values), median(values), percentile(values, 0.99), percentile(values, 0.95))


def arrivals(test: LoadTest) -> list[float]:
    """When the client means to send each request: all at 0, or Poisson at ``request_rate``."""
    if not test.request_rate or test.request_rate <= 0:
        return [0.0] * test.requests
    draw = random.Random(test.seed)
    times, now = [], 0.0
    for _ in range(test.requests):
        now += draw.expovariate(test.request_rate)
        times.append(now)
    return times


def lengths(test: LoadTest) -> list[tuple[int, int]]:
    """(prompt, output) tokens of each request, as ``test.dataset`` draws them."""
    if test.dataset == "random" and test.range_ratio > 0:
        draw = random.Random(test.seed + 1)
        return [
            (_uniform(draw, test.prompt_tokens, test.range_ratio), _uniform(draw, test.output_tokens, test.range_ratio))
            for _ in range(test.requests)
        ]
    if test.dataset == "sharegpt" and test.requests > 1:
        prompts = _empirical(test.requests, test.prompt_tokens, SHAREGPT_PROMPTS, random.Random(test.seed + 2))
        outputs = _empirical(test.requests, test.output_tokens, SHAREGPT_OUTPUTS, random.Random(test.seed + 3))
        return list(zip(prompts, outputs, strict=True))
    return [(test.prompt_tokens, test.output_tokens)] * test.requests


def _uniform(draw: random.Random, length: int, ratio: float) -> int:
    return max(1, draw.randint(int(length * (1 - ratio)), int(length * (1 + ratio))))


def _empirical(count: int, mean_tokens: int, quantiles: Sequence[float], draw: random.Random) -> list[int]:
    """``count`` lengths drawn by inverse CDF from ``quantiles`` (values at evenly spaced quantiles 0 … 1, linear
    between them), scaled so that their mean is ``mean_tokens``; at least 1 token each."""
    steps = len(quantiles) - 1
    raw = []
    for _ in range(count):
        position = draw.random() * steps
        low = min(int(position), steps - 1)
        raw.append(quantiles[low] + (quantiles[low + 1] - quantiles[low]) * (position - low))
    scale = mean_tokens / mean(raw)
    return [max(1, round(value * scale)) for value in raw]
