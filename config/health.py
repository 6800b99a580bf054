"""Readiness checks for /healthz: each returns None when healthy, else the reason it failed.

The reasons are generic on purpose: /healthz is public, and an exception's text names hosts and ports. The
exception itself goes to the log.
"""

from __future__ import annotations

import logging
import uuid

from django.core.cache import cache
from django.db import connection

logger = logging.getLogger(__name__)


def check_database() -> str | None:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            row = cursor.fetchone()
    except Exception:
        logger.exception("healthz: database check failed")
        return "the database did not answer"
    return None if row and row[0] == 1 else "unexpected reply to SELECT 1"


def check_cache() -> str | None:
    key = f"healthz:{uuid.uuid4().hex}"
    try:
        cache.set(key, "ok", timeout=10)
        value = cache.get(key)
        cache.delete(key)
    except Exception:
        logger.exception("healthz: cache check failed")
        return "the cache did not answer"
    return None if value == "ok" else "value written to the cache could not be read back"


CHECKS = {"database": check_database, "cache": check_cache}


def run_checks() -> dict[str, str | None]:
    return {name: check() for name, check in CHECKS.items()}
