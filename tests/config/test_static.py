"""Production static files: collectstatic writes hashed, compressed files and the pages link to them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RENDER_HOME = """
import django
django.setup()
from django.test import Client
print(Client().get("/en/").content.decode())
"""


@pytest.mark.slow
def test_manifest_storage_serves_hashed_compressed_files(tmp_path):
    env = {
        **{k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "DEBUG"}},
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "STATIC_MANIFEST": "1",
        "ALLOWED_HOSTS": "testserver",
        "STATIC_ROOT": str(tmp_path),
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
    }
    collected = subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert collected.returncode == 0, collected.stderr
    assert (tmp_path / "staticfiles.json").exists()
    hashed_htmx = sorted(tmp_path.glob("django_htmx/htmx-2.min.*.js"))
    assert hashed_htmx, "collectstatic wrote no hashed htmx file"
    assert Path(f"{hashed_htmx[0]}.gz").exists()

    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput"],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        timeout=180,
    )
    page = subprocess.run(
        [sys.executable, "-c", RENDER_HOME], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert page.returncode == 0, page.stderr
    assert f"/static/django_htmx/{hashed_htmx[0].name}" in page.stdout
    assert "/static/css/site." in page.stdout and "site.css" not in page.stdout
