"""Asking real Celery workers what they run (a replacement after a kill, a prefork pool): their pids, and killing
them. The workers themselves start with ``tests.support.running_worker``."""

from __future__ import annotations

import os
import signal

from config.celery import app
from tests.support import running_worker

__all__ = ["active_task_pids", "kill", "running_worker", "worker_pid"]


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
