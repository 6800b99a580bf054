from __future__ import annotations

import logging

from django.conf import settings
from django.http import HttpRequest

logger = logging.getLogger(__name__)


def _prices_captured_at():
    """The newest successful price capture, for the footer; None when there are no prices yet."""
    try:
        from pricing.selectors import prices_captured_at
    except ImportError:
        return None
    try:
        return prices_captured_at()
    except Exception:  # a footer must never take a page down
        logger.exception("price capture date unavailable")
        return None


def site(request: HttpRequest) -> dict:
    return {
        "site_name": settings.SITE_NAME,
        "languages": settings.LANGUAGES,
        "prices_captured_at": _prices_captured_at,
    }
