"""Predictors for engine-reported KV-cache sizes and vLLM's loaded weights (docs/methodology.md §3, §4.1)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from calculator.estimation import GIB, Workload, estimate
from models_catalog.architecture import ModelSpec, ParamCounts
from models_catalog.specs import spec_from_config, spec_from_recorded_folder

from . import Case, predictor

HUB = Path(__file__).resolve().parents[2] / "models_catalog" / "data" / "hub"
# configs of models published benchmarks measure that the catalog does not hold (each file names its source)
CONFIGS = Path(__file__).resolve().parent / "configs"


def case_spec(case: Case) -> ModelSpec:
    """The spec of the catalog model a case names (its recorded Hub folder), or of a measured-only model whose
    config the matrix keeps (``configs/<org>--<name>.json``)."""
    model = str(case.settings["model"])
    kept = CONFIGS / (model.replace("/", "--") + ".json")
    if not (HUB / model).is_dir() and kept.is_file():
        document = json.loads(kept.read_text(encoding="utf-8"))
        total = int(document["parameters"])
        return spec_from_config(document["config"], ParamCounts(total=total, active=total, source="reference"))
    return spec_from_recorded_folder(HUB / model)


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
