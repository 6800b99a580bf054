"""Services that are down or hung, on 127.0.0.1: a closed port, and a server that accepts and never answers."""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import redis

from tests.conftest import missing_service
from tests.support import wait_for


@contextmanager
def closed_port() -> Iterator[int]:
    """A port nothing listens on (bound, never listening, so no one else takes it): connecting is refused."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


class HungServer:
    """Accepts connections, reads what the client sends and never answers: Redis stuck (a fork, a full disk, a
    half-open connection). After `limit_s` it hangs up itself, so a client without timeouts fails the test instead
    of waiting forever; `hung_up_on` counts the clients that were still waiting then."""

    def __init__(self, limit_s: float = 30.0) -> None:
        self.limit_s = limit_s
        self.accepted = 0
        self.hung_up_on = 0
        self._lock = threading.Lock()
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(16)
        self._listener.settimeout(0.2)
        self._closing = threading.Event()
        self._threads: list[threading.Thread] = []
        self._connections: list[socket.socket] = []
        self.port = self._listener.getsockname()[1]

    def __enter__(self) -> HungServer:
        thread = threading.Thread(target=self._accept, daemon=True)
        thread.start()
        self._threads.append(thread)
        return self

    def __exit__(self, *exc: object) -> None:
        self._closing.set()
        with self._lock:
            for conn in self._connections:
                with contextlib.suppress(OSError):  # the client has gone already
                    conn.shutdown(socket.SHUT_RDWR)
        for thread in self._threads:
            thread.join(timeout=5)
        self._listener.close()

    def _accept(self) -> None:
        while not self._closing.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            with self._lock:
                self.accepted += 1
                self._connections.append(conn)
            thread = threading.Thread(target=self._hold, args=(conn,), daemon=True)
            thread.start()
            self._threads.append(thread)

    def _hold(self, conn: socket.socket) -> None:
        conn.settimeout(self.limit_s)
        with conn:
            try:
                while conn.recv(4096):
                    pass  # read every command, answer none; the client closing its side ends this
            except TimeoutError:
                with self._lock:
                    self.hung_up_on += 1
            except OSError:
                pass


class OwnRedis:
    """A redis-server of the test's own on a free loopback port, to kill (SIGKILL: no shutdown save) and start again
    on the same port: Redis going away and coming back. ``persistent``: append-only, as the broker runs in
    docker-compose.yml, so its keys outlive the kill; otherwise it comes back empty, as the cache does."""

    def __init__(self, directory: Path, persistent: bool = False) -> None:
        self.directory = directory
        self.persistent = persistent
        self.port = _free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            missing_service("redis-server is not installed")
        persistence = ["--appendonly", "yes", "--appendfsync", "always"] if self.persistent else ["--appendonly", "no"]
        command = [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", *persistence]
        self.process = subprocess.Popen(
            [*command, "--dir", str(self.directory)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        client = redis.Redis(port=self.port, socket_connect_timeout=0.5)
        if not wait_for(lambda: _answers(client), 10):
            self.kill()
            raise RuntimeError(f"redis-server on port {self.port} did not start")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
        self.process = None

    def __enter__(self) -> OwnRedis:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.kill()


def _answers(client: redis.Redis) -> bool:
    try:
        return bool(client.ping())
    except redis.RedisError:
        return False


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
