"""One URL, two renderings: the HTMX fragment or the whole page."""

from __future__ import annotations

from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class HtmxHttpRequest(HttpRequest):
    """A request django-htmx's middleware has annotated (the typing its documentation recommends)."""

    htmx: HtmxDetails


def wants_fragment(request: HttpRequest) -> bool:
    """True only for a real HTMX request. htmx 2 restores history (Back/Forward with ``historyCacheSize: 0``) by
    re-requesting the URL with ``HX-Request`` *and* ``HX-History-Restore-Request`` set; that request must get the
    whole page, or the reader is left with a bare fragment."""
    htmx = getattr(request, "htmx", None)
    return bool(htmx and not htmx.history_restore_request)
