"""Predictors for serving benchmarks under load: total and output tokens per second, median TTFT and TPOT of
`vllm bench serve` / SGLang `bench_serving` runs, from the continuous-batching simulation (docs/methodology.md §5.6;
calculator/estimation/speed/batching.py).

Settings: ``model``, ``precision``, ``engine``, ``release`` (vLLM), ``gpu``, ``gpus`` (tensor parallel), ``prompt``
and ``output`` (tokens per request, the means where ``dataset`` spreads them: "sharegpt", "random" with
``random_range_ratio``), ``requests``, ``request_rate`` (None: all at once), ``max_concurrency``, and the engine flags a
run set: ``max_num_seqs``, ``max_num_batched_tokens`` (SGLang: ``chunked_prefill_size``), ``kv_dtype``,
``gpu_memory_utilization`` (SGLang: ``mem_fraction_static``) and ``data_parallel`` (engines that each serve an equal
share of the requests).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from calculator.estimation import Workload
from calculator.estimation.speed.batching import simulate
from calculator.estimation.speed.load_test import DATASETS, Latency, LoadResult, LoadTest
from calculator.estimation.speed.schedulers import engine_scheduler
from calculator.estimation.speed.step_model import step_model
from pricing.gpus import gpu_by_slug

from . import Case, predictor
from .kv import case_spec


def _key(case: Case) -> tuple[object, ...]:
    s = case.settings
    return (*sorted((k, str(v)) for k, v in s.items()), case.engine)


def _result(case: Case) -> LoadResult:
    return _simulated(_key(case), case)


_RESULTS: dict[tuple[object, ...], LoadResult] = {}


def _simulated(key: tuple[object, ...], case: Case) -> LoadResult:
    if key in _RESULTS:
        return _RESULTS[key]
    s = case.settings
    gpu = gpu_by_slug(str(s["gpu"]))
    if gpu is None:
        raise LookupError(f"no GPU {s['gpu']!r} in the catalog")
    spec = case_spec(case)
    engine = str(s.get("engine", case.engine))
    tp = int(s.get("gpus", 1))
    prompt, output = int(s["prompt"]), int(s["output"])
    workload = Workload(
        precision=str(s.get("precision", "bf16")),
        engine=engine,
        kv_dtype=str(s.get("kv_dtype", "bf16")),
        context=prompt + output,
        tensor_parallel=tp,
        engine_release=str(s.get("release", "")),
    )
    step = step_model(spec, workload, gpu, tp)
    if step is None:
        raise LookupError("no memory bandwidth for this GPU")
    max_model_len = max(prompt + output, min(spec.max_context or 32768, 32768))
    utilization = s.get("gpu_memory_utilization", s.get("mem_fraction_static"))
    scheduler = engine_scheduler(
        spec, workload, gpu.capacity_bytes, gpu.name, tp, max_model_len, float(utilization) if utilization else None
    )
    batched = s.get("max_num_batched_tokens", s.get("chunked_prefill_size", scheduler.max_num_batched_tokens))
    scheduler = replace(
        scheduler,
        max_num_seqs=int(s.get("max_num_seqs", scheduler.max_num_seqs)),
        max_num_batched_tokens=int(batched),
    )
    replicas = max(1, int(s.get("data_parallel", 1)))
    one = simulate(step, scheduler, _load_test(s, prompt, output, replicas))
    _RESULTS[key] = _times(one, replicas)
    return _RESULTS[key]


def _times(one: LoadResult, replicas: int) -> LoadResult:
    """What ``replicas`` data-parallel engines serve when each gets an equal share of the requests: the rates add up,
    the latencies are one engine's."""
    if replicas == 1:
        return one
    return replace(
        one,
        completed=one.completed * replicas,
        input_tokens=one.input_tokens * replicas,
        output_tokens=one.output_tokens * replicas,
        output_tokens_per_s=one.output_tokens_per_s * replicas,
        total_tokens_per_s=one.total_tokens_per_s * replicas,
        requests_per_s=one.requests_per_s * replicas,
    )


def _load_test(s: Mapping[str, Any], prompt: int, output: int, replicas: int = 1) -> LoadTest:
    """The benchmark one of ``replicas`` data-parallel engines sees: its share of the requests, the rate and the
    client's concurrency limit."""
    rate = s.get("request_rate")
    limit = int(s["max_concurrency"]) if s.get("max_concurrency") else None
    dataset = str(s.get("dataset", "fixed"))
    ratio = float(s.get("random_range_ratio", 0.0))
    return LoadTest(
        requests=max(1, -(-int(s["requests"]) // replicas)),
        prompt_tokens=prompt,
        output_tokens=output,
        request_rate=float(rate) / replicas if rate is not None else None,
        max_concurrency=max(1, -(-limit // replicas)) if limit else None,
        dataset=dataset if dataset in DATASETS else "fixed",
        range_ratio=ratio,
    )


@predictor("load_total_tps")
def load_total_tps(case: Case) -> float:
    return _result(case).total_tokens_per_s


@predictor("load_output_tps")
def load_output_tps(case: Case) -> float:
    return _result(case).output_tokens_per_s


def _latency_ms(measure: str, statistic: str) -> Callable[[Case], float]:
    """The predictor of a benchmark's ``measure`` ("ttft_s" or "tpot_s") at ``statistic`` ("mean", "median", "p99"),
    in milliseconds."""

    def predict(case: Case) -> float:
        latency: Latency = getattr(_result(case), measure)
        return float(getattr(latency, statistic)) * 1000

    return predict


# load_ttft_median_ms, load_tpot_p99_ms, …: the time to first token and per output token at each statistic printed
for _measure in ("ttft", "tpot"):
    for _statistic in ("mean", "median", "p99"):
        predictor(f"load_{_measure}_{_statistic}_ms")(_latency_ms(f"{_measure}_s", _statistic))
