"""The one rule for "fragment or page": a fragment only for a real HTMX request, never for a history restore."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from django.http import HttpResponse
from django.test import RequestFactory
from django_htmx.middleware import HtmxMiddleware

from web.fragments import wants_fragment

ROOT = Path(__file__).resolve().parents[2]


def _request(headers: dict[str, str]):
    request = RequestFactory().get("/en/models/", headers=headers)
    HtmxMiddleware(lambda r: HttpResponse())(request)
    return request


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({}, False),
        ({"HX-Request": "true"}, True),
        ({"HX-Request": "true", "HX-History-Restore-Request": "true"}, False),
        ({"HX-History-Restore-Request": "true"}, False),
    ],
)
def test_fragment_only_for_a_real_htmx_request(headers, expected):
    assert wants_fragment(_request(headers)) is expected


def test_a_request_without_the_middleware_gets_the_page():
    assert wants_fragment(RequestFactory().get("/")) is False


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/en/models/?q=Qwen"])
def test_history_restore_request_gets_the_whole_page(client, path):
    restore = client.get(path, headers={"HX-Request": "true", "HX-History-Restore-Request": "true"})
    assert restore.status_code == 200
    assert b'class="site-header"' in restore.content
    fragment = client.get(path, headers={"HX-Request": "true"})
    assert b'class="site-header"' not in fragment.content
    assert "HX-Request" in fragment["Vary"]


def test_no_view_decides_fragment_or_page_by_itself():
    offenders = []
    for path in ROOT.glob("*/views.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == "htmx" and getattr(node.value, "id", "") == "request":
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == [], "use web.fragments.wants_fragment(request)"


@pytest.mark.django_db
def test_a_nul_character_in_the_query_never_reaches_the_database(client):
    api = client.get("/api/v1/models?q=a%00b")
    assert api.status_code == 400 and api.json()["error"]["parameters"] == {"q": "contains a NUL character"}
    assert client.get("/en/models/?q=a%00b").status_code == 200
    assert client.get("/en/compare/?models=zai-org/GLM%005").status_code == 200
