"""The site bench/load.py measures: a scratch PostgreSQL database, an empty Redis db, and gunicorn serving
config.wsgi with the production settings plus the ceiling's URL (bench/settings.py)."""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from email.message import Message
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[1]
SETTINGS_MODULE = "bench.settings"
CEILING_BODY_ENV = "BENCH_CEILING_BODY_FILE"  # bench/ceiling_urls.py reads the captured page from this file
# Far above what 64 connections can send in a minute: the limit is still counted on every request, never reached.
API_RATE_LIMIT = "100000000/m"
REFERENCE_OFFERS_FIXTURE = "seed_offers_2026-11-13"  # the GLM-5.3-Flash reference offers (bench_model_page.py)


class Refused(Exception):
    """A precondition is missing (a service, a tool) or the site misbehaves: said plainly, no traceback."""


# --- PostgreSQL and Redis ---------------------------------------------------------------------------------------


def database_urls(database_url: str) -> tuple[str, str, str]:
    """(the scratch database's URL, its name, the server's maintenance database URL) for ``database_url``: the
    scratch database is ``<name>_bench`` beside the one it names, as in bench_model_page.py, never that one."""
    parts = urlsplit(database_url)
    if parts.scheme not in ("postgres", "postgresql"):
        raise Refused(
            f"DATABASE_URL names a {parts.scheme or 'non-URL'} database; the load benchmark runs on PostgreSQL only "
            "(unset DATABASE_URL for postgres@127.0.0.1:5432, or point it at a PostgreSQL server)"
        )
    scratch = f"{parts.path.lstrip('/') or 'gpufit'}_bench"
    return (
        urlunsplit(parts._replace(path=f"/{scratch}", query="")),
        scratch,
        urlunsplit(parts._replace(path="/postgres", query="")),
    )


def where(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.hostname or '127.0.0.1'}:{parts.port or ''}".rstrip(":")


def require_postgres(admin_url: str) -> None:
    import psycopg

    try:
        with psycopg.connect(admin_url, connect_timeout=3, autocommit=True) as connection:
            connection.execute("SELECT 1")
    except psycopg.Error as exc:
        raise Refused(
            f"PostgreSQL at {where(admin_url)} is not answering ({str(exc).strip().splitlines()[0]}). "
            "Start it, or point DATABASE_URL at a server this user may create databases on."
        ) from exc


def create_database(admin_url: str, name: str) -> None:
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        connection.execute(f'CREATE DATABASE "{name}"')


def drop_database(admin_url: str, name: str) -> None:
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def redis_url_for(db: int) -> str:
    """Redis db ``db`` on the server REDIS_URL names (127.0.0.1:6379 when it is unset)."""
    parts = urlsplit(os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0")
    return urlunsplit(parts._replace(path=f"/{db}", query=""))


def require_empty_redis(redis_url: str) -> None:
    import redis

    try:
        keys = redis.Redis.from_url(redis_url, socket_connect_timeout=3, socket_timeout=3).dbsize()
    except redis.RedisError as exc:
        raise Refused(f"Redis at {where(redis_url)} is not answering ({exc}). Start it, or set REDIS_URL.") from exc
    if keys:
        db = urlsplit(redis_url).path.lstrip("/")
        raise Refused(
            f"Redis db {db} at {where(redis_url)} holds {keys} keys; the benchmark needs an empty db of its own and "
            f"empties it at the end. Pick another with --redis-db, or empty it: redis-cli -n {db} flushdb"
        )


def flush_redis(redis_url: str) -> None:
    import redis

    redis.Redis.from_url(redis_url, socket_connect_timeout=3, socket_timeout=30).flushdb()


# --- The site ---------------------------------------------------------------------------------------------------


def site_environment(database_url: str, redis_url: str, ceiling_file: Path) -> dict[str, str]:
    """The environment of gunicorn and of this process's Django: production settings plus the ceiling's URL."""
    return {
        "DJANGO_SETTINGS_MODULE": SETTINGS_MODULE,
        "PYTHONPATH": str(ROOT),
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "SECRET_KEY": secrets.token_urlsafe(50),
        "API_RATE_LIMIT": API_RATE_LIMIT,
        "TRUSTED_PROXY_HOPS": "0",
        "DEBUG": "0",
        CEILING_BODY_ENV: str(ceiling_file),
    }


def load_data() -> bool:
    """Migrates the scratch database and loads what bench_model_page.py loads (in this process, with the
    environment site_environment gave); True when the page cache is in MIDDLEWARE."""
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connections

    with open(os.devnull, "w") as quiet:
        call_command("migrate", verbosity=0, stdout=quiet)
        call_command("load_bundled_data", verbosity=0, stdout=quiet)  # catalog, price snapshot, hosted API prices
        call_command("loaddata", REFERENCE_OFFERS_FIXTURE, verbosity=0, stdout=quiet)
    connections.close_all()
    return any("page_cache" in entry for entry in settings.MIDDLEWARE)


def generate_offers(rows: int) -> str:
    """Runs ``pricing_generate_offers`` for ``rows`` rows in the scratch database; '' when done, else why not."""
    from django.core.management import CommandError, call_command, get_commands, load_command_class
    from django.db import connection, connections

    name = "pricing_generate_offers"
    app = get_commands().get(name)
    if app is None:
        return f"manage.py {name} does not exist: no run at {rows:,} offer rows"
    parser = load_command_class(app, name).create_parser("manage.py", name)
    arguments = ["--rows", str(rows)]
    if any("--i-know-this-is-synthetic" in action.option_strings for action in parser._actions):
        arguments.append("--i-know-this-is-synthetic")  # the scratch database exists for this run only
    try:
        with open(os.devnull, "w") as quiet:
            call_command(name, *arguments, stdout=quiet)
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")  # what autovacuum does on a settled production database
    except (CommandError, TypeError) as exc:
        return f"manage.py {name} --rows {rows} failed: {exc}"
    finally:
        connections.close_all()
    return ""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass(frozen=True, slots=True)
class Answer:
    status: int
    headers: Message
    body: bytes


def fetch(url: str, headers: dict[str, str] | None = None) -> Answer:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return Answer(response.status, response.headers, response.read())
    except urllib.error.HTTPError as error:
        return Answer(error.code, error.headers, error.read())


class Gunicorn:
    """gunicorn serving config.wsgi (sync workers, as `make serve-prod`) in a process group of its own."""

    def __init__(self, env: dict[str, str], workers: int, log: Path) -> None:
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.log = log
        command = [
            sys.executable,
            "-m",
            "gunicorn",
            "config.wsgi:application",
            "--bind",
            f"127.0.0.1:{self.port}",
            "--workers",
            str(workers),
            "--worker-class",
            "sync",
            "--chdir",
            str(ROOT),
        ]
        self._log_file = log.open("w")
        # a session of its own: Ctrl-C reaches only this script, which stops gunicorn before dropping the database
        self.process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=self._log_file, stderr=subprocess.STDOUT, start_new_session=True
        )

    def wait_ready(self, deadline_s: float = 60) -> None:
        end = time.monotonic() + deadline_s
        while time.monotonic() < end:
            if self.process.poll() is not None:
                raise Refused(f"gunicorn exited with {self.process.returncode}:\n{self.log_tail()}")
            try:
                if fetch(self.base_url + "/healthz").status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise Refused(f"gunicorn did not answer /healthz with 200 within {deadline_s:.0f} s:\n{self.log_tail()}")

    def settle(self, deadline_s: float = 120) -> None:
        """Waits until gunicorn has worked off what an earlier wrk run left in its listen queue (wrk closes its
        sockets when it stops, but each request already sent is still read and rendered), so that no measurement
        starts behind them."""
        end = time.monotonic() + deadline_s
        while time.monotonic() < end:
            start = time.perf_counter()
            fetch(self.base_url + "/healthz")
            if time.perf_counter() - start < 0.25:
                return

    def log_tail(self) -> str:
        self._log_file.flush()
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-30:])

    def stop(self) -> None:
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGTERM)
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)
            except ProcessLookupError:
                pass
        self._log_file.close()
