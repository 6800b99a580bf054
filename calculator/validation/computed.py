"""The matrix's predictions, computed once and kept in the repository (``computed.json``), so a page can show them
and their error bands without running the simulations behind them on a request.

``manage.py validate --write`` writes the file; tests/calculator/test_validation.py recomputes every case and fails
when the file differs, so it cannot go stale unnoticed. A case the file does not hold is computed when asked.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

from . import Case, Result, check, load_cases

COMPUTED_FILE = Path(__file__).resolve().parent / "computed.json"
SIGNIFICANT = 6  # digits kept of each prediction


def _rounded(value: float | None) -> float | None:
    return None if value is None else float(f"{value:.{SIGNIFICANT}g}")


def as_document(results: Iterable[Result]) -> dict[str, Any]:
    return {
        "about": "Predictions of calculator/validation/data/*.json, written by `manage.py validate --write`.",
        "predictions": {
            r.case.id: {"predicted": _rounded(r.predicted), **({"reason": r.reason} if r.reason else {})}
            for r in results
        },
    }


def write(results: Iterable[Result], path: Path = COMPUTED_FILE) -> None:
    path.write_text(json.dumps(as_document(results), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


@cache
def _kept() -> Mapping[str, Mapping[str, Any]]:
    try:
        document = json.loads(COMPUTED_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    predictions = document.get("predictions") if isinstance(document, dict) else None
    return predictions if isinstance(predictions, dict) else {}


def kept_results(cases: Iterable[Case] | None = None, compute: Callable[[Case], Result] | None = None) -> list[Result]:
    """Every case with its kept prediction; one the file lacks is computed now (by ``compute``, default
    ``check``)."""
    kept = _kept()
    results = []
    for case in load_cases() if cases is None else cases:
        row = kept.get(case.id)
        if row is None:
            results.append((compute or check)(case))
            continue
        predicted = row.get("predicted")
        results.append(Result(case, None if predicted is None else float(predicted), str(row.get("reason", ""))))
    return results
