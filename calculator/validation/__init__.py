"""The validation matrix: every published measurement the estimates are checked against, and the check itself.

Pure Python (no Django). Each file in ``calculator/validation/data/*.json`` holds a list of measured cases of one
kind (published GGUF file sizes, engine start-up logs, fine-tuning peak memory, decode speeds, …), each with its
source, the settings it was measured at and the engine or framework version. A *predictor* per kind — a module of
this package that registers itself with ``@predictor("kind")`` — recomputes the figure from the estimation core.
``run()`` compares each case with its prediction; a case outside its tolerance fails the test suite
(``tests/calculator/test_validation.py``) and shows in ``manage.py validate``.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from statistics import mean
from typing import Any

DATA_DIR = Path(__file__).resolve().parent / "data"
# Kinds whose model is calibrated on the rows themselves (serving benchmarks under load, docs/methodology.md §5.6,
# §5.8): a row may fall outside its tolerance without a named cause, but the kind as a whole must keep at least this
# share of its rows within (known misses left out), so the calibration cannot drift unseen. The floors sit just under
# what the model reaches on 2026-12-05 with measured ShareGPT lengths (throughput 63 %, time per token 61 % at the
# median and 54 % at the 99th percentile, time to first token 71 % and 72 %), never above: a floor is a ratchet, not a
# target.
AGGREGATE_KINDS: Mapping[str, float] = {
    "load_total_tps": 0.6,
    "load_output_tps": 0.6,
    "load_tpot_median_ms": 0.55,
    "load_tpot_mean_ms": 0.55,
    "load_tpot_p99_ms": 0.5,
    "load_ttft_median_ms": 0.65,
    "load_ttft_mean_ms": 0.65,
    "load_ttft_p99_ms": 0.6,
}
REQUIRED_FIELDS = ("id", "kind", "family", "engine", "measured", "unit", "tolerance", "source", "settings")


class CaseError(ValueError):
    """A data file holds a case that cannot be read."""


@dataclass(frozen=True, slots=True)
class Case:
    """One published measurement."""

    id: str  # unique across all files, e.g. "gguf-llama-3.1-8b-q4_k_m"
    kind: str  # which predictor recomputes it: "gguf_size", "engine_kv_tokens", "finetune_peak", "decode_speed", …
    family: str  # architecture family for the summary: "dense", "dense-tied", "vlm", "moe", "mla-moe", "gpt-oss", …
    engine: str  # engine or framework the figure comes from: "llama.cpp", "vllm", "unsloth", …
    measured: float  # the published figure, in `unit`
    unit: str  # "bytes", "tokens", "GiB", "tokens/s", …
    tolerance: float  # relative: 0.03 means within 3 %
    source: str  # as a reader would cite it: publisher, title, date, link
    settings: Mapping[str, Any]  # what the predictor needs: model (a catalog Hub id), precision, context, GPU, …
    version: str = ""  # engine / framework version the figure was measured with
    notes: str = ""
    # why the estimate misses this published figure, when it does and the cause is known but not yet modelled: the
    # case stays in the matrix and in every summary, counted as outside; the suite fails when it comes within (so
    # the note goes) as it fails when any other case falls outside
    known_miss: str = ""


@dataclass(frozen=True, slots=True)
class Result:
    case: Case
    predicted: float | None  # None: the predictor could not compute it (reason says why)
    reason: str = ""

    @property
    def error(self) -> float | None:
        """Signed relative error, (predicted − measured) ÷ measured."""
        if self.predicted is None or self.case.measured == 0:
            return None
        return (self.predicted - self.case.measured) / self.case.measured

    @property
    def within(self) -> bool:
        return self.error is not None and abs(self.error) <= self.case.tolerance

    @property
    def as_expected(self) -> bool:
        """Within tolerance, or outside where the case says why (``known_miss``); a row of an aggregate kind may
        be outside without a cause (``kind_shortfalls`` checks the kind), but a known miss must still miss."""
        if self.case.kind in AGGREGATE_KINDS:
            return not (self.case.known_miss and self.within)
        return self.within != bool(self.case.known_miss)


Predictor = Callable[[Case], float]
PREDICTORS: dict[str, Predictor] = {}


def predictor(kind: str) -> Callable[[Predictor], Predictor]:
    """Registers the function that recomputes cases of ``kind``."""

    def register(function: Predictor) -> Predictor:
        if kind in PREDICTORS and PREDICTORS[kind] is not function:
            raise ValueError(f"two predictors for {kind!r}")
        PREDICTORS[kind] = function
        return function

    return register


def _load_predictors() -> None:
    for module in pkgutil.iter_modules([str(Path(__file__).resolve().parent)]):
        if not module.name.startswith("_"):
            importlib.import_module(f"{__name__}.{module.name}")


def _case(row: Mapping[str, Any], origin: str) -> Case:
    missing = [name for name in REQUIRED_FIELDS if name not in row]
    if missing:
        raise CaseError(f"{origin}: case {row.get('id', '?')} lacks {', '.join(missing)}")
    known = {name for name in Case.__dataclass_fields__}
    unknown = sorted(set(row) - known)
    if unknown:
        raise CaseError(f"{origin}: case {row['id']} has unknown fields {', '.join(unknown)}")
    return Case(**{**row, "measured": float(row["measured"]), "tolerance": float(row["tolerance"])})


def load_cases(folder: Path = DATA_DIR) -> list[Case]:
    """Every case of every data file, in file and list order; ids must be unique."""
    cases: list[Case] = []
    for path in sorted(folder.glob("*.json")):
        rows = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(rows, list):
            raise CaseError(f"{path.name}: expected a list of cases")
        cases.extend(_case(row, path.name) for row in rows)
    ids = [case.id for case in cases]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise CaseError(f"duplicate case ids: {', '.join(duplicates)}")
    return cases


def check(case: Case) -> Result:
    _load_predictors()
    function = PREDICTORS.get(case.kind)
    if function is None:
        return Result(case, None, f"no predictor for kind {case.kind!r}")
    try:
        return Result(case, float(function(case)))
    except (KeyError, ValueError, LookupError) as error:
        return Result(case, None, f"{type(error).__name__}: {error}")


def run(cases: Iterable[Case] | None = None) -> list[Result]:
    return [check(case) for case in (load_cases() if cases is None else cases)]


@dataclass(frozen=True, slots=True)
class Group:
    """Errors of the cases that share a kind and a family or an engine."""

    kind: str
    key: str  # the family or the engine
    cases: int
    within: int
    mean_abs_error: float | None
    worst: Result | None = field(default=None)


def summary(results: Iterable[Result], by: str | Callable[[Case], str] = "family") -> list[Group]:
    """Per (kind, family) or (kind, engine), or per (kind, ``by(case)``): how many cases, how many within
    tolerance, mean and worst error."""
    key_of: Callable[[Case], str] = (lambda case: str(getattr(case, by))) if isinstance(by, str) else by
    grouped: dict[tuple[str, str], list[Result]] = defaultdict(list)
    for result in results:
        grouped[(result.case.kind, key_of(result.case))].append(result)
    groups = []
    for (kind, key), members in sorted(grouped.items()):
        errors = [abs(r.error) for r in members if r.error is not None]
        worst = max((r for r in members if r.error is not None), key=lambda r: abs(r.error or 0), default=None)
        groups.append(
            Group(kind, key, len(members), sum(r.within for r in members), mean(errors) if errors else None, worst)
        )
    return groups


def kind_shortfalls(results: Iterable[Result]) -> dict[str, tuple[int, int]]:
    """The aggregate kinds whose share of rows within tolerance (known misses left out) is below their floor:
    kind → (within, rows)."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for result in results:
        if result.case.kind in AGGREGATE_KINDS and not result.case.known_miss:
            counts[result.case.kind][0] += result.within
            counts[result.case.kind][1] += 1
    return {
        kind: (within, rows)
        for kind, (within, rows) in counts.items()
        if rows and within / rows < AGGREGATE_KINDS[kind]
    }
