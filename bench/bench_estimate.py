"""Speed of the estimation core, in pure Python (no Django): ``.venv/bin/python bench/bench_estimate.py``.

Targets: one full estimate < 50 µs; the full set a model page needs (every precision × mode, and every GPU
type's fit for each) < 5 ms.
"""

from __future__ import annotations

import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from calculator.estimation import (  # noqa: E402
    PRECISIONS,
    Mode,
    Workload,
    estimate,
    gpus_needed,
    memo,
)
from calculator.estimation.plan.planner import Demand, replica_capacity  # noqa: E402
from calculator.estimation.speed.batching import simulate  # noqa: E402
from calculator.estimation.speed.load_test import LoadTest  # noqa: E402
from calculator.estimation.speed.schedulers import Scheduler  # noqa: E402
from calculator.estimation.speed.step_model import step_model  # noqa: E402
from models_catalog.architecture import ModelSpec  # noqa: E402
from models_catalog.specs import spec_from_recorded_folder  # noqa: E402
from pricing.gpus import load_gpus  # noqa: E402

MODELS = (
    "meta-llama/Llama-3.1-8B-Instruct",
    "zai-org/GLM-5.3-Flash",
    "deepseek-ai/DeepSeek-V3.2",
    "Qwen/Qwen3-Next-80B-A3B-Instruct",
    "openai/gpt-oss-120b",
    "google/gemma-3-27b-it",
)


def best_of(repeats: int, number: int, func) -> float:
    """Best mean seconds per call over ``repeats`` runs of ``number`` calls."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(number):
            func()
        best = min(best, (time.perf_counter() - start) / number)
    return best


def main() -> None:
    # Macs and unified-memory desktops are one machine each (apple_fit), never filled like GPUs: only cards are fitted
    gpus = [g for g in load_gpus() if g.segment not in ("apple", "unified-desktop")]
    workloads = [
        Workload(),
        Workload(precision="q4_k_m", engine="llama.cpp", context=32768, concurrency=4, kv_dtype="q8_0"),
        Workload(mode=Mode.QLORA),
    ]
    print(f"{'model':<36} {'one estimate':>14} {'cold (new spec)':>16} {'model page':>12}")
    for hub_id in MODELS:
        spec = spec_from_recorded_folder(ROOT / "models_catalog" / "data" / "hub" / hub_id)
        counter = iter(range(10**9))

        def one(spec: ModelSpec = spec, counter=counter) -> None:
            # a different context every call, so nothing but per-spec constants can be reused
            estimate(spec, replace(workloads[0], context=1024 + next(counter) % 100_000))

        def varied(spec: ModelSpec = spec) -> None:
            for workload in workloads:
                estimate(spec, workload)

        def cold(spec: ModelSpec = spec) -> None:
            memo.forget()
            estimate(spec)

        def page(spec: ModelSpec = spec) -> None:
            memo.forget()
            for precision in PRECISIONS:
                for mode in Mode:
                    total = estimate(spec, Workload(mode=mode, precision=precision)).total_bytes
                    for gpu in gpus:
                        gpus_needed(total, gpu)

        t_one = best_of(5, 2000, one)
        t_varied = best_of(5, 500, varied) / len(workloads)
        t_cold = best_of(5, 200, cold)
        t_page = best_of(5, 20, page)
        print(f"{hub_id:<36} {max(t_one, t_varied) * 1e6:>11.1f} µs {t_cold * 1e6:>13.1f} µs {t_page * 1e3:>9.2f} ms")
    print(
        f"model page = {len(PRECISIONS)} precisions × {len(Mode)} modes = {len(PRECISIONS) * len(Mode)} estimates, "
        f"each fitted to {len(gpus)} GPU types (Macs are fitted as one machine, not here), "
        "per-spec caches cleared first"
    )
    _load_and_planner()


def _load_and_planner() -> None:
    """The serving-load simulation (one published benchmark run) and the planner's replica search."""
    h100 = next(g for g in load_gpus() if g.slug == "h100-sxm")
    spec = spec_from_recorded_folder(ROOT / "models_catalog" / "data" / "hub" / "openai/gpt-oss-20b")
    workload = Workload(precision="mxfp4", context=4200)
    step = step_model(spec, workload, h100)
    assert step is not None
    scheduler = Scheduler(max_num_seqs=1024, max_num_batched_tokens=8192, kv_tokens=2_000_000)
    burst = LoadTest(requests=1000, prompt_tokens=215, output_tokens=195)
    long_prompts = LoadTest(requests=100, prompt_tokens=32000, output_tokens=100)
    t_burst = best_of(3, 1, lambda: simulate(step, scheduler, burst))
    t_long = best_of(3, 1, lambda: simulate(step, scheduler, long_prompts))
    t_plan = best_of(5, 50, lambda: replica_capacity(step, scheduler, Demand(1e9)))
    print(
        f"\nload simulation, gpt-oss-20b on one H100: 1,000 requests of 215 + 195 tokens {t_burst * 1e3:.0f} ms, "
        f"100 requests of 32,000 + 100 tokens {t_long * 1e3:.0f} ms; planner replica search {t_plan * 1e6:.0f} µs"
    )


if __name__ == "__main__":
    main()
