"""Small helpers the test packages share: waiting on a condition, and a local HTTP server for subprocesses."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


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
