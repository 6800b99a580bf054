"""Predictors for engine-reported KV-cache sizes and vLLM's loaded weights (docs/methodology.md §3, §4.1)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from calculator.estimation import GIB, Workload, estimate
from models_catalog.architecture import ModelSpec
from models_catalog.specs import spec_from_recorded_folder

from . import Case, predictor

HUB = Path(__file__).resolve().parents[2] / "models_catalog" / "data" / "hub"


def case_spec(case: Case) -> ModelSpec:
    """The spec of the catalog model a case names (its recorded Hub folder)."""
    return spec_from_recorded_folder(HUB / str(case.settings["model"]))


def case_workload(case: Case, **defaults: Any) -> Workload:
    settings: dict[str, Any] = {**defaults, **case.settings}
    return Workload(
        precision=str(settings.get("precision", "fp16")),
        engine=str(settings.get("engine", case.engine)),
        kv_dtype=str(settings.get("kv_dtype", "fp16")),
        context=int(settings.get("context", 8192)),
        concurrency=int(settings.get("concurrency", 1)),
    )


@predictor("kv_bytes_per_token")
def kv_bytes_per_token(case: Case) -> float:
    term = estimate(case_spec(case), case_workload(case)).term("kv_cache")
    if term is None:
        raise LookupError("the estimate has no KV-cache term")
    return float(term.inputs["bytes_per_token"])


@predictor("vllm_weights_gib")
def vllm_weights_gib(case: Case) -> float:
    breakdown = estimate(case_spec(case), case_workload(case, engine="vllm"))
    return breakdown.weights_bytes / GIB
