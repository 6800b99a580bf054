"""The embedded default's SQLite file takes concurrent writers in turn instead of failing with "database is locked".

pytest-django's SQLite test database lives in memory, so the check runs in a fresh interpreter with the embedded
default settings (no DATABASE_URL) pointed at a database file of its own, and threads that write at once.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
THREADS = 8
TRANSACTIONS_PER_THREAD = 25
# Each transaction reads, then writes, as an import does (look the model up, then save it): a deferred transaction
# that has read cannot wait for the write lock another one holds, and fails at once.
WRITERS = """
import json, sys, threading
import config.settings as project_settings

project_settings.DATABASES["default"]["NAME"] = sys.argv[1]
import django

django.setup()
from django.db import connection, transaction

with connection.cursor() as cursor:
    cursor.execute("CREATE TABLE entry (id INTEGER PRIMARY KEY, writer INTEGER, seen INTEGER)")
    journal_mode = cursor.execute("PRAGMA journal_mode").fetchone()[0]
connection.close()
threads, per_thread = int(sys.argv[2]), int(sys.argv[3])
start, errors = threading.Barrier(threads), []


def write(writer):
    start.wait()
    try:
        for _ in range(per_thread):
            with transaction.atomic(), connection.cursor() as cursor:
                seen = cursor.execute("SELECT COUNT(*) FROM entry").fetchone()[0]
                cursor.execute("INSERT INTO entry (writer, seen) VALUES (%s, %s)", [writer, seen])
    except Exception as exc:
        errors.append(f"{type(exc).__name__}: {exc}")
    finally:
        connection.close()


workers = [threading.Thread(target=write, args=(n,)) for n in range(threads)]
for worker in workers:
    worker.start()
for worker in workers:
    worker.join()
with connection.cursor() as cursor:
    rows, distinct_seen = cursor.execute("SELECT COUNT(*), COUNT(DISTINCT seen) FROM entry").fetchone()
print(json.dumps({"journal_mode": journal_mode, "rows": rows, "distinct_seen": distinct_seen, "errors": errors}))
"""


@pytest.mark.slow
def test_concurrent_writers_wait_their_turn_on_the_embedded_sqlite_file(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    result = subprocess.run(
        [sys.executable, "-c", WRITERS, str(tmp_path / "db.sqlite3"), str(THREADS), str(TRANSACTIONS_PER_THREAD)],
        cwd=ROOT,
        env={**env, "DJANGO_SETTINGS_MODULE": "config.settings"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    outcome = json.loads(result.stdout.strip().splitlines()[-1])

    assert outcome["errors"] == []
    assert outcome["journal_mode"] == "wal"
    assert outcome["rows"] == THREADS * TRANSACTIONS_PER_THREAD
    # each transaction saw every row committed before it and none in flight: the writes ran one after another
    assert outcome["distinct_seen"] == THREADS * TRANSACTIONS_PER_THREAD
