"""Admin sign-in attempts are limited per client address and per account (django-axes, config/settings.py).

Runs against whatever counts the attempts in this configuration: Redis (REDIS_URL set, the cache handler every web
process shares) or the database (the embedded default).
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from axes.handlers.proxy import AxesProxyHandler
from django.contrib.auth.hashers import MD5PasswordHasher
from django.test import RequestFactory
from django.urls import reverse

from tests.support import wait_for

pytestmark = pytest.mark.django_db

ATTACKER = "203.0.113.7"
COLLEAGUE = "198.51.100.20"
ELSEWHERE = "192.0.2.99"


class CountingHasher(MD5PasswordHasher):
    """A fast hasher that counts password checks: a refused attempt must not reach one (each costs ~0.4 s of CPU
    with the production hasher, which is what a guessing client would make the server spend)."""

    algorithm = "counting_md5"
    checks = 0

    def verify(self, password: str, encoded: str) -> bool:
        CountingHasher.checks += 1
        return super().verify(password, encoded)


@pytest.fixture
def accounts(settings, django_user_model):
    settings.PASSWORD_HASHERS = ["tests.config.test_admin_login.CountingHasher"]
    CountingHasher.checks = 0
    for username in ("alice", "bob"):
        django_user_model.objects.create_superuser(username, f"{username}@example.org", f"{username}-right-password")


def sign_in(client, username: str, password: str, address: str):
    return client.post(
        reverse("admin:login"), {"username": username, "password": password, "next": "/admin/"}, REMOTE_ADDR=address
    )


def fail_until_locked(client, settings, username: str, address: str) -> None:
    for _ in range(settings.AXES_FAILURE_LIMIT):
        response = sign_in(client, username, "a-wrong-guess", address)
        assert response.status_code in (200, 429)  # the form again; the last failure may already answer 429


def locked(username: str, address: str) -> bool:
    request = RequestFactory().post(reverse("admin:login"), REMOTE_ADDR=address)
    return AxesProxyHandler.is_locked(request, {"username": username})


def test_a_wrong_password_shows_the_form_again(client, accounts):
    response = sign_in(client, "alice", "a-wrong-guess", ATTACKER)
    assert response.status_code == 200
    assert 'name="password"' in response.content.decode()


def test_after_the_limit_the_next_attempt_is_refused_without_checking_the_password(client, settings, accounts):
    fail_until_locked(client, settings, "alice", ATTACKER)
    checks_before = CountingHasher.checks

    response = sign_in(client, "alice", "alice-right-password", ATTACKER)

    assert response.status_code == 429
    assert CountingHasher.checks == checks_before
    assert "_auth_user_id" not in client.session


def test_the_limit_counts_per_client_and_per_account(client, settings, accounts):
    fail_until_locked(client, settings, "alice", ATTACKER)

    # another client, another account: untouched
    assert sign_in(client, "bob", "a-wrong-guess", COLLEAGUE).status_code == 200
    response = sign_in(client, "bob", "bob-right-password", COLLEAGUE)
    assert response.status_code == 302
    assert response["Location"] == "/admin/"
    client.logout()
    # the guessing client, whichever account it tries next
    assert sign_in(client, "bob", "bob-right-password", ATTACKER).status_code == 429
    # the guessed account, from whichever client
    assert sign_in(client, "alice", "alice-right-password", ELSEWHERE).status_code == 429


def test_the_right_password_works_again_after_the_cool_off(client, settings, accounts):
    settings.AXES_COOLOFF_TIME = timedelta(seconds=1)
    fail_until_locked(client, settings, "alice", ATTACKER)
    assert sign_in(client, "alice", "alice-right-password", ATTACKER).status_code == 429

    assert wait_for(lambda: not locked("alice", ATTACKER), timeout=15)
    response = sign_in(client, "alice", "alice-right-password", ATTACKER)

    assert response.status_code == 302
    assert response["Location"] == "/admin/"


def test_a_refused_attempt_says_when_to_try_again(client, settings, accounts):
    settings.AXES_COOLOFF_TIME = timedelta(minutes=15)
    fail_until_locked(client, settings, "alice", ATTACKER)

    response = sign_in(client, "alice", "alice-right-password", ATTACKER)

    assert response.status_code == 429
    assert response["Retry-After"] == "900"
