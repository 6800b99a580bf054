"""/api/v1/: django-ninja's operations and its OpenAPI document, each behind ``api_view`` (rate, CORS, ETag),
the human docs page, and a JSON 404 for anything else under the prefix."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.urls import URLPattern, URLResolver, path, re_path

from calculator.api.docs import docs_page
from calculator.api.errors import ApiError, error_response
from calculator.api.http import api_view
from calculator.api.routes import api

app_name = "api-v1"

DATA_SECONDS = 5 * 60  # prices refresh a few times a day; the catalog rarely changes
SCHEMA_SECONDS = 60 * 60


def _not_found(request: HttpRequest, rest: str = "") -> HttpResponse:
    return error_response(ApiError(404, "not_found", "No such API resource; see /api/v1/docs."))


def _wrapped(pattern: URLPattern | URLResolver) -> URLPattern | URLResolver:
    if not isinstance(pattern, URLPattern):
        return pattern
    seconds = SCHEMA_SECONDS if pattern.name == "openapi-json" else DATA_SECONDS
    return URLPattern(pattern.pattern, api_view(pattern.callback, seconds), pattern.default_args, pattern.name)


ninja_patterns, _app, _namespace = api.urls

urlpatterns = [
    *(_wrapped(p) for p in ninja_patterns),
    path("docs", api_view(docs_page, SCHEMA_SECONDS), name="docs"),
    re_path(r"^(?P<rest>.*)$", api_view(_not_found, DATA_SECONDS)),
]
