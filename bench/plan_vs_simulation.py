"""The planner's replica capacity against the request-level simulation: does a replica loaded at the rate the planner
sizes it for meet the latency targets when the simulation runs it request by request?

    .venv/bin/python bench/plan_vs_simulation.py [--requests 600] [--pct 95]

For each configuration the planner's steady-state model (calculator/estimation/plan/planner.py) gives the largest
batch within the targets and the output tokens per second it sustains; the continuous-batching simulation
(calculator/estimation/speed/batching.py) then serves Poisson arrivals at that rate (fixed prompt and answer lengths,
the planner's own assumption) and reports TTFT and TPOT at the median and the 95th percentile. Prints one row per
configuration and the seconds each took; needs the bundled catalog (`make data`).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from calculator.estimation import Workload  # noqa: E402
from calculator.estimation.plan.planner import Demand, replica_capacity  # noqa: E402
from calculator.estimation.speed.batching import simulate  # noqa: E402
from calculator.estimation.speed.load_test import LoadTest  # noqa: E402
from calculator.estimation.speed.schedulers import engine_scheduler  # noqa: E402
from calculator.estimation.speed.step_model import step_model  # noqa: E402
from models_catalog.specs import spec_from_recorded_folder  # noqa: E402
from pricing.gpus import gpu_by_slug  # noqa: E402

HUB = ROOT / "models_catalog" / "data" / "hub"
# (model, GPU, tensor-parallel GPUs, precision, engine): dense and MoE, Ampere, Ada and Hopper
CONFIGURATIONS = (
    ("meta-llama/Llama-3.1-8B-Instruct", "h100-sxm", 1, "bf16", "vllm"),
    ("meta-llama/Llama-3.1-8B-Instruct", "a100-80gb-sxm", 1, "bf16", "vllm"),
    ("meta-llama/Llama-3.1-8B-Instruct", "l40s", 1, "bf16", "vllm"),
    ("meta-llama/Llama-3.1-8B-Instruct", "h100-sxm", 1, "bf16", "sglang"),
    ("Qwen/Qwen3-30B-A3B", "h100-sxm", 1, "bf16", "vllm"),
    ("meta-llama/Llama-3.3-70B-Instruct", "h100-sxm", 2, "fp8", "vllm"),
    ("meta-llama/Llama-3.3-70B-Instruct", "h200-sxm", 4, "bf16", "vllm"),
    # bounded by the KV cache: the queue for a free place sets the rate
    ("Qwen/Qwen3-30B-A3B", "a100-80gb-sxm", 1, "bf16", "vllm"),
    ("zai-org/GLM-5.3-Flash", "b200", 2, "fp8", "vllm"),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=600)
    parser.add_argument("--pct", type=int, default=95, choices=(50, 95))
    parser.add_argument("--ttft", type=float, default=2.0, help="seconds")
    parser.add_argument("--tpot", type=float, default=50.0, help="milliseconds")
    parser.add_argument("--over", type=float, default=1.1, help="also simulate at this multiple of the planned rate")
    args = parser.parse_args()
    demand = Demand(1e9, ttft_target_s=args.ttft, tpot_target_s=args.tpot / 1000, percentile=args.pct)
    print(f"targets at p{args.pct}: TTFT < {args.ttft:g} s, TPOT < {args.tpot:g} ms; {demand.prompt} prompt and "
          f"{demand.output_tokens} answer tokens a request, {args.requests} Poisson arrivals")  # fmt: skip
    header = f"{'model':34s} {'gpu':14s} tp prec   engine | plan: c  out tok/s limit | sim: out tok/s"
    print(header + "  TTFT p50/p95 s  TPOT p50/p95 ms  peak running   secs | TTFT/TPOT p95 at the rate × over")
    for hub_id, slug, tp, precision, engine in CONFIGURATIONS:
        folder, gpu = HUB / hub_id, gpu_by_slug(slug)
        if not folder.is_dir() or gpu is None:
            print(f"{hub_id} on {slug}: not in the catalog")
            continue
        spec = spec_from_recorded_folder(folder)
        length = demand.prompt + demand.output_tokens
        workload = Workload(precision=precision, engine=engine, context=length, tensor_parallel=tp)
        step = step_model(spec, workload, gpu, tp)
        scheduler = engine_scheduler(spec, workload, gpu.capacity_bytes, gpu.name, tp, length)
        capacity = replica_capacity(step, scheduler, demand) if step is not None else None
        if step is None or capacity is None:
            print(f"{hub_id} on {tp} × {slug}: no capacity within the targets")
            continue
        started = time.perf_counter()
        rate = capacity.output_tokens_per_s / demand.output_tokens
        test = LoadTest(args.requests, demand.prompt, demand.output_tokens, request_rate=rate)
        try:
            result = simulate(step, scheduler, test)
            over = simulate(step, scheduler, replace(test, request_rate=rate * args.over))
        except ValueError as error:  # more steps than the simulation runs: the replica falls behind its arrivals
            print(
                f"{hub_id} on {tp} × {slug}: plan c {capacity.concurrency},"
                f" {capacity.output_tokens_per_s:,.0f} tok/s; {error}"
            )
            continue
        seconds = time.perf_counter() - started
        print(
            f"{hub_id.split('/')[1][:34]:34s} {slug:14s} {tp:2d} {precision:6s} {engine:6s} |"
            f" {capacity.concurrency:7d} {capacity.output_tokens_per_s:10,.0f} {capacity.limit:6s}|"
            f" {result.output_tokens_per_s:13,.0f}  {result.ttft_s.median:6.2f}/{result.ttft_s.p95:6.2f}"
            f"    {result.tpot_s.median * 1000:6.1f}/{result.tpot_s.p95 * 1000:6.1f}  {result.peak_running:12d}"
            f" {seconds:6.1f} | {over.ttft_s.p95:6.2f} s {over.tpot_s.p95 * 1000:5.1f} ms"
        )


if __name__ == "__main__":
    main()
