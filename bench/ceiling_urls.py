"""The site's URLs plus the load benchmark's ceiling (selected by bench/settings.py, never by the site).

The ceiling is a bare view under the same gunicorn and middleware as the pages: it answers with bytes captured
from the model page (the file ``BENCH_CEILING_BODY_FILE`` names, read once per process) and does nothing else, so
it shows how fast this stack can answer a page of that size at all.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

from django.http import HttpRequest, HttpResponse
from django.urls import path

from config.urls import handler404, handler500
from config.urls import urlpatterns as site_urlpatterns

CEILING_BODY_ENV = "BENCH_CEILING_BODY_FILE"
CEILING_PATH = "bench/ceiling/"


@cache
def _captured_page() -> bytes:
    return Path(os.environ[CEILING_BODY_ENV]).read_bytes()


def ceiling(request: HttpRequest) -> HttpResponse:
    return HttpResponse(_captured_page(), content_type="text/html; charset=utf-8")


urlpatterns = [path(CEILING_PATH, ceiling, name="bench_ceiling"), *site_urlpatterns]

__all__ = ["handler404", "handler500", "urlpatterns"]
