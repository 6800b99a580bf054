"""Settings come from the environment; each is checked in a fresh interpreter with its own environment."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow  # each case starts a fresh interpreter
PRODUCTION_ENV = {
    "SECRET_KEY": "k3-9fz!q0v_production-grade-secret-key-with-enough-entropy-4f1b2c8d7e6a5",
    "ALLOWED_HOSTS": "gpufit.example",
    "HTTPS": "1",
    "DATABASE_URL": "postgres://gpufit:secret@db.internal:5432/gpufit",
    "REDIS_URL": "redis://cache.internal:6379/0",
}
PROBE = """
import json, django
from django.conf import settings
django.setup()
print(json.dumps({
    "engine": settings.DATABASES["default"]["ENGINE"],
    "db_name": str(settings.DATABASES["default"]["NAME"]),
    "cache": settings.CACHES["default"]["BACKEND"],
    "eager": settings.CELERY_TASK_ALWAYS_EAGER,
    "broker": settings.CELERY_BROKER_URL,
    "results": settings.CELERY_RESULT_BACKEND,
    "cache_location": settings.CACHES["default"].get("LOCATION"),
    "counters": settings.CACHES["counters"]["BACKEND"],
    "debug": settings.DEBUG,
    "secret_is_dev": settings.SECRET_KEY == settings._DEVELOPMENT_SECRET_KEY,
    "hosts": settings.ALLOWED_HOSTS,
    "hsts": settings.SECURE_HSTS_SECONDS,
}))
"""


def settings_under(env: dict[str, str]) -> dict:
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "REDIS_URL", "BROKER_URL", "SECRET_KEY", "DEBUG", "ALLOWED_HOSTS", "HTTPS"}
    }
    result = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env={**clean, "DJANGO_SETTINGS_MODULE": "config.settings", **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_embedded_default_without_service_urls():
    values = settings_under({})
    assert values["engine"] == "django.db.backends.sqlite3"
    assert values["db_name"].endswith("db.sqlite3")
    assert values["cache"].endswith("LocMemCache")
    assert values["eager"] is True
    assert values["broker"] == "memory://"


def test_development_key_and_no_debug_unless_asked():
    values = settings_under({})
    assert values["secret_is_dev"] is True
    assert values["debug"] is False
    assert settings_under({"DEBUG": "1"})["debug"] is True


def test_service_urls_select_postgres_and_redis():
    values = settings_under(PRODUCTION_ENV)
    assert values["engine"] == "django.db.backends.postgresql"
    assert values["db_name"] == "gpufit"
    assert values["cache"].endswith("RedisCache")
    assert values["eager"] is False
    assert values["broker"] == "redis://cache.internal:6379/0"
    assert values["hosts"] == ["gpufit.example"]
    assert values["hsts"] == 31_536_000


def test_the_broker_is_its_own_redis_when_named_and_the_cache_one_otherwise():
    alone = settings_under(PRODUCTION_ENV)
    assert alone["broker"] == alone["results"] == alone["cache_location"] == "redis://cache.internal:6379/0"
    assert alone["counters"] == "web.cache.CountingRedisCache"
    apart = settings_under({**PRODUCTION_ENV, "BROKER_URL": "redis://queue.internal:6379/0"})
    assert apart["broker"] == apart["results"] == "redis://queue.internal:6379/0"
    assert apart["cache_location"] == "redis://cache.internal:6379/0"
    assert apart["eager"] is False


def test_malformed_boolean_fails_loudly():
    result = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "DEBUG": "maybe"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert "DEBUG must be a boolean" in result.stderr


def test_deploy_check_passes_without_warnings_in_production():
    clean = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "DJANGO_ALLOW_ASYNC_UNSAFE"}}
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env={**clean, **PRODUCTION_ENV},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


@pytest.mark.parametrize("missing", ["SECRET_KEY", "HTTPS"])
def test_deploy_check_warns_when_a_production_variable_is_missing(missing):
    env = {k: v for k, v in PRODUCTION_ENV.items() if k != missing}
    clean = {
        k: v for k, v in os.environ.items() if k not in {"DEBUG", "SECRET_KEY", "HTTPS", "DJANGO_ALLOW_ASYNC_UNSAFE"}
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0
