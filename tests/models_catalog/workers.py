"""More real Celery workers beside the `celery_worker` fixture: a replacement after a kill, a prefork pool."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from config.celery import app
from tests.conftest import ROOT
from tests.support import wait_for


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
    try:
        if not wait_for(lambda: process.poll() is None and bool(app.control.ping([hostname], timeout=0.5)), 45):
            process.kill()
            process.wait(timeout=10)
            pytest.fail(f"the Celery worker {hostname} did not come up within 45 s:\n{worker.output()[-4000:]}")
        yield worker
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=5)
        log_file.close()
        log_dir.cleanup()


def worker_pid(hostname: str) -> int:
    """The pid of a worker's main process, as the worker reports it (ask before it blocks in a solo task)."""
    stats = app.control.inspect([hostname], timeout=2).stats() or {}
    return int(stats[hostname]["pid"])


def active_task_pids(hostname: str) -> list[int]:
    """The pool processes running a task now, as the worker's main process reports them."""
    active = app.control.inspect([hostname], timeout=2).active() or {}
    return [int(task["worker_pid"]) for task in active.get(hostname, []) if task.get("worker_pid")]


def kill(pid: int) -> None:
    """SIGKILL: what the kernel's OOM killer or a hard stop does; the process gets no chance to clean up."""
    os.kill(pid, signal.SIGKILL)
