"""Predictors for llama.cpp's load-time buffer sizes under GPU + RAM offload (calculator/estimation/plan/offload.py).

A case's ``settings`` name the model, the GGUF type (``ftype``), the context and the placement as the log's command
gave it: ``placement`` ("gpu", "experts_cpu", "n_cpu_moe", "layers"), ``cpu_moe_layers`` (--n-cpu-moe N),
``gpu_layers`` (-ngl N), ``gpus`` (the CUDA devices that share the layers).

``offload_gpu_bytes`` is the sum of the log's ``CUDA<n> model buffer size`` lines (all GPUs together).
``offload_host_bytes`` is the sum of its host model buffers: ``CPU`` and ``CUDA_Host`` (pinned host memory, used for
host tensors when a GPU is present), read from a --no-mmap run. With mmap (the default) the host buffer is one
``CPU_Mapped`` view per file from its first to its last host tensor (ggml-org/llama.cpp ``src/llama-model.cpp``
``load_tensors``: ``get_mapping_range``, then ``buffer_from_host_ptr(addr + first, last - first)``), so it also
spans every GPU tensor stored between them; such a figure measures the host weights only when the CUDA and
``CPU_Mapped`` buffers add up to the file's tensor data, and is not recorded otherwise.
"""

from __future__ import annotations

from calculator.estimation.plan.offload import OffloadSplit, Placement, offload_split

from . import Case, predictor
from .kv import case_spec, case_workload


def _split(case: Case) -> OffloadSplit:
    settings = case.settings
    workload = case_workload(case, engine="llama.cpp", precision=str(settings["ftype"]).lower())
    return offload_split(
        case_spec(case),
        workload,
        placement=Placement(str(settings.get("placement", "gpu"))),
        gpus=int(settings.get("gpus", 1)),
        cpu_moe_layers=int(settings.get("cpu_moe_layers", 0)),
        gpu_layers=settings.get("gpu_layers"),
    )


@predictor("offload_gpu_bytes")
def offload_gpu_bytes(case: Case) -> float:
    return float(_split(case).gpu_weights_bytes)


@predictor("offload_host_bytes")
def offload_host_bytes(case: Case) -> float:
    return float(_split(case).host_weights_bytes)
