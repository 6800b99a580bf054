"""Predictors for published decode and prefill speeds (docs/methodology.md §5; calculator/estimation/speed/estimate.py).

Settings: ``model`` (a catalog Hub id), ``precision``, ``gpu`` (a slug of pricing/data/gpus.json), ``gpus``,
``concurrency``, ``context`` (tokens in each sequence's cache while it decodes), ``prompt`` (prefill length).
"""

from __future__ import annotations

from dataclasses import replace

from calculator.estimation import SpeedEstimate, speed
from pricing.gpus import gpu_by_slug

from . import Case, predictor
from .kv import case_spec, case_workload


def _estimate(case: Case) -> SpeedEstimate:
    gpu = gpu_by_slug(str(case.settings["gpu"]))
    if gpu is None:
        raise LookupError(f"no GPU {case.settings['gpu']!r} in the catalog")
    workload = case_workload(case)
    if "load_mtp_layers" in case.settings:
        workload = replace(workload, load_mtp_layers=bool(case.settings["load_mtp_layers"]))
    prompt = case.settings.get("prompt")
    return speed(
        case_spec(case),
        workload,
        gpu,
        int(case.settings.get("gpus", 1)),
        prompt_tokens=int(prompt) if prompt is not None else None,
    )


def _value(value: float | None, what: str, found: SpeedEstimate) -> float:
    if value is None:
        raise LookupError(f"no {what}: the GPU lacks {', '.join(found.missing) or 'a figure'}")
    return value


@predictor("decode_tps")
def decode_tps(case: Case) -> float:
    found = _estimate(case)
    return _value(found.decode_per_request, "decode speed", found)


@predictor("decode_total_tps")
def decode_total_tps(case: Case) -> float:
    found = _estimate(case)
    if "tflops" in found.missing:  # batched decode turns compute bound; without FLOPs it cannot be bounded
        raise LookupError("no FLOPs figure for this GPU: batched decode cannot be estimated")
    return _value(found.decode_total, "decode speed", found)


@predictor("prefill_tps")
def prefill_tps(case: Case) -> float:
    found = _estimate(case)
    return _value(found.prefill_tokens_per_s, "prefill speed", found)
