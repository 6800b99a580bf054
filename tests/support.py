"""Small helpers the test packages share: waiting on a condition, a local HTTP server for subprocesses, and a real
Celery worker process."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, cast

import pytest

ROOT = Path(__file__).resolve().parent.parent


@contextmanager
def rows_for_the_module(django_db_blocker: Any, write: Callable[[], object]) -> Iterator[None]:
    """Write rows once for a whole module and roll them back after its last test.

    For a module-scoped fixture whose tests run in the test transaction (`django_db`, not `transaction=True`): the
    rows are written in an outer transaction left open, each test runs in a savepoint inside it and is rolled back
    to it, so every test starts from exactly the rows ``write`` wrote, as if it had written them itself. A
    transactional test would empty the tables for everyone after it: never use this for one.
    """
    from django.db import transaction

    outer = transaction.atomic()
    with django_db_blocker.unblock():
        outer.__enter__()
        try:
            write()
        except BaseException:
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)
            raise
    try:
        yield
    finally:
        with django_db_blocker.unblock():
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)


def module_rows(write: Callable[[], object]) -> Any:
    """A module-scoped fixture that writes ``write``'s rows once for the module (``rows_for_the_module``).

    Name it in the module (``_site_rows = module_rows(_write_site)``) and have the tests' fixture ask for it and for
    ``db``; mark the module ``xdist_group`` so that one pytest-xdist worker runs all its tests and writes the rows once.
    """

    @pytest.fixture(scope="module")
    def rows(django_db_setup: Any, django_db_blocker: Any) -> Iterator[None]:
        with rows_for_the_module(django_db_blocker, write):
            yield

    return rows


def wait_for(condition: Callable[[], object], timeout: float, interval: float = 0.2) -> bool:
    """Poll ``condition`` until it is truthy or ``timeout`` seconds pass (no fixed sleeps in tests)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(interval)
    return False


@contextmanager
def local_server(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """Serve ``handler`` on 127.0.0.1 on a free port; yields its base URL. A Celery worker subprocess can reach it
    where respx cannot, so it replays recorded responses to the worker."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


# A replacement worker that takes back a dead worker's unacknowledged message within a second or two: the message
# is due one second after its delivery, and the worker sweeps for due messages every second (not every 100 s), so
# one sweep that finds nothing (it ran too early, or met a Redis hiccup) does not decide the test.
QUICK_RESTORE = {
    "CELERY_VISIBILITY_TIMEOUT_S": "1",
    "CELERY_UNACKED_RESTORE_INTERVAL_S": "1",
    "CELERY_UNACKED_RESTORE_THROTTLE": "1",
}


def broker_state(redis_url: str) -> str:
    """What Redis holds for the workers, for a failure message: queued messages, unacknowledged ones with their age,
    and whether a worker holds the restore lock."""
    import redis

    client = redis.Redis.from_url(redis_url)
    now = time.time()
    # redis-py types every command's answer as an async client's too (Awaitable | Any); this client is synchronous
    index = cast(list[tuple[bytes, float]], client.zrange("unacked_index", 0, -1, withscores=True))
    unacked = [(tag.decode(), round(now - score, 1)) for tag, score in index]
    return (
        f"queued={client.llen('celery')} unacked={client.hlen('unacked')} "
        f"unacked_index(tag, age s)={unacked} restore lock ttl={client.pttl('unacked_mutex')} ms"
    )


def stop_process(process: subprocess.Popen[Any]) -> None:
    """SIGTERM, then SIGKILL when it has not ended within 15 s (a server or worker a test started)."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=5)


@dataclass
class Worker:
    process: subprocess.Popen[str]
    log: Path

    def output(self) -> str:
        return self.log.read_text(errors="replace")


@contextmanager
def running_worker(env: dict[str, str], hostname: str, pool: str = "solo") -> Iterator[Worker]:
    """A `celery worker` process with `env` (the `celery_worker` fixture yields one that reaches the test
    database); yields it once it answers a ping, and stops it on exit. Its log goes to a file, not a pipe that
    nobody reads."""
    log_dir = tempfile.TemporaryDirectory()
    log = Path(log_dir.name) / "worker.log"
    log_file = log.open("w")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            f"--pool={pool}",
            "--concurrency=1",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "--loglevel=INFO",
            "-n",
            hostname,
        ],
        cwd=ROOT,
        env=env,
        stdout=log_file,
        stderr=subprocess.STDOUT,
        text=True,
    )
    worker = Worker(process, log)
    from config.celery import app  # the Django settings are loaded by the time a worker is asked for

    try:
        if not wait_for(lambda: process.poll() is None and bool(app.control.ping([hostname], timeout=0.5)), 45):
            process.kill()
            process.wait(timeout=10)
            pytest.fail(f"the Celery worker {hostname} did not come up within 45 s:\n{worker.output()[-4000:]}")
        yield worker
    finally:
        stop_process(process)
        log_file.close()
        log_dir.cleanup()
