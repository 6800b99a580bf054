"""CSRF holes: a stored page keeps no reader's token, and each serve carries a token that validates for its reader."""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.http import HttpResponse
from django.middleware.csrf import get_token
from django.test import RequestFactory

from web.csrf_holes import HOLE, tokens_filled, tokens_punched


def _page(token: str) -> bytes:
    digest = hashlib.sha256(b"config").hexdigest()  # 64 characters too, but no token
    return f'<input name="csrfmiddlewaretoken" value="{token}"><code>{digest}</code><p>{token}</p>'.encode()


def test_every_token_of_this_request_becomes_a_hole_and_nothing_else_does():
    request = RequestFactory().get("/")
    own = get_token(request)
    other = get_token(RequestFactory().get("/"))  # another reader's secret
    body = _page(own) + _page(other)

    punched, found = tokens_punched(request, body)

    assert found
    assert punched.count(HOLE) == 2
    assert own.encode() not in punched and other.encode() in punched
    assert hashlib.sha256(b"config").hexdigest().encode() in punched
    assert len(punched) == len(body)


def test_a_request_that_rendered_no_token_leaves_the_body_alone():
    body = _page("x" * 64)
    assert tokens_punched(RequestFactory().get("/"), body) == (body, False)


def test_filled_holes_carry_a_token_of_the_readers_cookie_and_set_it():
    punched, _ = tokens_punched(request := RequestFactory().get("/"), _page(get_token(request)))
    reader = RequestFactory().get("/")

    response = tokens_filled(reader, punched, lambda body: HttpResponse(body))

    assert HOLE not in response.content
    secret = response.cookies[settings.CSRF_COOKIE_NAME].value
    check = RequestFactory().get("/")
    check.META["CSRF_COOKIE"] = secret
    again, found = tokens_punched(check, response.content)  # the tokens unmask to the cookie's secret
    assert found and again.count(HOLE) == 2
    assert "Cookie" in response["Vary"]


def test_a_reader_with_a_cookie_keeps_its_secret():
    punched, _ = tokens_punched(request := RequestFactory().get("/"), _page(get_token(request)))
    secret = "a" * 32
    reader = RequestFactory().get("/")
    reader.COOKIES[settings.CSRF_COOKIE_NAME] = secret

    response = tokens_filled(reader, punched, lambda body: HttpResponse(body))

    assert response.cookies[settings.CSRF_COOKIE_NAME].value == secret
    check = RequestFactory().get("/")
    check.META["CSRF_COOKIE"] = secret
    assert tokens_punched(check, response.content)[1]


def test_a_token_is_a_whole_run_of_64_letters_and_digits_wherever_it_stands():
    """The scan finds what the definition says (a run of exactly 64 letters and digits that unmasks to the secret):
    at the start and the end of the body, beside punctuation and non-ASCII text; never inside a longer run."""
    request = RequestFactory().get("/")
    token = get_token(request)
    body = f"{token}<p>é{token}</p>x{token}_{get_token(request)}".encode() + b"-" + get_token(request).encode()

    punched, found = tokens_punched(request, body)

    assert found
    assert punched.startswith(HOLE) and punched.endswith(HOLE)
    assert punched.count(HOLE) == 4  # all but the one glued to "x"
    assert f"x{token}".encode() in punched
    assert len(punched) == len(body)
