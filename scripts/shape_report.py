"""The shape of the code, printed by `make check`: the largest modules, the longest functions, template lines over
200 characters and the count of `type: ignore`, each against the house limits (CONTRIBUTING.md "Shape").

A module that is a table of data (one entry per engine release, say) says so in a comment line of its own that starts
with ``# shape: data table`` and is then not held to the module limit.

    python scripts/shape_report.py            # the report
    python scripts/shape_report.py --strict   # exit 1 when a limit is broken
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
APPS = ("calculator", "config", "models_catalog", "pricing", "web")
MODULE_LIMIT = 500
FUNCTION_LIMIT = 60
TEMPLATE_LINE_LIMIT = 200
TYPE_IGNORE_LIMIT = 15
DATA_TABLE_MARK = "# shape: data table"
TEMPLATE_SUFFIXES = (".html", ".md", ".txt", ".xml")


@dataclass(frozen=True)
class Sized:
    where: str
    size: int


def application_modules() -> list[Path]:
    return sorted(p for app in APPS for p in (ROOT / app).rglob("*.py") if "migrations" not in p.parts)


def python_files() -> list[Path]:
    return [*application_modules(), *sorted((ROOT / "tests").rglob("*.py")), *sorted((ROOT / "bench").rglob("*.py"))]


def is_data_table(text: str) -> bool:
    return any(line.startswith(DATA_TABLE_MARK) for line in text.splitlines())


def module_sizes() -> tuple[list[Sized], list[Sized]]:
    """(modules held to the limit, declared data tables), largest first."""
    held: list[Sized] = []
    tables: list[Sized] = []
    for path in application_modules():
        text = path.read_text()
        sized = Sized(str(path.relative_to(ROOT)), text.count("\n"))
        (tables if is_data_table(text) else held).append(sized)
    return sorted(held, key=lambda s: -s.size), sorted(tables, key=lambda s: -s.size)


def function_lengths() -> list[Sized]:
    found: list[Sized] = []
    for path in application_modules():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno:
                where = f"{path.relative_to(ROOT)}:{node.lineno} {node.name}"
                found.append(Sized(where, node.end_lineno - node.lineno + 1))
    return sorted(found, key=lambda s: -s.size)


def long_template_lines() -> list[Sized]:
    found: list[Sized] = []
    for path in sorted((ROOT / "templates").rglob("*")):
        if path.suffix in TEMPLATE_SUFFIXES:
            for number, line in enumerate(path.read_text().splitlines(), start=1):
                if len(line) > TEMPLATE_LINE_LIMIT:
                    found.append(Sized(f"{path.relative_to(ROOT)}:{number}", len(line)))
    return sorted(found, key=lambda s: -s.size)


def type_ignores() -> list[Sized]:
    marker = "type: " + "ignore"  # spelled apart so this file does not count itself
    found: list[Sized] = []
    for path in python_files():
        count = path.read_text().count(marker)
        if count:
            found.append(Sized(str(path.relative_to(ROOT)), count))
    return sorted(found, key=lambda s: -s.size)


def _top(title: str, rows: list[Sized], limit: int, unit: str, shown: int = 5) -> list[str]:
    over = [r for r in rows if r.size > limit]
    lines = [f"{title}: {len(over)} over {limit} {unit}"]
    lines += [f"  {r.size:>5}  {r.where}" for r in rows[:shown]]
    return lines


def report() -> tuple[list[str], bool]:
    held, tables = module_sizes()
    functions = function_lengths()
    templates = long_template_lines()
    ignores = type_ignores()
    ignore_total = sum(r.size for r in ignores)
    lines = _top("modules", held, MODULE_LIMIT, "lines")
    lines += [f"  data tables (not held to the limit): {', '.join(f'{t.where} {t.size}' for t in tables) or 'none'}"]
    lines += _top("functions", functions, FUNCTION_LIMIT, "lines")
    lines += _top("template lines", templates, TEMPLATE_LINE_LIMIT, "characters", shown=3)
    lines += [f"type: ignore: {ignore_total} (limit {TYPE_IGNORE_LIMIT})"]
    lines += [f"  {r.size:>5}  {r.where}" for r in ignores[:5]]
    within = not any(r.size > MODULE_LIMIT for r in held) and not templates and ignore_total <= TYPE_IGNORE_LIMIT
    return lines, within


def main(argv: list[str]) -> int:
    lines, within = report()
    print("\n".join(lines))
    return 1 if "--strict" in argv and not within else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
