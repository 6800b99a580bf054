"""``python manage.py validate``: recompute every published measurement in the validation matrix.

Prints predicted vs measured per case with the error, then the summary per architecture family and per engine.
Exits 1 when any case is outside its tolerance (``--json`` prints the same as JSON).
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from calculator.validation import Group, Result, kind_shortfalls, run, summary
from calculator.validation.bands import case_gpu_family
from calculator.validation.computed import write


def _percent(value: float | None) -> str:
    return "   n/a" if value is None else f"{value * 100:+6.1f}%"


class Command(BaseCommand):
    help = "Recompute every published measurement in calculator/validation/data and compare."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--kind", help="only cases of this kind (gguf_size, engine_kv_tokens, …)")
        parser.add_argument("--json", action="store_true", help="print JSON")
        parser.add_argument(
            "--write", action="store_true", help="keep the predictions in calculator/validation/computed.json"
        )

    def handle(self, *args: Any, kind: str | None = None, json: bool = False, **options: Any) -> None:
        everything = run()
        if options.get("write"):
            write(everything)
        results = [r for r in everything if kind is None or r.case.kind == kind]
        if json:
            self.stdout.write(_dumps(results))
        else:
            self._table(results)
        failing = [r for r in results if not r.as_expected]
        short = kind_shortfalls(results)
        if short:
            raise CommandError(
                "kinds below their share within tolerance: "
                + ", ".join(f"{kind} {within}/{rows}" for kind, (within, rows) in short.items()),
                returncode=1,
            )
        if failing:
            raise CommandError(
                f"{len(failing)} of {len(results)} cases not as the matrix expects: "
                + ", ".join(r.case.id for r in failing[:10]),
                returncode=1,
            )

    def _table(self, results: list[Result]) -> None:
        self.stdout.write(f"{'case':44s} {'engine':14s} {'measured':>16s} {'predicted':>16s}  error  tol")
        for result in results:
            case = result.case
            predicted = "—" if result.predicted is None else f"{result.predicted:,.4g}"
            if result.within:
                mark = ""
            elif case.known_miss:
                mark = f"  KNOWN MISS ({case.known_miss})"
            else:
                mark = "  OUTSIDE" + (f" ({result.reason})" if result.reason else "")
            self.stdout.write(
                f"{case.id[:44]:44s} {case.engine[:14]:14s} {case.measured:>12,.4g} {case.unit[:3]:3s} "
                f"{predicted:>12s} {case.unit[:3]:3s} {_percent(result.error)} {case.tolerance * 100:3.0f}%{mark}"
            )
        for by in ("family", "engine"):
            self.stdout.write(f"\nBy {by}:")
            for group in summary(results, by):
                self._group(group)
        serving = [r for r in results if r.case.kind.startswith("load_")]
        if serving:
            self.stdout.write("\nServing benchmarks by engine and GPU family:")
            for group in summary(serving, lambda case: f"{case.engine} · {case_gpu_family(case)}"):
                self._group(group)
            self.stdout.write("\nServing benchmarks by engine and model kind:")
            for group in summary(serving, lambda case: f"{case.engine} · {case.family}"):
                self._group(group)
            self.stdout.write("\nServing benchmarks, the ten worst rows:")
            for result in sorted(serving, key=lambda r: -abs(r.error or 0.0))[:10]:
                self.stdout.write(f"  {_percent(result.error)}  {result.case.id}")
        known = sum(not r.within and bool(r.case.known_miss) for r in results)
        self.stdout.write(
            f"\n{sum(r.within for r in results)} of {len(results)} cases within tolerance"
            + (f"; {known} known misses, each with its cause" if known else "")
        )

    def _group(self, group: Group) -> None:
        worst = group.worst
        self.stdout.write(
            f"  {group.kind:20s} {group.key:26s} {group.within:3d}/{group.cases:<3d} within, mean |error| "
            f"{_percent(group.mean_abs_error).strip():>7s}, worst {worst.case.id if worst else '—'} "
            f"{_percent(worst.error).strip() if worst else ''}"
        )


def _dumps(results: list[Result]) -> str:
    rows = [
        {
            "id": r.case.id,
            "kind": r.case.kind,
            "family": r.case.family,
            "engine": r.case.engine,
            "version": r.case.version,
            "unit": r.case.unit,
            "measured": r.case.measured,
            "predicted": r.predicted,
            "error": r.error,
            "tolerance": r.case.tolerance,
            "within": r.within,
            "source": r.case.source,
            "settings": dict(r.case.settings),
            "reason": r.reason,
            "known_miss": r.case.known_miss,
        }
        for r in results
    ]
    return json.dumps(rows, indent=2, ensure_ascii=False)
