"""Replay recorded Hub responses (tests/data/hub/) with respx, or from a local HTTP server for subprocesses."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import respx

from tests.support import local_server

RECORDED = Path(__file__).resolve().parent.parent / "data" / "hub"
ENDPOINT = "https://huggingface.co"

QWEN_SET = (
    "model_info_Qwen3-30B-A3B",
    "config_Qwen3-30B-A3B",
    "quantized_Qwen3-30B-A3B",
    "model_info_Qwen3-30B-A3B-GGUF",
    "model_info_Qwen3-30B-A3B-FP8",
    "model_info_Qwen3-30B-A3B-4bit-mlx",
)


def recording(name: str) -> dict:
    return json.loads((RECORDED / f"{name}.json").read_text(encoding="utf-8"))


def body_bytes(rec: dict) -> bytes:
    if "json" in rec:
        return json.dumps(rec["json"]).encode()
    return rec.get("text", "").encode()


def response(name: str) -> httpx.Response:
    rec = recording(name)
    return httpx.Response(rec["status"], headers=rec["headers"], content=body_bytes(rec))


def mount(router: respx.MockRouter, name: str, endpoint: str = ENDPOINT) -> respx.Route:
    """Answer the recorded request (by path, and by query where the recording names one) with its response."""
    rec = recording(name)
    url = re.compile(re.escape(endpoint + rec["path"]) + r"(\?.*)?$")
    params = rec.get("query") or None
    return router.route(method=rec["method"], url=url, params=params).mock(return_value=response(name))


class Stall:
    """Holds the first request for one path until released (at most `limit_s`): a Hub that hangs mid-import.

    `reached` is set when that request arrives, so a test can act while the importer waits on it.
    """

    def __init__(self, path: str, limit_s: float = 60.0) -> None:
        self.path = path
        self.limit_s = limit_s
        self.reached = threading.Event()
        self.released = threading.Event()
        self._lock = threading.Lock()

    def hold(self, path: str) -> None:
        with self._lock:
            if path != self.path or self.reached.is_set():
                return
            self.reached.set()
        self.released.wait(self.limit_s)


class _Handler(BaseHTTPRequestHandler):
    recordings: list[dict] = []
    stall: Stall | None = None

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        if self.stall is not None:
            self.stall.hold(parts.path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        for rec in self.recordings:
            wanted = rec.get("query") or {}
            if rec["path"] == parts.path and all(query.get(k) == v for k, v in wanted.items()):
                body = body_bytes(rec)
                self.send_response(rec["status"])
                for key, value in rec["headers"].items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
        body = b'{"error": "Repository not found"}'
        self.send_response(404)
        self.send_header("X-Error-Code", "RepoNotFound")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


@contextmanager
def local_hub(names: tuple[str, ...], stall: Stall | None = None) -> Iterator[str]:
    """A Hub on 127.0.0.1 serving the named recordings; yields its endpoint URL. Unknown paths answer 404.

    With `stall`, the first request for its path waits until the stall is released (released on exit).
    """
    handler = type("RecordedHub", (_Handler,), {"recordings": [recording(n) for n in names], "stall": stall})
    with local_server(handler) as endpoint:
        try:
            yield endpoint
        finally:
            if stall is not None:
                stall.released.set()
