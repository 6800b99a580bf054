"""Readiness checks for /healthz: each returns None when healthy, else the reason it failed."""

from __future__ import annotations

import uuid

from django.core.cache import cache
from django.db import connection


def check_database() -> str | None:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            row = cursor.fetchone()
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}".strip()[:300]
    return None if row and row[0] == 1 else "unexpected reply to SELECT 1"


def check_cache() -> str | None:
    key = f"healthz:{uuid.uuid4().hex}"
    try:
        cache.set(key, "ok", timeout=10)
        value = cache.get(key)
        cache.delete(key)
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}".strip()[:300]
    return None if value == "ok" else "value written to the cache could not be read back"


CHECKS = {"database": check_database, "cache": check_cache}


def run_checks() -> dict[str, str | None]:
    return {name: check() for name, check in CHECKS.items()}
