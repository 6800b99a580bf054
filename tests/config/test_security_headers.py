"""Security headers every response carries, and which proxy headers the site believes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DENIED_FEATURES = ("camera", "microphone", "geolocation", "browsing-topics", "payment", "usb")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/en/", 200),
        ("/healthz", 200),
        ("/api/v1/gpus", 200),
        ("/robots.txt", 200),
        ("/static/css/site.css", 200),
        ("/en/no-such-page/", 404),
    ],
)
def test_every_response_denies_browser_features_the_site_does_not_use(client, path, status):
    response = client.get(path)
    assert response.status_code == status
    policy = {
        directive.split("=", 1)[0]: directive.split("=", 1)[1]
        for directive in response["Permissions-Policy"].split(", ")
    }
    for feature in DENIED_FEATURES:
        assert policy[feature] == "()", feature
    assert "interest-cohort" not in policy  # retired with FLoC: browsers log an error for a name they do not know
    assert "bluetooth" not in policy  # Chromium logs "Unrecognized feature: 'bluetooth'" on every page
    assert "clipboard-write" not in policy  # the copy buttons keep the default (this origin)


PROBE = """
import json
from django.conf import settings
print(json.dumps({"proxy_ssl_header": settings.SECURE_PROXY_SSL_HEADER, "ssl_redirect": settings.SECURE_SSL_REDIRECT}))
"""


def settings_under(env: dict[str, str]) -> dict:
    clean = {k: v for k, v in os.environ.items() if k not in {"HTTPS", "TRUSTED_PROXY_HOPS"}}
    result = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env={**clean, "DJANGO_SETTINGS_MODULE": "config.settings", **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    ("env", "believed"),
    [
        ({}, False),
        ({"HTTPS": "1"}, False),  # HTTPS served directly: a client could claim X-Forwarded-Proto: https itself
        ({"HTTPS": "1", "TRUSTED_PROXY_HOPS": "0"}, False),
        ({"HTTPS": "1", "TRUSTED_PROXY_HOPS": "1"}, True),
        ({"TRUSTED_PROXY_HOPS": "2"}, True),
    ],
)
def test_x_forwarded_proto_is_believed_only_behind_a_trusted_proxy(env, believed):
    values = settings_under(env)
    assert values["proxy_ssl_header"] == (["HTTP_X_FORWARDED_PROTO", "https"] if believed else None)
    assert values["ssl_redirect"] is (env.get("HTTPS") == "1")
