"""The dependency direction of design.md: config → calculator → models_catalog, pricing; pure cores import no Django."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PURE = [
    *sorted((ROOT / "calculator" / "estimation").rglob("*.py")),
    ROOT / "models_catalog" / "architecture.py",
    *sorted((ROOT / "models_catalog").glob("_arch_*.py")),
    ROOT / "pricing" / "api_prices.py",
    ROOT / "pricing" / "gpus.py",
    ROOT / "pricing" / "offers.py",
]
PURE_MODULES = {".".join(p.relative_to(ROOT).with_suffix("").parts) for p in PURE}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    package = ".".join(path.relative_to(ROOT).parent.parts)
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def project_files(app: str) -> list[Path]:
    return [p for p in (ROOT / app).rglob("*.py") if "migrations" not in p.parts]


@pytest.mark.parametrize("path", PURE, ids=lambda p: str(p.relative_to(ROOT)))
def test_pure_modules_import_no_django_and_only_pure_project_code(path):
    for module in imported_modules(path):
        top = module.split(".")[0]
        assert top != "django", f"{path.name} imports {module}"
        if top in {"config", "calculator", "models_catalog", "pricing"} and module != top:  # `from . import x`
            assert any(module == pure or module.startswith(pure + ".") for pure in PURE_MODULES) or (
                module.rsplit(".", 1)[0] in PURE_MODULES or module in {"calculator.estimation", "calculator"}
            ), f"{path.name} imports the non-pure {module}"


@pytest.mark.parametrize("app", ["models_catalog", "pricing"])
def test_catalog_and_pricing_never_import_calculator_or_config(app):
    for path in project_files(app):
        for module in imported_modules(path):
            assert module.split(".")[0] not in {"calculator", "config"}, f"{path.relative_to(ROOT)} imports {module}"


def test_calculator_never_imports_config():
    for path in project_files("calculator"):
        for module in imported_modules(path):
            assert module.split(".")[0] != "config", f"{path.relative_to(ROOT)} imports {module}"


def test_estimation_core_loads_without_django():
    probe = (
        "import sys; import calculator.estimation, models_catalog.architecture, pricing.gpus, pricing.offers; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'django'))"
    )
    result = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_shared_web_helpers_import_no_project_code():
    for path in project_files("web"):
        for module in imported_modules(path):
            top = module.split(".")[0]
            assert top not in {"config", "calculator", "models_catalog", "pricing"}, f"{path.name} imports {module}"
