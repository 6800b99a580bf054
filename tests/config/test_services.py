"""In CI the suite must run against the real services, not the embedded defaults."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.core.cache import cache

from tests.conftest import IN_CI


@pytest.mark.django_db
def test_ci_runs_on_postgres_and_redis():
    if not IN_CI:
        pytest.skip("outside CI the embedded default (SQLite, local-memory cache) is expected")
    from django.db import connection

    assert connection.vendor == "postgresql"
    assert settings.CACHES["default"]["BACKEND"].endswith("RedisCache")
    cache.set("ci-probe", 42, 5)
    assert cache.get("ci-probe") == 42
    assert settings.CELERY_TASK_ALWAYS_EAGER is False
