from __future__ import annotations

import logging

from django.conf import settings
from django.http import HttpRequest
from django.utils.translation import trans_real

from config.jinja2 import MESSAGE_CATALOG, messages_of
from pricing.selectors import prices_captured_at

logger = logging.getLogger(__name__)


def _prices_captured_at():
    """The day the newest price was seen, for the footer (called only when a page renders it); None without prices.

    Computed once per price-data generation in each process (``PRICES_CAPTURED_AT``)."""
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
        # the message catalog of the language this rendering is in, read once (config/jinja2.py, gettext)
        MESSAGE_CATALOG: messages_of(trans_real.catalog()),
    }
