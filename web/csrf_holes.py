"""CSRF tokens in pages that many readers share.

A form on a cached page must still carry each reader's own token. Before a page is stored, every token rendered
into it becomes a placeholder of the same length (a "hole"); each time the page is served the holes are filled with
the requesting reader's token, and the CSRF cookie is set exactly as Django's CSRF middleware sets it.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Iterator

from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import CSRF_ALLOWED_CHARS, CSRF_SECRET_LENGTH, CsrfViewMiddleware, get_token

# As long as a masked token (64 characters) and unlike one (a token is letters and digits only).
HOLE = b"{{csrf-token-hole-" + b"-" * 44 + b"}}"
assert len(HOLE) == 2 * CSRF_SECRET_LENGTH

# A candidate is a run of exactly 64 letters and digits. Found on a copy of the body with every letter and digit
# mapped to "a" and every other byte to " " (two passes in C over a 60 kB page, where a regular expression tried
# each position in turn: 1.3 ms of every page stored).
_TOKEN_LENGTH = 2 * CSRF_SECRET_LENGTH
_LETTERS_AND_DIGITS = (string.ascii_letters + string.digits).encode("ascii")
_CLASSES = bytes(ord("a") if byte in _LETTERS_AND_DIGITS else ord(" ") for byte in range(256))
_RUN = b"a" * _TOKEN_LENGTH


def _candidates(body: bytes) -> Iterator[int]:
    """Where each run of exactly 64 letters and digits starts."""
    classes = body.translate(_CLASSES)
    start = classes.find(_RUN)
    while start != -1:
        end = start + _TOKEN_LENGTH
        while end < len(classes) and classes[end] == ord("a"):
            end += 1
        if end - start == _TOKEN_LENGTH:
            yield start
        start = classes.find(_RUN, end)


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
    parts, taken = [], 0
    for start in _candidates(body):
        if _unmasked(body[start : start + _TOKEN_LENGTH].decode("ascii")) == secret:
            parts += [body[taken:start], HOLE]
            taken = start + _TOKEN_LENGTH
    if not parts:
        return body, False
    return b"".join([*parts, body[taken:]]), True


def tokens_filled(request: HttpRequest, body: bytes, respond: Callable[[bytes], HttpResponse]) -> HttpResponse:
    """``respond(body)`` with the holes filled by this reader's token, through Django's CSRF middleware so the reader
    gets (or renews) the CSRF cookie and ``Vary: Cookie`` as a freshly rendered page would."""

    def filled(request: HttpRequest) -> HttpResponse:
        return respond(body.replace(HOLE, get_token(request).encode("ascii")))

    response = CsrfViewMiddleware(filled)(request)
    assert isinstance(response, HttpResponse)  # the middleware returns what ``filled`` made
    return response
