"""Whether every GPU of a tensor-parallel split holds its own share (docs/methodology.md §3.1, §3.2, §4.9, §4.11).

The count for the whole need (fit.gpus_needed) assumes every byte splits evenly over the GPUs. Under tensor
parallelism in vLLM and SGLang it does not: each rank keeps the whole MLA latent cache (it has no heads to split) and
a copy of every KV head beyond their count, so more ranks add cache instead of room; pipeline stages, each holding
its layers and their cache, divide it. DeepSeek-V3 at 128K tokens × 16 requests (918 GB) fills 8 × H200 by that
count, but at TP 8 each rank would hold the whole 147 GB latent beside its eighth of the weights, more than an H200
has: the engine must run fewer ranks and more stages (TP 1 × 8 stages always holds what the count assumed), or,
for an MLA model with routed experts, data-parallel attention over the 8 (engines/dp_attention.py, §4.11: each GPU
caches its own requests). Fine-tuning and layer-split engines (llama.cpp, Ollama, MLX) repeat nothing per GPU.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from models_catalog.architecture import ModelSpec

from ..engines.dp_attention import offers_dp_attention
from ..memory.estimate import estimate
from ..memory.fit import (
    MAX_GPUS_PER_NODE,
    GpuLike,
    ParallelPlan,
    budget_bytes,
    fits_per_gpu,
    gpus_to_run,
    per_gpu_overhead_bytes,
    plan_on_instance,
    tensor_parallel_degrees,
)
from ..workload import Mode, Workload

# Engines that split a replica by tensor parallelism (and repeat the MLA latent and surplus KV heads per rank).
TENSOR_PARALLEL_ENGINES = frozenset({"vllm", "sglang", "tensorrt-llm"})


def rank_fit(spec: ModelSpec, workload: Workload, gpu: GpuLike) -> Callable[[int, int], bool] | None:
    """``fits(tp, n)``: whether each of n GPUs of type ``gpu`` holds its share of ``workload`` at tensor-parallel
    degree tp (n = tp × stages) within the engine's budget; None where nothing is repeated per GPU (every split fits
    alike)."""
    if workload.mode is not Mode.INFERENCE or workload.engine.lower() not in TENSOR_PARALLEL_ENGINES:
        return None
    budget = budget_bytes(gpu, workload.engine)
    found: dict[tuple[int, int], bool] = {}

    def fits(tp: int, gpus: int) -> bool:
        if (tp, gpus) not in found:
            breakdown = estimate(spec, replace(workload, tensor_parallel=tp))
            total = breakdown.total_bytes + (gpus - 1) * per_gpu_overhead_bytes(breakdown)  # each rank's budget
            found[(tp, gpus)] = fits_per_gpu(total, gpus, budget)
        return found[(tp, gpus)]

    return fits


def dp_attention_fit(spec: ModelSpec, workload: Workload, gpu: GpuLike) -> Callable[[int], bool] | None:
    """``fits(n)``: whether each of n GPUs of type ``gpu`` holds its share of ``workload`` with data-parallel
    attention (engines/dp_attention.py: the attention whole on each, only its own requests' cache); None where the
    engine does not offer it for this model or the workload is not inference."""
    if workload.mode is not Mode.INFERENCE or not offers_dp_attention(spec, workload.engine):
        return None
    budget = budget_bytes(gpu, workload.engine)
    found: dict[int, bool] = {}

    def fits(ranks: int) -> bool:
        if ranks not in found:
            breakdown = estimate(spec, replace(workload, tensor_parallel=ranks, attention_data_parallel=ranks))
            total = breakdown.total_bytes + (ranks - 1) * per_gpu_overhead_bytes(breakdown)
            found[ranks] = fits_per_gpu(total, ranks, budget)
        return found[ranks]

    return fits


def engine_plan(spec: ModelSpec, workload: Workload, gpu: GpuLike, count: int) -> ParallelPlan:
    """The split an engine runs for ``count`` GPUs of type ``gpu`` (gpus_needed's count) where no instance is named
    (the command line, the FAQ, the runs-on and GPU pages): within a node, on exactly those GPUs, as a per-GPU
    marketplace instance of that size runs it (fit.plan_on_instance: 5 × H100 as TP 1 × 5 stages, 6 as TP 2 × 3);
    beyond a node, on whole nodes (fit.gpus_to_run), tensor parallel within each node and pipeline stages across
    them (10 needed run as 16 = TP 8 × 2 stages on two nodes), at the widest degree whose ranks each hold their
    share (DeepSeek-V3's latent at long context forces narrower)."""
    fits = rank_fit(spec, workload, gpu)
    if count <= MAX_GPUS_PER_NODE:
        dp_fits = dp_attention_fit(spec, workload, gpu)
        return plan_on_instance(count, count, spec.num_attention_heads, spec.num_kv_heads, fits, dp_fits)
    run = gpus_to_run(count)
    allowed = tensor_parallel_degrees(spec.num_attention_heads, spec.num_kv_heads)
    within_node = [tp for tp in reversed(allowed) if MAX_GPUS_PER_NODE % tp == 0]
    tp = next((tp for tp in within_node if tp == 1 or fits is None or fits(tp, run)), 1)
    return ParallelPlan(count, tp, run // tp, run)
