"""Error bands: how close the estimate came to the published measurements of one kind, engine and family, as a
model page states it beside a figure ("within ±9 % on 24 published runs")."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from calculator.estimation.speed.load_test import percentile
from models_catalog.architecture import AttentionKind, ModelSpec
from pricing.gpus import gpu_by_slug

from . import Case, Result
from .computed import kept_results

MIN_RUNS = 3  # fewer rows than this in a family: the band of the kind and engine over all families
# The serving benchmarks' throughput, the figure a planner's replica count stands on: total or output tokens per second
THROUGHPUT_KINDS = ("load_output_tps", "load_total_tps")
BAND_QUANTILE = 0.9  # the band holds nine rows in ten


@dataclass(frozen=True, slots=True)
class Band:
    kind: str
    engine: str
    family: str  # "" when the band covers every family of the kind and engine
    runs: int
    within_percent: float  # nine rows in ten are within ± this
    within_tolerance: int  # rows within the matrix's own tolerance
    gpu_family: str = ""  # "" when the band covers every GPU family
    # the signed errors (predicted − measured) ÷ measured that one row in twenty falls below and above: what a
    # measured figure may be, predicted ÷ (1 + error), between them
    low_error: float = 0.0
    high_error: float = 0.0


def validation_family(spec: ModelSpec) -> str:
    """The matrix's family of a model: "mla-moe", "gpt-oss", "hybrid", "vlm", "moe", "dense-swa", "dense-tied",
    "dense"."""
    kinds = {group.kind for group in spec.layer_groups if group.count}
    if AttentionKind.MLA in kinds and spec.is_moe:
        return "mla-moe"
    if spec.model_type == "gpt_oss":
        return "gpt-oss"
    if AttentionKind.LINEAR in kinds:
        return "hybrid"
    if spec.has_vision:
        return "vlm"
    if spec.is_moe:
        return "moe"
    if AttentionKind.SLIDING in kinds:
        return "dense-swa"
    if spec.tie_word_embeddings:
        return "dense-tied"
    return "dense"


# The GPU families a serving figure's band is read for: what changes how close the model comes (kernels, memory,
# interconnect), in the reader's words.
GPU_FAMILIES = ("Ampere", "Ada", "Hopper", "Blackwell", "AMD Instinct", "GeForce / Radeon", "Apple", "other")


def gpu_family(slug: str) -> str:
    """The family of the GPU ``slug`` names, one of GPU_FAMILIES ("other" for one the catalog lacks)."""
    gpu = gpu_by_slug(slug)
    if gpu is None:
        return "other"
    if gpu.vendor == "Apple":
        return "Apple"
    if gpu.vendor == "AMD":
        return "AMD Instinct" if gpu.segment == "datacenter" else "GeForce / Radeon"
    if gpu.segment == "consumer":
        return "GeForce / Radeon"
    for family in ("Ampere", "Ada", "Hopper", "Blackwell"):
        if gpu.architecture.startswith(family):
            return family
    return "other"


def case_gpu_family(case: Case) -> str:
    return gpu_family(str(case.settings.get("gpu", "")))


def band_of(
    results: Iterable[Result], kind: str | tuple[str, ...], engine: str, family: str, gpu: str = ""
) -> Band | None:
    """The band of ``kind`` (or of several kinds measuring one figure) for ``engine``, the model ``family`` and the
    GPU family ``gpu``: the narrowest of (GPU family and model family, GPU family, model family, all rows of the
    engine) that holds ``MIN_RUNS`` rows, known misses left out; None without rows of that kind and engine."""
    kinds = (kind,) if isinstance(kind, str) else kind
    # a known miss names a cause the figure beside it does not share (calculator/validation/__init__.py)
    rows = [
        r
        for r in results
        if r.case.kind in kinds and r.case.engine == engine and r.error is not None and not r.case.known_miss
    ]
    if not rows:
        return None
    on_gpu = [r for r in rows if gpu and case_gpu_family(r.case) == gpu]
    choices = (
        ([r for r in on_gpu if r.case.family == family], family, gpu),
        (on_gpu, "", gpu),
        ([r for r in rows if r.case.family == family], family, ""),
    )
    chosen, shown_family, shown_gpu = next(((c, f, g) for c, f, g in choices if len(c) >= MIN_RUNS), (rows, "", ""))
    errors = [abs(r.error or 0.0) for r in chosen]
    signed = [r.error or 0.0 for r in chosen]
    return Band(
        kind=kinds[0],
        engine=engine,
        family=shown_family,
        runs=len(chosen),
        within_percent=round(percentile(errors, BAND_QUANTILE) * 100),
        within_tolerance=sum(r.within for r in chosen),
        gpu_family=shown_gpu,
        low_error=percentile(signed, (1 - BAND_QUANTILE) / 2),
        high_error=percentile(signed, (1 + BAND_QUANTILE) / 2),
    )


@cache
def _results() -> tuple[Result, ...]:
    return tuple(kept_results())


def kept_band(kind: str | tuple[str, ...], engine: str, family: str, gpu: str = "") -> Band | None:
    """``band_of`` over the kept predictions (computed.py), read once per process."""
    return band_of(_results(), kind, engine, family, gpu)
