"""What the served application demands of its environment: each case imports config.wsgi / config.asgi (what
gunicorn and an ASGI server load) in a fresh interpreter with its own environment."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OWN_KEY = "k3-9fz!q0v_a-key-of-its-own-with-enough-entropy-for-production-4f1b2c8d7e6a5"
DEVELOPMENT_KEY = "django-insecure-development-only-key-1f0c8e3a9b7d"
REFUSAL = "SECRET_KEY is not set, or is the development key committed in the repository"
CONTROLLED = {"SECRET_KEY", "DEBUG", "ADMIN_PATH", "DJANGO_SETTINGS_MODULE"}

pytestmark = pytest.mark.slow  # each case starts a fresh interpreter


def run_python(code: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in CONTROLLED}
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**clean, "DJANGO_SETTINGS_MODULE": "config.settings", **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize("module", ["config.wsgi", "config.asgi"])
@pytest.mark.parametrize(
    ("env", "starts"),
    [
        ({"DEBUG": "0"}, False),
        ({"SECRET_KEY": ""}, False),
        ({"SECRET_KEY": DEVELOPMENT_KEY}, False),
        ({"DEBUG": "1"}, True),
        ({"SECRET_KEY": OWN_KEY}, True),
    ],
    ids=["no-key", "empty-key", "committed-key", "no-key-debug", "own-key"],
)
def test_the_served_application_needs_its_own_key_unless_debug_is_on(module, env, starts):
    result = run_python(f"import {module}; assert callable({module}.application); print('started')", env)
    if starts:
        assert result.returncode == 0, result.stderr
        assert "started" in result.stdout
    else:
        assert result.returncode != 0
        assert "ImproperlyConfigured" in result.stderr
        assert REFUSAL in result.stderr


def test_management_commands_run_without_a_key():
    result = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env={k: v for k, v in os.environ.items() if k not in CONTROLLED},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr


ADMIN_PROBE = """
import django
django.setup()
from django.test import RequestFactory
from django.urls import Resolver404, resolve, reverse
from config.views import robots_txt
print(reverse("admin:index"))
print(robots_txt(RequestFactory().get("/robots.txt", HTTP_HOST="localhost")).content.decode().splitlines()[1:3])
try:
    resolve("/admin/")
    print("/admin/ still served")
except Resolver404:
    print("/admin/ not served")
"""


@pytest.mark.parametrize("value", ["backoffice-7f3a/", "/backoffice-7f3a", "backoffice-7f3a"])
def test_admin_path_moves_the_admin_and_robots_txt_keeps_it_secret(value):
    result = run_python(ADMIN_PROBE, {"ADMIN_PATH": value, "SECRET_KEY": OWN_KEY})
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["/backoffice-7f3a/", "['Disallow: /healthz', '']", "/admin/ not served"]


def test_admin_path_defaults_to_admin():
    result = run_python(ADMIN_PROBE, {"SECRET_KEY": OWN_KEY})
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "/admin/",
        "['Disallow: /admin/', 'Disallow: /healthz']",
        "/admin/ still served",
    ]


def test_admin_path_cannot_be_the_site_root():
    result = run_python("import django; django.setup()", {"ADMIN_PATH": "/"})
    assert result.returncode != 0
    assert "ADMIN_PATH must name a path" in result.stderr
