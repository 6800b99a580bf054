"""The page cache (config/page_cache.py): what is cached under which key, what never is, and invalidation by the
price and catalog generations. How a stored page is served (conditional GET, each reader's own CSRF token, one
render under a stampede, the database down, compressed copies): ``test_page_cache_serving.py``."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.http import HttpRequest, HttpResponse
from django.test import RequestFactory
from django.urls import URLPattern, URLResolver, get_resolver

from config.page_cache import CACHED_PAGES, PageCacheMiddleware, sorted_query
from models_catalog import services
from models_catalog.models import Model
from pricing.api_price_services import api_prices_refresh
from pricing.bundled import gpus_sync
from pricing.services import offers_refresh
from tests.config.page_cache_support import GLM, GLM_ID, SHIPPED, cache_state
from tests.models_catalog.html import parse
from web.generations import CATALOG_GENERATION, PRICES_GENERATION

RECORDED = Path(__file__).resolve().parent.parent / "data" / "provider-apis"
LLAMA_ID = "meta-llama/Llama-3.1-8B-Instruct"

pytestmark = pytest.mark.django_db


def _url_names() -> set[str]:
    def walk(patterns, namespace: str) -> Iterator[str]:
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
                yield from walk(pattern.url_patterns, inner)
            elif isinstance(pattern, URLPattern) and pattern.name:
                yield namespace + pattern.name

    return set(walk(get_resolver().url_patterns, ""))


# --- which pages ---------------------------------------------------------------------------------------------


def test_every_cached_page_name_is_a_url_name_and_no_private_page_is_among_them():
    assert not CACHED_PAGES - _url_names(), "a cached page name that no URL has"
    never = {"healthz", "models_catalog:import_start", "models_catalog:import_status", "calculator:remember_rig"}
    assert not CACHED_PAGES & never
    assert not any(name.startswith("admin:") for name in CACHED_PAGES)


def test_second_request_is_answered_from_the_cache_with_the_same_page(client):
    first = client.get("/en/methodology/")
    second = client.get("/en/methodology/")

    assert (first.status_code, cache_state(first)) == (200, "MISS")
    assert (second.status_code, cache_state(second)) == (200, "HIT")
    assert second.content == first.content and second["Content-Type"] == first["Content-Type"]
    assert second["Content-Length"] == str(len(second.content))


def test_a_stored_page_is_served_without_the_view_even_after_the_rows_change(client, seed_site):
    """Rows changed behind the services' back (no generation bump) do not show: the answer is the stored page."""
    before = client.get("/en/models/")
    Model.objects.filter(hub_id=GLM_ID).update(display_name="Renamed behind the cache")
    after = client.get("/en/models/")
    assert cache_state(after) == "HIT" and after.content == before.content
    assert b"Renamed behind the cache" not in after.content


@pytest.mark.parametrize(
    ("first", "second", "shared"),
    [
        ("?a=1&b=2", "?b=2&a=1", True),  # parameters sorted
        ("?a=1&a=2", "?a=2&a=1", False),  # repeated values keep their order
        ("?q=", "", False),  # an empty value is still a parameter
        ("?q=glm", "?q=llama", False),
    ],
)
def test_query_strings_are_keyed_with_sorted_parameters(client, first, second, shared):
    client.get("/en/models/" + first)
    again = client.get("/en/models/" + second)
    assert cache_state(again) == ("HIT" if shared else "MISS")


def test_sorted_query_keeps_repeated_values_in_order():
    assert sorted_query("b=2&a=2&a=1&c=") == "a=2&a=1&b=2&c="


def test_each_language_has_its_own_entry(client):
    english = client.get("/en/methodology/")
    german = client.get("/de/methodology/")
    assert cache_state(german) == "MISS"
    assert german["Content-Language"] == "de" and german.content != english.content


def test_fragment_and_whole_page_are_separate_entries_and_history_restore_gets_the_page(client, seed_site):
    htmx = {"HX-Request": "true"}
    fragment = client.get(GLM + "?precision=int4", headers=htmx)
    page = client.get(GLM + "?precision=int4")
    restore = client.get(GLM + "?precision=int4", headers={**htmx, "HX-History-Restore-Request": "true"})

    assert (cache_state(fragment), cache_state(page), cache_state(restore)) == ("MISS", "MISS", "HIT")
    assert b'class="site-header"' not in fragment.content
    assert b'class="site-header"' in page.content and b'class="site-header"' in restore.content
    assert cache_state(client.get(GLM + "?precision=int4", headers=htmx)) == "HIT"
    vary = {v.strip() for v in page["Vary"].split(",")}
    assert {"HX-Request", "HX-History-Restore-Request", "Accept", "Cookie", "Accept-Encoding"} <= vary


def test_markdown_and_html_are_separate_entries(client, seed_site):
    html = client.get(GLM)
    markdown = client.get(GLM, headers={"Accept": "text/markdown"})
    assert cache_state(markdown) == "MISS" and markdown["Content-Type"].startswith("text/markdown")
    assert html["Content-Type"].startswith("text/html")
    assert client.get(GLM, headers={"Accept": "text/markdown"}).content == markdown.content


def test_a_markdown_reader_never_gets_the_html_a_browser_preferring_html_was_served(client, seed_site):
    browser = client.get(GLM, headers={"Accept": "text/html,text/markdown;q=0.9"})
    assert browser["Content-Type"].startswith("text/html")

    agent = client.get(GLM, headers={"Accept": "text/markdown"})
    assert cache_state(agent) == "MISS" and agent["Content-Type"].startswith("text/markdown")
    again = client.get(GLM, headers={"Accept": "text/html"})  # the browser's entry, still HTML
    assert cache_state(again) == "HIT" and again["Content-Type"].startswith("text/html")


@pytest.mark.parametrize(
    ("accept", "markdown"),
    [
        ("text/markdown", True),
        ("text/markdown, text/html", True),
        ("text/html, text/markdown", False),
        ("text/html;q=0.5, text/markdown", True),
        ("text/html,text/markdown;q=0.9", False),
        ("*/*", False),
        ("text/*", False),
        ("text/markdown;q=0", False),
        ("", False),
    ],
)
def test_the_view_and_the_cache_key_read_accept_the_same_way(rf, accept, markdown):
    from web.negotiation import wants_markdown

    assert wants_markdown(rf.get("/", headers={"Accept": accept} if accept else {})) is markdown


def _machine(response) -> tuple[str, str]:
    """The GPU and GPU count the page's machine section shows."""
    page = parse(response.content)
    (gpu,) = [o.attrs["value"] for o in page.one("select", id="f-rig").select("option") if "selected" in o.attrs]
    return gpu, page.one("input", id="f-rig-gpus").attrs["value"]


def test_remembered_machine_cookie_is_part_of_the_key(client, seed_site):
    plain = client.get(GLM)
    client.cookies["gpufit_rig"] = "rtx-5090,2,64"
    with_rig = client.get(GLM)

    assert cache_state(with_rig) == "MISS"
    assert _machine(with_rig) == ("rtx-5090", "2") != _machine(plain)
    assert cache_state(client.get(GLM)) == "HIT"


# --- what is never cached --------------------------------------------------------------------------------


def test_pages_outside_the_list_and_post_are_never_cached(client):
    for path in ("/healthz", "/admin/login/", "/en/models/import/org/name/"):
        client.get(path)
        assert cache_state(client.get(path)) is None, path
    client.post("/en/my-machine/", {"rig": "rtx-4090", "rig_gpus": "1", "ram": "64", "next": "/en/"})
    assert cache_state(client.post("/en/methodology/")) is None


def test_a_page_that_is_not_found_is_rendered_every_time(client):
    first = client.get("/en/models/nobody/nothing-here/")
    second = client.get("/en/models/nobody/nothing-here/")
    assert first.status_code == second.status_code == 404
    assert cache_state(second) is None


def test_a_signed_in_user_gets_a_fresh_page_and_stores_none(client):
    client.get("/en/methodology/")  # stored for readers
    user = User.objects.create_user("editor", password="unused-password")
    client.force_login(user)
    assert cache_state(client.get("/en/methodology/")) is None
    client.logout()
    client.cookies.pop("sessionid", None)
    assert cache_state(client.get("/en/methodology/")) == "HIT"


def _middleware(view, **seams) -> PageCacheMiddleware:
    return PageCacheMiddleware(view, **seams)


def test_a_response_that_sets_a_cookie_is_not_stored():
    renders = []

    def view(request: HttpRequest) -> HttpResponse:
        renders.append(request)
        response = HttpResponse("<p>page</p>" * 20, content_type="text/html")
        response.set_cookie("chosen", "1")
        return response

    middleware = _middleware(view)
    for _ in range(2):
        response = middleware(RequestFactory().get("/en/methodology/"))
        assert response.cookies["chosen"].value == "1"
    assert len(renders) == 2


def test_a_view_that_says_private_is_not_stored():
    renders = []

    def view(request: HttpRequest) -> HttpResponse:
        renders.append(request)
        response = HttpResponse("<p>page</p>" * 20, content_type="text/html")
        response["Cache-Control"] = "private"
        return response

    middleware = _middleware(view)
    middleware(RequestFactory().get("/en/methodology/"))
    middleware(RequestFactory().get("/en/methodology/"))
    assert len(renders) == 2


def test_page_cache_seconds_zero_turns_the_cache_off(client, settings):
    settings.PAGE_CACHE_SECONDS = 0
    client.get("/en/methodology/")
    assert cache_state(client.get("/en/methodology/")) is None


# --- invalidation ----------------------------------------------------------------------------------------


def _h200_cheapest(client) -> str:
    return parse(client.get("/en/gpus/").content).one("tr", data_gpu="h200-sxm").select("td")[-1].text


def test_a_price_refresh_shows_on_the_next_request(client):
    gpus_sync()
    raw = (RECORDED / "runpod-example.json").read_bytes()
    offers_refresh("runpod", raw=raw)
    before = _h200_cheapest(client)
    assert cache_state(client.get("/en/gpus/")) == "HIT"

    offers_refresh("runpod", raw=raw.replace(b'"securePrice": 4.59', b'"securePrice": 0.42'))

    after = client.get("/en/gpus/")
    assert cache_state(after) == "MISS"
    assert before.startswith("$4.59") and _h200_cheapest(client).startswith("$0.42")


def test_a_hosted_api_price_refresh_moves_the_prices_generation():
    before = PRICES_GENERATION.current()
    api_prices_refresh(raw=(RECORDED / "openrouter-recorded-models-2026-08-08.json").read_bytes())
    assert PRICES_GENERATION.current() != before


def test_a_model_import_shows_in_the_catalog_on_the_next_request(client, seed_site):
    assert LLAMA_ID.encode() not in client.get("/en/models/").content

    services.model_import_offline(SHIPPED, only=[LLAMA_ID])

    listing = client.get("/en/models/")
    assert cache_state(listing) == "MISS"
    assert parse(listing.content).select("tr", data_hub_id=LLAMA_ID)


def test_loading_the_bundled_data_moves_the_catalog_generation():
    before = CATALOG_GENERATION.current()
    call_command("load_bundled_data", stdout=io.StringIO())
    assert CATALOG_GENERATION.current() != before


# --- bounds ------------------------------------------------------------------------------------------------


def _stored_pages() -> int:
    """Pages in the cache, Redis or local memory: keys ending in the page key's digest (not locks, counts, copies)."""
    from django.core.cache import cache

    pattern = re.compile(r"page:1:[0-9a-f]{40}$")
    store: Any = getattr(cache, "_cache", None)
    if isinstance(store, dict):  # local memory
        return sum(1 for key in store if pattern.search(key))
    client = store.get_client("k")
    return sum(1 for key in client.scan_iter("*page:1:*") if pattern.search(key.decode()))


def test_a_flood_of_query_strings_keeps_the_pages_of_one_path_under_its_bound(client, settings):
    services.model_import_offline(SHIPPED, only=[GLM_ID, LLAMA_ID])
    settings.PAGE_CACHE_STATES_PER_PATH = 4
    flood = [client.get(GLM, {"utm_source": f"crawler-{n}"}) for n in range(12)]

    assert [r.status_code for r in flood] == [200] * 12  # every state is answered, only the first few are kept
    assert _stored_pages() == 4
    assert cache_state(client.get(GLM, {"utm_source": "crawler-0"})) == "HIT"
    assert cache_state(client.get(GLM, {"utm_source": "crawler-11"})) == "MISS"  # rendered again, still not kept
    other = f"/en/models/{LLAMA_ID}/"
    client.get(other)
    assert cache_state(client.get(other)) == "HIT"  # the bound is per path: other pages are kept as before
    assert _stored_pages() == 5
