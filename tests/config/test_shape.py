"""The house limits of scripts/shape_report.py (CONTRIBUTING.md "Shape"): no module over 500 lines unless it says it
is a table of data, no template line over 200 characters, at most 15 `type: ignore` in the project."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("shape_report", ROOT / "scripts" / "shape_report.py")
assert _spec is not None and _spec.loader is not None
shape = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = shape  # its dataclasses look their module up by name
_spec.loader.exec_module(shape)


def test_no_module_is_over_its_limit():
    held, _tables = shape.module_sizes()
    assert [m for m in held if m.size > shape.MODULE_LIMIT] == []


def test_type_ignores_stay_under_the_limit():
    assert sum(r.size for r in shape.type_ignores()) <= shape.TYPE_IGNORE_LIMIT


def test_no_template_line_is_over_200_characters():
    assert shape.long_template_lines() == []


def test_a_declared_data_table_is_not_held_to_the_module_limit():
    assert shape.is_data_table("x = 1\n# shape: data table (one row per release)\n")
    assert not shape.is_data_table('"""# shape: data table"""\n')
