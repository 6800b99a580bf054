"""What every /api/v1/ response shares: the per-client rate, CORS for reads, ETag / 304 and Cache-Control.

Applied to each URL the API serves (``calculator.api.urls``), around django-ninja's views, so a 429 or a 304 is
answered before any work is done or after the body exists, and the OpenAPI document gets the same treatment.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.middleware.http import ConditionalGetMiddleware
from django.utils import translation
from django_ratelimit.core import get_usage

from calculator.api.errors import ApiError, error_response
from models_catalog.client import client_address

View = Callable[..., HttpResponse]
READS = ("GET", "HEAD", "OPTIONS")


def _client(group: str, request: HttpRequest) -> str:
    return client_address(request) or "unknown"


def _limited(request: HttpRequest) -> HttpResponse | None:
    """A 429 past the client's rate (API_RATE_LIMIT, counted in the `counters` cache: Redis in production, each
    process on its own while Redis is away; a count that still cannot be read lets the request through)."""
    rate = settings.API_RATE_LIMIT
    if not rate:
        return None
    usage = get_usage(request, group="api-v1", fn=None, key=_client, rate=rate, increment=True)
    if usage is None or not usage["should_limit"]:
        return None
    retry_after = max(1, int(usage["time_left"]))
    response = error_response(
        ApiError(429, "rate_limited", f"More than {rate} requests; try again in {retry_after} s.")
    )
    response["Retry-After"] = str(retry_after)
    return response


def _preflight() -> HttpResponse:
    response = HttpResponse(status=204)
    response["Access-Control-Allow-Methods"] = ", ".join(READS)
    response["Access-Control-Allow-Headers"] = "If-None-Match, Content-Type"
    response["Access-Control-Max-Age"] = "86400"
    response["Allow"] = "GET, HEAD, OPTIONS, POST"
    return response


def _conditional(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    """A strong ETag of the body, and 304 when the client has it (Django's conditional GET)."""
    answered = ConditionalGetMiddleware(lambda _: response)(request)
    assert isinstance(answered, HttpResponse)  # the middleware runs synchronously around a finished response
    return answered


def api_view(view: View, max_age: int) -> View:
    @functools.wraps(view)
    def wrapped(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
        method = request.method or "GET"
        if method == "OPTIONS":
            response = _preflight()
        else:
            limited = _limited(request)
            if limited is not None:
                response = limited
            else:
                head = method == "HEAD"
                if head:
                    request.method = "GET"  # same headers, no body
                with translation.override("en"):
                    try:
                        response = view(request, *args, **kwargs)
                    except Http404:
                        response = error_response(ApiError(404, "not_found", "No such API resource."))
                if method in ("GET", "HEAD") and response.status_code == 200:
                    response["Cache-Control"] = f"public, max-age={max_age}"
                    response = _conditional(request, response)
                elif not response.has_header("Cache-Control"):
                    response["Cache-Control"] = "no-store"
                if head:
                    request.method = "HEAD"
                    response.content = b""
        if method in READS:
            response["Access-Control-Allow-Origin"] = "*"
            response["Access-Control-Expose-Headers"] = "ETag, Retry-After"
        return response

    return wrapped
