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
    *sorted((ROOT / "models_catalog" / "architecture").glob("*.py")),
    ROOT / "pricing" / "api_prices.py",
    ROOT / "pricing" / "gpus.py",
    ROOT / "pricing" / "offers.py",
]


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


PURE_MODULES = {module_name(p) for p in PURE}

# The architecture reader's modules, lowest first: each may import only modules before it, so a circle fails.
ARCHITECTURE = "models_catalog.architecture"
ARCHITECTURE_ORDER = [
    "types",
    "notes",
    "config",
    "layers",
    "params",
    "groups",
    "quant",
    "vision",
    "build",
    "spec",
    "__init__",
]


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


def imported_targets(path: Path) -> set[str]:
    """Modules the imports load by name: ``from pkg import sub`` counts as ``pkg.sub`` when that is a module."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert not node.level, f"{path.name}: use absolute imports"
            module = node.module or ""
            for alias in node.names:
                submodule = f"{module}.{alias.name}"
                where = ROOT / Path(*submodule.split("."))
                is_module = where.with_suffix(".py").exists() or (where / "__init__.py").exists()
                found.add(submodule if is_module else module)
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


def test_architecture_order_lists_every_module_of_the_package():
    on_disk = {path.stem for path in (ROOT / "models_catalog" / "architecture").glob("*.py")}
    assert sorted(on_disk) == sorted(ARCHITECTURE_ORDER)


@pytest.mark.parametrize("name", ARCHITECTURE_ORDER)
def test_architecture_modules_import_each_other_only_downward(name):
    rank = {
        (ARCHITECTURE if stem == "__init__" else f"{ARCHITECTURE}.{stem}"): i
        for i, stem in enumerate(ARCHITECTURE_ORDER)
    }
    path = ROOT / "models_catalog" / "architecture" / f"{name}.py"
    own = ARCHITECTURE_ORDER.index(name)
    for module in imported_targets(path):
        if module in rank:
            assert rank[module] < own, f"{name}.py imports {module}, which is not below it in ARCHITECTURE_ORDER"


# The estimation core's rooms, lowest first (calculator/estimation/__init__.py maps them): a module imports only its
# own room, the foundation modules at the top of the package, and the rooms below its own.
CORE = ROOT / "calculator" / "estimation"
CORE_ROOMS = ["engines", "memory", "speed", "plan"]
CORE_FILES = sorted(p for p in CORE.rglob("*.py") if p.parent != CORE)


def core_room(module: str) -> int:
    """-1 for the foundation (and the package itself), else the room's rank; a module outside the core: None."""
    parts = module.split(".")
    if parts[:2] != ["calculator", "estimation"]:
        return -2
    return CORE_ROOMS.index(parts[2]) if len(parts) > 3 and parts[2] in CORE_ROOMS else -1


def test_core_rooms_are_the_only_sub_packages_and_each_has_a_map():
    rooms = sorted(p.parent.name for p in CORE.glob("*/__init__.py"))
    assert rooms == sorted(CORE_ROOMS)
    for room in CORE_ROOMS:
        doc = ast.get_docstring(ast.parse((CORE / room / "__init__.py").read_text())) or ""
        listed = {stem for stem in (p.stem for p in (CORE / room).glob("*.py")) if stem != "__init__"}
        missing = [stem for stem in sorted(listed) if f"``{stem}``" not in doc]
        assert not missing, f"{room}/__init__.py does not map {missing}"


@pytest.mark.parametrize("path", CORE_FILES, ids=lambda p: str(p.relative_to(CORE)))
def test_core_rooms_import_only_downward(path):
    own = CORE_ROOMS.index(path.relative_to(CORE).parts[0])
    for module in imported_modules(path):
        rank = core_room(module)
        assert rank <= own, f"{path.relative_to(CORE)} imports {module}, a room above its own"


def test_core_foundation_imports_no_room():
    for path in sorted(CORE.glob("*.py")):
        if path.name == "__init__.py":
            continue
        for module in imported_modules(path):
            assert core_room(module) < 0, f"{path.name} imports {module}, a room above the foundation"


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


# The model page (calculator/page/) sits below the calculator's other modules: what it imports from the calculator
# outside itself and the core must not import the page back (calculator.hardware builds on the page; the charts are
# drawn for it). An import under TYPE_CHECKING counts: a type-only circle is still a circle.
PAGE = ROOT / "calculator" / "page"


def calculator_module_path(module: str) -> Path | None:
    """The file of a calculator module named by an import, or None for a name inside one or outside the project."""
    where = ROOT / Path(*module.split("."))
    for path in (where.with_suffix(".py"), where / "__init__.py"):
        if path.exists():
            return path
    return None


def imports_the_page(module: str) -> bool:
    return module == "calculator.page" or module.startswith("calculator.page.")


@pytest.mark.parametrize("path", sorted(PAGE.glob("*.py")), ids=lambda p: p.name)
def test_the_page_imports_nothing_that_imports_the_page(path):
    for module in imported_modules(path):
        if (
            module.split(".")[0] != "calculator"
            or imports_the_page(module)
            or module.startswith("calculator.estimation")
        ):
            continue
        target = calculator_module_path(module)
        if target is None:
            continue
        back = sorted(m for m in imported_modules(target) if imports_the_page(m))
        assert not back, f"page/{path.name} imports {module}, which imports {back[0]} (the page, upward)"


def test_the_charts_and_the_context_section_form_no_circle():
    assert not any(imports_the_page(m) for m in imported_modules(ROOT / "calculator" / "charts.py"))
    assert "calculator.hardware" not in imported_modules(PAGE / "view.py")
