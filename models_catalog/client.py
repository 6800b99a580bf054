"""Who is asking: the client address that the per-client import limit, the API's rate limit (``calculator.api.http``)
and the admin sign-in limit (django-axes, ``AXES_CLIENT_IP_CALLABLE``) count against."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest


def client_address(request: HttpRequest) -> str:
    """REMOTE_ADDR, or behind TRUSTED_PROXY_HOPS reverse proxies the address the outermost trusted proxy saw.

    Each proxy appends the address it received the request from to X-Forwarded-For, so with N trusted proxies the
    N-th entry from the right is the client; anything further left was written by the client and can be forged.
    """
    hops = settings.TRUSTED_PROXY_HOPS
    if hops > 0:
        forwarded = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if part.strip()]
        if len(forwarded) >= hops:
            return forwarded[-hops]
    return request.META.get("REMOTE_ADDR", "")
