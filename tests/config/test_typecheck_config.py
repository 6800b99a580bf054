"""The type checker's strict list covers every pure core module and names no module that is gone."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def strict_modules() -> set[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    return {
        module
        for override in config["overrides"]
        if override.get("disallow_untyped_defs")
        for module in override["module"]
    }


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_strict(module: str) -> bool:
    # mypy's `a.b.*` matches `a.b` itself and every module below it
    return any(
        module == pattern or (pattern.endswith(".*") and (module == pattern[:-2] or module.startswith(pattern[:-1])))
        for pattern in strict_modules()
    )


PURE_CORE = [
    *sorted((ROOT / "calculator" / "estimation").rglob("*.py")),
    *sorted((ROOT / "models_catalog" / "architecture").glob("*.py")),
    ROOT / "pricing" / "gpus.py",
    ROOT / "pricing" / "offers.py",
]


@pytest.mark.parametrize("path", PURE_CORE, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_pure_core_module_is_type_checked_strictly(path):
    assert is_strict(module_name(path)), "add it to the strict override in pyproject.toml"


def test_every_strict_entry_names_an_existing_module():
    for pattern in strict_modules():
        where = ROOT / Path(*pattern.removesuffix(".*").split("."))
        exists = where.with_suffix(".py").exists() or (where / "__init__.py").exists()
        assert exists, f"{pattern} is listed as strict in pyproject.toml but no longer exists"
