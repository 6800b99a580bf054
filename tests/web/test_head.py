"""HEAD is answered wherever GET is (web.middleware.HeadAsGet): the same status and headers, no body."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import call_command

from models_catalog import services
from tests.web.wsgi import serve

SHIPPED = Path(services.__file__).resolve().parent / "data" / "hub"
GLM = "zai-org/GLM-5.3-Flash"

# Every page type a monitor, a crawler or a load balancer may probe, the JSON API and a static file.
URLS = [
    "/healthz",
    "/robots.txt",
    "/favicon.ico",
    "/llms.txt",
    "/sitemap.xml",
    "/sitemap-models.xml",
    "/en/",
    "/de/",
    "/en/methodology/",
    "/en/validation/",
    "/en/models/",
    f"/en/models/{GLM}/",
    f"/en/models/{GLM}/faq/",
    f"/en/models/{GLM}.md",
    "/en/gpus/",
    "/en/gpus/h100-sxm/",
    "/en/providers/",
    "/en/compare/",
    "/api/v1/models",
    f"/api/v1/models/{GLM}",
    f"/api/v1/estimate?model={GLM}",
    "/api/v1/gpus",
    "/api/v1/openapi.json",
    "/api/v1/docs",
    "/static/css/site.css",
]
# Headers that belong to one response, not to the resource: when it was sent, and whether a cache answered it.
PER_RESPONSE = {"date", "set-cookie", "x-cache", "age", "x-noise"}


def headers_of(response) -> dict[str, str]:
    return {name.lower(): value for name, value in response.items() if name.lower() not in PER_RESPONSE}


@pytest.fixture
def site():
    services.model_import_offline(SHIPPED, only=[GLM])
    call_command("loaddata", "seed_offers_2026-11-13", verbosity=0)


@pytest.mark.django_db
@pytest.mark.parametrize("path", URLS)
def test_head_answers_like_get_with_the_same_headers_and_no_body(client, site, path):
    get = client.get(path)
    head = client.head(path)

    assert get.status_code == 200, path
    assert head.status_code == 200, path
    assert head.getvalue() == b""
    assert headers_of(head) == headers_of(get)
    assert int(head["Content-Length"]) == len(get.getvalue()) > 0


@pytest.mark.django_db
def test_head_of_a_missing_page_is_the_same_404(client):
    get = client.get("/en/no-such-page/")
    head = client.head("/en/no-such-page/")
    assert (get.status_code, head.status_code) == (404, 404)
    assert headers_of(head) == headers_of(get)


@pytest.mark.django_db
def test_head_does_not_open_post_only_urls(client):
    assert client.head("/en/models/import/").status_code == 405


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("path", ["/healthz", "/en/", "/api/v1/gpus", "/sitemap.xml", "/static/css/site.css"])
def test_the_wsgi_application_sends_no_body_for_head(site, path):
    get_status, _, get_body = serve("GET", path)
    head_status, head_headers, head_body = serve("HEAD", path)

    assert get_status == head_status == "200 OK"
    assert head_body == b""
    assert len(get_body) > 0
    assert head_headers["Content-Length"] == str(len(get_body))
