"""docker-compose.yml can't be run here (no Docker engine), so it is validated and cross-checked instead."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.conftest import missing_service

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"


def compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


def makefile_recipe(target: str) -> str:
    text = (ROOT / "Makefile").read_text()
    match = re.search(rf"^{re.escape(target)}:.*\n\t(.+)$", text, flags=re.MULTILINE)
    assert match, f"Makefile has no recipe for {target}"
    return match.group(1).replace("$(BIN)", "").replace("$(PORT)", "8000")


def test_compose_runs_every_service_with_a_health_check():
    services = compose()["services"]
    assert set(services) == {"postgres", "redis", "web", "worker", "beat"}
    for name, service in services.items():
        assert "healthcheck" in service, name
    for name in ("web", "worker", "beat"):
        depends = services[name]["depends_on"]
        assert depends["postgres"]["condition"] == "service_healthy"
        assert depends["redis"]["condition"] == "service_healthy"


@pytest.mark.parametrize(("service", "target"), [("worker", "worker"), ("beat", "beat"), ("web", "serve-prod")])
def test_compose_commands_are_the_makefile_commands(service, target):
    command = " ".join(compose()["services"][service]["command"].split())
    assert makefile_recipe(target) in command


def test_readme_names_the_compose_commands_and_two_setup_commands():
    readme = (ROOT / "README.md").read_text()
    assert "make run" in readme and "make test" in readme
    for target in ("make worker", "make beat", "make serve-prod", "docker compose up"):
        assert target in readme


def test_ci_script_runs_the_readme_test_command():
    script = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"^make test$", script, flags=re.MULTILINE)
    assert "DATABASE_URL=" in script and "REDIS_URL=" in script


def test_docker_compose_accepts_the_file():
    binary = shutil.which("docker-compose")
    if not binary:
        missing_service("docker-compose (Debian package) is not installed")
    result = subprocess.run(
        [binary, "-f", str(COMPOSE), "config", "--quiet"],
        cwd=ROOT,
        env={"SECRET_KEY": "compose-validation-only", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
