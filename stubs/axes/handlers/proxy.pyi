# django-axes 8 (axes/handlers/proxy.py).

from typing import Any

from django.http import HttpRequest

class AxesProxyHandler:
    @classmethod
    def is_locked(cls, request: HttpRequest, credentials: dict[str, Any] | None = None) -> bool: ...
