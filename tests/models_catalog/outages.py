"""Services that are down or hung, on 127.0.0.1: a closed port, and a server that accepts and never answers."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager


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
