# django-ratelimit 4 (django_ratelimit/core.py): get_usage's answer, or None when the count failed and
# RATELIMIT_FAIL_OPEN is set.

from collections.abc import Callable, Iterable
from typing import TypedDict

from django.http import HttpRequest

class Usage(TypedDict):
    count: int
    limit: int
    should_limit: bool
    time_left: int

def get_usage(
    request: HttpRequest,
    group: str | None = None,
    fn: Callable[..., object] | None = None,
    key: str | Callable[[str, HttpRequest], str] | None = None,
    rate: str | Callable[[str, HttpRequest], str | tuple[int, int] | None] | None = None,
    method: str | Iterable[str | None] = ...,
    increment: bool = False,
) -> Usage | None: ...
