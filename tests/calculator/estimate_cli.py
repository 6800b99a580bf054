"""Helpers of the ``manage.py estimate`` tests: run the command in process or from the shell, as a reader runs it,
and rebuild the spec and workload it used so a test can ask the core the same question."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from io import StringIO
from pathlib import Path

from django.core.management import call_command

from calculator.estimation import Mode, Workload
from calculator.management.options import load_spec

ROOT = Path(__file__).resolve().parents[2]
HUB = ROOT / "models_catalog" / "data" / "hub"
MODEL = "meta-llama/Llama-3.1-8B-Instruct"


def manage(*args: str, database: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``manage.py`` in a child process, as a reader runs it (argparse and exit codes included)."""
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{database}" if database else "sqlite:///:memory:"}
    return subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


def run(*args: str) -> dict:
    out = StringIO()
    call_command("estimate", *args, "--json", stdout=out)
    return json.loads(out.getvalue())


def spec_of(model_id: str):
    return load_spec(model_id, None, None)[1]


def workload_of(result: dict, mode: str = "inference") -> Workload:
    w = result["workload"]
    return Workload(
        mode=Mode(mode),
        context=w["context"],
        concurrency=w["concurrency"],
        precision=w["precision"],
        engine=w["engine"],
    )
