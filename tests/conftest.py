"""Shared fixtures: real services, a real Celery worker, a real headless Chromium.

With CI=true a test that needs PostgreSQL, Redis or Chromium and cannot reach it FAILS; elsewhere it is skipped,
so `make test` passes on a bare machine against SQLite.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.conf import settings

from tests.support import ROOT, running_worker

IN_CI = os.environ.get("CI", "").lower() == "true"
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")


REDIS_DATABASES = 16  # Redis's default `databases`


def worker_redis_url(redis_url: str, index: int) -> str:
    """The Redis URL of the index-th pytest-xdist worker: the same server, the database number after the one before.

    Every test clears the cache (a FLUSHDB on Redis) and the Celery tests purge the broker and start real workers
    against it, so two pytest processes sharing one Redis database would wipe each other's cache, queue and results.
    """
    parts = urlsplit(redis_url)
    database = int(parts.path.strip("/") or 0) + index
    if database >= REDIS_DATABASES:
        raise pytest.UsageError(
            f"{redis_url}: pytest-xdist worker {index} would need Redis database {database}; use fewer workers (-n) "
            f"or a lower database number in REDIS_URL"
        )
    return urlunsplit(parts._replace(path=f"/{database}"))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_setupnodes(config: pytest.Config, specs: list[Any]) -> None:
    """Under pytest-xdist each worker process gets its own Redis database (REDIS_URL db, db + 1, ...), set in its
    environment before it loads the Django settings. Its test database is its own already (pytest-django suffixes
    the name with the worker id, `test_<name>_gw0`), and so are its live server, Chromium and bundled site (session
    fixtures, on free ports)."""
    redis_url = os.environ.get("REDIS_URL")
    if not redis_url:
        return
    for index, spec in enumerate(specs):
        spec.env["REDIS_URL"] = worker_redis_url(redis_url, index)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that starts a real Celery worker is slow (a worker process per test)."""
    for item in items:
        if "celery_worker" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)


def missing_service(reason: str) -> NoReturn:
    """Skip locally, fail in CI: a service test that silently skips in CI proves nothing."""
    if IN_CI:
        pytest.fail(f"CI=true but {reason}", pytrace=False)
    pytest.skip(reason)


def uses_postgres() -> bool:
    return settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"


def uses_redis() -> bool:
    return bool(settings.REDIS_URL)


@pytest.fixture(autouse=True)
def _empty_cache() -> Iterator[None]:
    """Each test starts with empty caches: pages cache what they read per price-data state, and two tests that
    load the same fixture would otherwise share a key (the database is rolled back, the cache is not); the rate and
    sign-in limits count in ``counters``, which would otherwise refuse a worker's 121st API request in a minute."""
    from django.core.cache import caches

    for name in settings.CACHES:
        caches[name].clear()
    yield


@pytest.fixture(autouse=True)
def _site_language() -> Iterator[None]:
    """Each test starts in the site's default language: LocaleMiddleware activates a request's language for the
    thread and leaves it active, so a German page fetched by one test would otherwise make the next test's
    ``gettext`` German."""
    from django.utils import translation

    translation.activate(settings.LANGUAGE_CODE)
    yield
    translation.deactivate()


@pytest.fixture
def require_postgres() -> None:
    if not uses_postgres():
        missing_service("DATABASE_URL does not point at PostgreSQL")


@pytest.fixture
def require_redis() -> str:
    """The REDIS_URL of a Redis that answers."""
    redis_url = settings.REDIS_URL
    if not redis_url:
        missing_service("REDIS_URL is not set")
    import redis

    try:
        redis.Redis.from_url(redis_url, socket_connect_timeout=2).ping()
    except redis.RedisError as exc:
        missing_service(f"Redis at {redis_url} is not answering: {exc}")
    return redis_url


@pytest.fixture
def celery_worker(require_postgres, require_redis, transactional_db, django_db_blocker) -> Iterator[dict]:
    """A real `celery worker` process against REDIS_URL and the test database.

    Use with `@pytest.mark.django_db(transaction=True)` so rows the test writes are committed and visible to the
    worker. The worker inherits this process's environment: a fixture requested before this one can point it
    elsewhere with `monkeypatch.setenv` (e.g. HUB_ENDPOINT at a local server replaying recorded responses).
    Yields the worker's hostname and environment.
    """
    from django.db import connection

    from config.celery import app

    env = {**os.environ}
    db = connection.settings_dict
    env["DATABASE_URL"] = (
        f"postgres://{db['USER']}{':' + db['PASSWORD'] if db.get('PASSWORD') else ''}"
        f"@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    )
    env["REDIS_URL"] = require_redis
    env["DJANGO_SETTINGS_MODULE"] = "config.settings"
    env["PYTHONPATH"] = str(ROOT)
    app.control.purge()
    # Messages a worker killed by an earlier test never acknowledged (and the lock a killed worker may have held
    # while restoring them) would be redelivered to this test's workers first: each test starts from an empty broker.
    import redis

    redis.Redis.from_url(require_redis).delete("unacked", "unacked_index", "unacked_mutex")
    hostname = f"test-worker-{os.getpid()}@localhost"
    with running_worker(env, hostname):
        yield {"hostname": hostname, "env": env}


@pytest.fixture(scope="session")
def chromium_browser():
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        missing_service(f"Chromium not found at {CHROMIUM} (Debian package 'chromium')")
    # Playwright's sync API runs an event loop; Django's ORM refuses to run inside one unless told this is fine
    # (the test code, not the live server thread, is what trips the check).
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-dev-shm-usage",
            ],
        )
        yield browser
        browser.close()


@pytest.fixture
def browser_page(chromium_browser, live_server):
    """A fresh page in real headless Chromium; `page.base_url` is the live server. Records every request URL."""
    context = chromium_browser.new_context(base_url=live_server.url, locale="en-US")
    page = context.new_page()
    page.requested_urls = []
    page.on("request", lambda request: page.requested_urls.append(request.url))
    page.base_url = live_server.url
    yield page
    context.close()
