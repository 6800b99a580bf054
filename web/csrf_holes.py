"""CSRF tokens in pages that many readers share.

A form on a cached page must still carry each reader's own token. Before a page is stored, every token rendered
into it becomes a placeholder of the same length (a "hole"); each time the page is served the holes are filled with
the requesting reader's token, and the CSRF cookie is set exactly as Django's CSRF middleware sets it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import CSRF_ALLOWED_CHARS, CSRF_SECRET_LENGTH, CsrfViewMiddleware, get_token

# As long as a masked token (64 characters) and unlike one (a token is letters and digits only).
HOLE = b"{{csrf-token-hole-" + b"-" * 44 + b"}}"
assert len(HOLE) == 2 * CSRF_SECRET_LENGTH

_CANDIDATE = re.compile(rb"(?<![A-Za-z0-9])[A-Za-z0-9]{%d}(?![A-Za-z0-9])" % (2 * CSRF_SECRET_LENGTH))


def _unmasked(token: str) -> str:
    """The secret a masked token carries: the inverse of Django's ``_mask_cipher_secret`` (its first half is the
    mask, the second the secret shifted by it)."""
    mask, cipher = token[:CSRF_SECRET_LENGTH], token[CSRF_SECRET_LENGTH:]
    chars = CSRF_ALLOWED_CHARS
    return "".join(chars[chars.index(c) - chars.index(m)] for c, m in zip(cipher, mask, strict=True))


def tokens_punched(request: HttpRequest, body: bytes) -> tuple[bytes, bool]:
    """The body with each CSRF token rendered for this request replaced by a hole, and whether there was one.

    Only a token that unmasks to this request's secret is replaced, so other 64-character words (hashes) stay."""
    secret = request.META.get("CSRF_COOKIE")  # set by the CSRF middleware or the first get_token()
    if not secret:
        return body, False
    found = False

    def punch(match: re.Match[bytes]) -> bytes:
        nonlocal found
        if _unmasked(match.group().decode("ascii")) != secret:
            return match.group()
        found = True
        return HOLE

    return _CANDIDATE.sub(punch, body), found


def tokens_filled(request: HttpRequest, body: bytes, respond: Callable[[bytes], HttpResponse]) -> HttpResponse:
    """``respond(body)`` with the holes filled by this reader's token, through Django's CSRF middleware so the reader
    gets (or renews) the CSRF cookie and ``Vary: Cookie`` as a freshly rendered page would."""

    def filled(request: HttpRequest) -> HttpResponse:
        return respond(body.replace(HOLE, get_token(request).encode("ascii")))

    response = CsrfViewMiddleware(filled)(request)
    assert isinstance(response, HttpResponse)  # the middleware returns what ``filled`` made
    return response
