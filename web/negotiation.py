"""Which rendering of a page the reader asked for: HTML or Markdown (``Accept``). The view and the page cache's key
both ask ``wants_markdown``, so a page is never stored under the other rendering's key."""

from __future__ import annotations

from django.http import HttpRequest

HTML = "text/html"
MARKDOWN = "text/markdown"


def wants_markdown(request: HttpRequest) -> bool:
    """True when ``Accept`` prefers Markdown to HTML: by quality, then by specificity, then by order (RFC 9110
    section 12.5.1, as Django's ``get_preferred_type`` ranks them). No ``Accept``, ``*/*`` or ``text/*`` get HTML."""
    return request.get_preferred_type([HTML, MARKDOWN]) == MARKDOWN
