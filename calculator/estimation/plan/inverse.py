"""The inverse questions: the longest context, or the most parallel requests, that fit on given hardware."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from models_catalog.architecture import ModelSpec

from ..memory.estimate import estimate
from ..memory.fit import GpuLike, budget_bytes, per_gpu_overhead_bytes
from ..workload import Breakdown, Mode, Workload

MAX_CONTEXT_SEARCHED = 1 << 24  # 16M tokens: beyond any released model
MAX_CONCURRENCY_SEARCHED = 1 << 16


def _budget(hardware: GpuLike, gpu_count: int, engine: str) -> int:
    return budget_bytes(hardware, engine) * max(1, gpu_count)


def _held(breakdown: Breakdown, gpu_count: int, machine_budget: int | None) -> int:
    """What ``gpu_count`` GPUs hold together for ``breakdown``: its total plus each further GPU's own start-up budget
    (fit.gpus_needed); a unified-memory machine (``machine_budget`` given) is one device."""
    if machine_budget is not None or gpu_count <= 1:
        return breakdown.total_bytes
    return breakdown.total_bytes + (gpu_count - 1) * per_gpu_overhead_bytes(breakdown)


def _largest(fits: Callable[[int], bool], low: int, high: int) -> int:
    """Largest n in [low, high] with fits(n), assuming fits is monotone (true then false); low - 1 if none."""
    if not fits(low):
        return low - 1
    if fits(high):
        return high
    while high - low > 1:
        mid = (low + high) // 2
        if fits(mid):
            low = mid
        else:
            high = mid
    return low


def max_context(
    spec: ModelSpec, workload: Workload, hardware: GpuLike, gpu_count: int = 1, budget_bytes: int | None = None
) -> int:
    """Longest context per request (tokens) that fits ``gpu_count`` GPUs within the engine's budget
    (fit.budget_bytes) with the workload's concurrency; capped at the model's own context limit when known; 0 when
    not even one token fits."""
    if workload.mode != Mode.INFERENCE:
        workload = replace(workload, mode=Mode.INFERENCE)
    # a unified-memory machine is one budget (its GPU memory limit), not GPUs
    budget = budget_bytes if budget_bytes is not None else _budget(hardware, gpu_count, workload.engine)
    cap = spec.max_context if spec.max_context and spec.max_context > 0 else MAX_CONTEXT_SEARCHED

    def fits(context: int) -> bool:
        return _held(estimate(spec, replace(workload, context=context)), gpu_count, budget_bytes) <= budget

    return max(0, _largest(fits, 1, cap))


def max_concurrency(
    spec: ModelSpec, workload: Workload, hardware: GpuLike, gpu_count: int = 1, budget_bytes: int | None = None
) -> int:
    """Most parallel requests of the workload's context that fit ``gpu_count`` GPUs within the engine's budget;
    0 if none."""
    if workload.mode != Mode.INFERENCE:
        workload = replace(workload, mode=Mode.INFERENCE)
    # a unified-memory machine is one budget (its GPU memory limit), not GPUs
    budget = budget_bytes if budget_bytes is not None else _budget(hardware, gpu_count, workload.engine)

    def fits(concurrency: int) -> bool:
        return _held(estimate(spec, replace(workload, concurrency=concurrency)), gpu_count, budget_bytes) <= budget

    return max(0, _largest(fits, 1, MAX_CONCURRENCY_SEARCHED))
