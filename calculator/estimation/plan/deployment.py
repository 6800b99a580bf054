"""Deployment plans: everything a reader is told about running one workload on one piece of hardware, computed once.

A ``GpuPlan`` is a workload (precision, engine, context, requests) on GPUs of one type: the need, what one GPU holds
for the engine (fit.budget_bytes, on the memory its runtime reports), the GPUs the memory needs, the GPUs billed (an
instance as sold, or exactly the count), the split the engine runs on them (tensor × pipeline parallel, each rank
holding its share, plan/placement.py), the nodes, and the decode speed one request sees at that split. A ``MacPlan`` is
the same workload on a Mac: its GPU limit out of the box on the reader's macOS, whether it fits before or after
raising ``iogpu.wired_limit_mb``, and the value to set. ``cloud_launch`` and ``mac_launch`` turn a plan and the
weights that hold its precision (engines/sourcing.py) into the engine's command.

The model page's ranking rows and commands, the local and "can it run" verdicts, the JSON API (which renders the
page) and the command line read these; the home and GPU pages and the FAQ read the count rule they are built on
(fit.gpus_needed, fit.budget_bytes). A GPU count, a split, a verdict or a command is decided in one place
(docs/methodology.md §4.9, §4.10, §4.5).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol

from models_catalog.architecture import ModelSpec

from ..engines.launch import LaunchConfig, launch_command
from ..engines.sourcing import SourceKind, WeightsSource
from ..memo import per_spec
from ..memory.estimate import estimate
from ..memory.fit import (
    DEFAULT_MACOS,
    FILL_FRACTION,
    MAX_GPUS_PER_NODE,
    AppleFit,
    GpuLike,
    ParallelPlan,
    apple_fit,
    budget_bytes,
    nodes_needed,
    per_gpu_overhead_bytes,
    plan_on_instance,
)
from ..memory.fit import gpus_needed as count_gpus
from ..speed.estimate import speed
from ..speed.work import SpeedHardware
from ..workload import Workload
from .placement import dp_attention_fit, engine_plan, rank_fit

TENSOR_PARALLEL_LAUNCH = ("vllm", "sglang")
LAYER_SPLIT_LAUNCH = ("llama.cpp", "ollama")  # engines that share a model's layers out over the GPUs


@dataclass(frozen=True, slots=True)
class GpuPlan:
    """A workload on GPUs of one type."""

    gpu_slug: str
    engine: str
    need_bytes: int  # the whole need, all GPUs together
    budget_bytes: int  # what one GPU holds for the engine
    gpus_needed: int  # GPUs the memory needs
    instance_gpus: int  # GPUs billed: the instance as sold, or the count itself
    layout: ParallelPlan  # the split the engine runs: tensor × pipeline parallel over ``layout.gpus_run`` GPUs
    tokens_per_s_low: float | None  # decode speed one request sees at the layout's tensor-parallel degree
    tokens_per_s_high: float | None
    throughput_low: float | None  # tokens/s all the workload's requests together (lower end): what a token costs

    @property
    def tensor_parallel(self) -> int:
        return self.layout.tensor_parallel

    @property
    def pipeline_stages(self) -> int:
        return self.layout.pipeline_stages

    @property
    def attention_data_parallel(self) -> int:
        """GPUs that each run attention for their own requests (1: plain tensor parallelism)."""
        return self.layout.attention_data_parallel

    @property
    def gpus_run(self) -> int:
        return self.layout.gpus_run

    @property
    def idle_gpus(self) -> int:
        """GPUs billed that the engine's split leaves unused."""
        return max(0, self.instance_gpus - self.layout.gpus_run)

    @property
    def nodes(self) -> int:
        """Nodes of at most 8 GPUs the engine's split spans."""
        return nodes_needed(self.layout.gpus_run)

    @property
    def fits_one_gpu(self) -> bool:
        return self.gpus_needed == 1

    @property
    def fits_one_node(self) -> bool:
        return self.gpus_needed <= MAX_GPUS_PER_NODE


class PlannedGpu(GpuLike, SpeedHardware, Protocol):
    """A GPU record a plan reads: slug, name, nameplate and runtime memory, bandwidth and compute."""


def gpu_plan(
    spec: ModelSpec,
    workload: Workload,
    gpu: PlannedGpu,
    *,
    need_bytes: int | None = None,
    instance_gpus: int | None = None,
    gpus_needed: int | None = None,
) -> GpuPlan:
    """``workload`` on GPUs of type ``gpu``: on an instance of ``instance_gpus`` as sold (the ranking's row, whose
    count ``gpus_needed`` it already made), else on exactly the GPUs the memory needs. ``need_bytes``: the
    estimate, when the caller has it."""
    breakdown = estimate(spec, workload)
    need = need_bytes if need_bytes is not None else breakdown.total_bytes
    budget = budget_bytes(gpu, workload.engine)
    per_gpu = per_gpu_overhead_bytes(breakdown)
    needed = gpus_needed if gpus_needed is not None else count_gpus(need, gpu, workload.engine, per_gpu)
    if instance_gpus is not None:
        fits, dp_fits = rank_fit(spec, workload, gpu), dp_attention_fit(spec, workload, gpu)
        layout = plan_on_instance(instance_gpus, needed, spec.num_attention_heads, spec.num_kv_heads, fits, dp_fits)
    else:
        layout = engine_plan(spec, workload, gpu, needed)
    low, high, total = _decode_speed(spec, run_workload(workload, layout), gpu, layout.tensor_parallel)
    return GpuPlan(
        gpu_slug=gpu.slug,
        engine=workload.engine,
        need_bytes=need,
        budget_bytes=budget,
        gpus_needed=needed,
        instance_gpus=instance_gpus if instance_gpus is not None else layout.gpus_run,
        layout=layout,
        tokens_per_s_low=low,
        tokens_per_s_high=high,
        throughput_low=total,
    )


def run_workload(workload: Workload, layout: ParallelPlan) -> Workload:
    """``workload`` as the layout runs it: with its data-parallel attention ranks, which change what each GPU
    holds and reads (the speed model and the batch a plan sustains read it)."""
    if layout.attention_data_parallel == workload.attention_data_parallel:
        return workload
    return replace(workload, attention_data_parallel=layout.attention_data_parallel)


def _decode_speed(
    spec: ModelSpec, workload: Workload, gpu: PlannedGpu, tensor_parallel: int
) -> tuple[float | None, float | None, float | None]:
    """(per request low, high, all requests low). A request passes the pipeline stages one after another, each
    reading its share of the layers at the tensor-parallel degree: per request, the speed of the whole model at that
    degree (docs/methodology.md §4.9)."""
    if not gpu.memory_bandwidth_gbps:
        return None, None, None

    def compute() -> tuple[float | None, float | None, float | None]:
        found = speed(spec, workload, gpu, tensor_parallel)
        return found.per_request_tokens_per_s_low, found.per_request_tokens_per_s_high, found.decode_tokens_per_s_low

    return per_spec("plan-speed", spec, (workload, gpu.slug, gpu.memory_bandwidth_gbps, tensor_parallel), compute)


@dataclass(frozen=True, slots=True)
class MacPlan:
    """A workload on a Mac of ``ram_bytes`` unified memory on macOS ``macos``."""

    need_bytes: int
    ram_bytes: int
    macos: str
    fit: AppleFit

    @property
    def verdict(self) -> str:
        """ "fits" out of the box, "raise" the GPU limit first, or "no"."""
        if self.fit.fits_default:
            return "fits"
        return "raise" if self.fit.fits_after_raise else "no"

    @property
    def wired_limit_mb(self) -> int | None:
        """The ``iogpu.wired_limit_mb`` value to set, when raising is needed and helps."""
        return self.fit.wired_limit_mb


def mac_plan(spec: ModelSpec, workload: Workload, ram_bytes: int, macos: str = DEFAULT_MACOS) -> MacPlan:
    need = estimate(spec, workload).total_bytes
    return mac_plan_for_need(need, ram_bytes, macos)


def mac_plan_for_need(need_bytes: int, ram_bytes: int, macos: str = DEFAULT_MACOS) -> MacPlan:
    """A need already estimated (a ranking of options computes each once) on a Mac."""
    return MacPlan(need_bytes, ram_bytes, macos, apple_fit(need_bytes, ram_bytes, macos))


@dataclass(frozen=True, slots=True)
class Serving:
    """What the command serves: context per request, requests at once, KV-cache precision."""

    context: int
    concurrency: int
    kv_dtype: str = "fp16"
    mtp_draft: bool = False  # the model's MTP layers as the draft of speculative decoding (vLLM and SGLang)


def cloud_launch(plan: GpuPlan, source: WeightsSource, serving: Serving, engine: str) -> str:
    """The command of ``engine`` that runs ``plan`` with the weights ``source`` names ("" when no build holds the
    precision): vLLM and SGLang with the split the plan priced and the memory share the GPU count assumed;
    llama.cpp and Ollama with every layer on the GPUs, which they share out in proportion to their memory."""
    if not source.runnable:
        return ""
    if engine in LAYER_SPLIT_LAUNCH:
        return launch_command(
            LaunchConfig(
                engine=engine,
                model=source.model,
                from_hub=source.kind is SourceKind.PUBLISHED,
                context=serving.context,
                concurrency=serving.concurrency,
                kv_dtype=serving.kv_dtype,
                prepare=source.prepare,
            )
        ).script
    if engine not in TENSOR_PARALLEL_LAUNCH:
        return ""
    return launch_command(
        LaunchConfig(
            engine=engine,
            model=source.model,
            context=serving.context,
            concurrency=serving.concurrency,
            quantization=source.quantization,
            kv_dtype=serving.kv_dtype,
            tensor_parallel=plan.tensor_parallel,
            pipeline_parallel=plan.pipeline_stages,
            attention_data_parallel=plan.attention_data_parallel,
            nodes=plan.nodes,
            gpu_memory_utilization=FILL_FRACTION,  # the share fit.usable_bytes counted on
            max_num_seqs=serving.concurrency if serving.concurrency > 1 else None,
            prepare=source.prepare,
            mtp_draft=serving.mtp_draft,
        )
    ).script


def mac_launch(plan: MacPlan, source: WeightsSource, serving: Serving) -> str:
    """The mlx_lm.server command (with the sysctl line when the limit must be raised) for ``plan``; "" when it
    does not fit or no build holds the width."""
    if not source.runnable or plan.verdict == "no":
        return ""
    return launch_command(
        LaunchConfig(
            engine="mlx",
            model=source.model,
            context=serving.context,
            concurrency=serving.concurrency,
            wired_limit_mb=plan.wired_limit_mb,
            prepare=source.prepare,
        )
    ).script
