"""The type checker's strict list covers every pure core module; mypy cannot match `models_catalog._arch_*`."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def strict_modules() -> set[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    return {
        module
        for override in config["overrides"]
        if override.get("disallow_untyped_defs")
        for module in override["module"]
    }


def test_every_arch_module_is_type_checked_strictly():
    arch_modules = {f"models_catalog.{path.stem}" for path in (ROOT / "models_catalog").glob("_arch_*.py")}
    listed = {module for module in strict_modules() if module.startswith("models_catalog._arch_")}

    assert arch_modules - listed == set(), "add these to the strict override in pyproject.toml"
    assert listed - arch_modules == set(), "these are listed as strict in pyproject.toml but no longer exist"
