from __future__ import annotations

import logging

from django.conf import settings
from django.http import HttpRequest

from pricing.selectors import prices_captured_at

logger = logging.getLogger(__name__)


def _prices_captured_at():
    """The day the newest price was seen, for the footer (called only when a page renders it); None without prices.

    A cache read per page: the selector computes it once per price-data generation."""
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
