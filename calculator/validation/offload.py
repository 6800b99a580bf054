"""Predictors for llama.cpp's load-time buffer sizes under GPU + RAM offload (calculator/estimation/offload.py).

A case's ``settings`` name the model, the GGUF type (``ftype``), the context and the placement as the log's command
gave it: ``placement`` ("gpu", "experts_cpu", "n_cpu_moe", "layers"), ``cpu_moe_layers`` (--n-cpu-moe N),
``gpu_layers`` (-ngl N). ``offload_gpu_bytes`` is the sum of the log's "CUDA<n> model buffer size" lines;
``offload_host_bytes`` its "CPU model buffer size" (run with --no-mmap: the mapped buffer of an mmap run spans the
file between the first and the last host tensor, GPU tensors included).
"""

from __future__ import annotations

from calculator.estimation.offload import OffloadSplit, Placement, offload_split

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
