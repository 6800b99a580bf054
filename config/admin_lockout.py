"""The answer to an admin sign-in that django-axes refuses: its own 429, plus when to try again (``Retry-After``)."""

from __future__ import annotations

from typing import Any

from axes.conf import settings as axes_settings  # type: ignore[import-untyped]
from axes.helpers import get_cool_off, get_lockout_message  # type: ignore[import-untyped]
from django.http import HttpRequest, HttpResponse


def lockout_response(
    request: HttpRequest, original_response: HttpResponse | None = None, credentials: dict[str, Any] | None = None
) -> HttpResponse:
    """django-axes's plain answer (AXES_LOCKOUT_CALLABLE): the cool-off message with its status, and Retry-After the
    cool-off in seconds (ADMIN_LOGIN_COOLOFF_MINUTES)."""
    response = HttpResponse(get_lockout_message(), status=axes_settings.AXES_HTTP_RESPONSE_CODE)
    cool_off = get_cool_off(request)
    if cool_off:
        response["Retry-After"] = str(max(1, int(cool_off.total_seconds())))
    return response
