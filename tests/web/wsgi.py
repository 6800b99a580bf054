"""Requests through Django's real WSGI handler, the one gunicorn calls.

Unlike the test client, it sends the body bytes exactly as a server would receive them (the test client drops a
HEAD response's body itself) and runs the request_started / request_finished hooks that check and recycle kept
database connections. Tests that use it need ``django_db(transaction=True)``: those hooks may close a connection.
"""

from __future__ import annotations

from collections.abc import Callable

from django.core.handlers.wsgi import WSGIHandler
from django.test import RequestFactory


def serve(method: str, path: str) -> tuple[str, dict[str, str], bytes]:
    """(status line, headers, body) of one request."""
    environ = RequestFactory().generic(method, path).environ
    answer: dict[str, str] = {}
    headers: dict[str, str] = {}

    def start_response(
        status: str, response_headers: list[tuple[str, str]], exc_info: object = None
    ) -> Callable[[bytes], object]:
        answer["status"] = status
        headers.update(response_headers)
        return lambda data: None

    result = WSGIHandler()(environ, start_response)
    try:
        body = b"".join(result)
    finally:
        result.close()
    return answer["status"], headers, body
