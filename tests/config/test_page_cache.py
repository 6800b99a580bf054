"""The page cache (config/page_cache.py): what is cached under which key, what never is, invalidation by the price
and catalog generations, conditional GET, each reader's own CSRF token, one render under a stampede, pages served
while the database is down, and compressed copies that decode to the same page."""

from __future__ import annotations

import gzip
import io
import re
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import brotli  # type: ignore[import-untyped]
import pytest
from backports import zstd
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import OperationalError, connection
from django.http import HttpRequest, HttpResponse
from django.test import Client, RequestFactory
from django.urls import URLPattern, URLResolver, get_resolver

from config.page_cache import CACHED_PAGES, WAIT_SECONDS, PageCacheMiddleware, sorted_query
from models_catalog import services
from models_catalog.models import Model
from pricing.api_price_services import api_prices_refresh
from pricing.bundled import gpus_sync
from pricing.services import offers_refresh
from tests.models_catalog.html import parse
from web.generations import CATALOG_GENERATION, PRICES_GENERATION

SHIPPED = Path(services.__file__).resolve().parent / "data" / "hub"
RECORDED = Path(__file__).resolve().parent.parent / "data" / "provider-apis"
GLM_ID = "zai-org/GLM-5.3-Flash"
LLAMA_ID = "meta-llama/Llama-3.1-8B-Instruct"
GLM = f"/en/models/{GLM_ID}/"
TOKEN = re.compile(rb'name="csrfmiddlewaretoken" value="([A-Za-z0-9]{64})"')

pytestmark = pytest.mark.django_db


@pytest.fixture
def seed_site():
    services.model_import_offline(SHIPPED, only=[GLM_ID])
    call_command("loaddata", "seed_offers_2026-11-13", verbosity=0)


def _cache_state(response) -> str | None:
    return response.get("X-Cache")


def _decoded(response) -> bytes:
    coding = response.get("Content-Encoding")
    body = response.content
    if coding == "br":
        return bytes(brotli.decompress(body))
    if coding == "gzip":
        return gzip.decompress(body)
    if coding == "zstd":
        return zstd.decompress(body)
    assert coding is None, coding
    return body


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

    assert (first.status_code, _cache_state(first)) == (200, "MISS")
    assert (second.status_code, _cache_state(second)) == (200, "HIT")
    assert second.content == first.content and second["Content-Type"] == first["Content-Type"]
    assert second["Content-Length"] == str(len(second.content))


def test_a_stored_page_is_served_without_the_view_even_after_the_rows_change(client, seed_site):
    """Rows changed behind the services' back (no generation bump) do not show: the answer is the stored page."""
    before = client.get("/en/models/")
    Model.objects.filter(hub_id=GLM_ID).update(display_name="Renamed behind the cache")
    after = client.get("/en/models/")
    assert _cache_state(after) == "HIT" and after.content == before.content
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
    assert _cache_state(again) == ("HIT" if shared else "MISS")


def test_sorted_query_keeps_repeated_values_in_order():
    assert sorted_query("b=2&a=2&a=1&c=") == "a=2&a=1&b=2&c="


def test_each_language_has_its_own_entry(client):
    english = client.get("/en/methodology/")
    german = client.get("/de/methodology/")
    assert _cache_state(german) == "MISS"
    assert german["Content-Language"] == "de" and german.content != english.content


def test_fragment_and_whole_page_are_separate_entries_and_history_restore_gets_the_page(client, seed_site):
    htmx = {"HX-Request": "true"}
    fragment = client.get(GLM + "?precision=int4", headers=htmx)
    page = client.get(GLM + "?precision=int4")
    restore = client.get(GLM + "?precision=int4", headers={**htmx, "HX-History-Restore-Request": "true"})

    assert (_cache_state(fragment), _cache_state(page), _cache_state(restore)) == ("MISS", "MISS", "HIT")
    assert b'class="site-header"' not in fragment.content
    assert b'class="site-header"' in page.content and b'class="site-header"' in restore.content
    assert _cache_state(client.get(GLM + "?precision=int4", headers=htmx)) == "HIT"
    vary = {v.strip() for v in page["Vary"].split(",")}
    assert {"HX-Request", "HX-History-Restore-Request", "Accept", "Cookie", "Accept-Encoding"} <= vary


def test_markdown_and_html_are_separate_entries(client, seed_site):
    html = client.get(GLM)
    markdown = client.get(GLM, headers={"Accept": "text/markdown"})
    assert _cache_state(markdown) == "MISS" and markdown["Content-Type"].startswith("text/markdown")
    assert html["Content-Type"].startswith("text/html")
    assert client.get(GLM, headers={"Accept": "text/markdown"}).content == markdown.content


def test_a_markdown_reader_never_gets_the_html_a_browser_preferring_html_was_served(client, seed_site):
    browser = client.get(GLM, headers={"Accept": "text/html,text/markdown;q=0.9"})
    assert browser["Content-Type"].startswith("text/html")

    agent = client.get(GLM, headers={"Accept": "text/markdown"})
    assert _cache_state(agent) == "MISS" and agent["Content-Type"].startswith("text/markdown")
    again = client.get(GLM, headers={"Accept": "text/html"})  # the browser's entry, still HTML
    assert _cache_state(again) == "HIT" and again["Content-Type"].startswith("text/html")


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

    assert _cache_state(with_rig) == "MISS"
    assert _machine(with_rig) == ("rtx-5090", "2") != _machine(plain)
    assert _cache_state(client.get(GLM)) == "HIT"


# --- what is never cached --------------------------------------------------------------------------------


def test_pages_outside_the_list_and_post_are_never_cached(client):
    for path in ("/healthz", "/admin/login/", "/en/models/import/org/name/"):
        client.get(path)
        assert _cache_state(client.get(path)) is None, path
    client.post("/en/my-machine/", {"rig": "rtx-4090", "rig_gpus": "1", "ram": "64", "next": "/en/"})
    assert _cache_state(client.post("/en/methodology/")) is None


def test_a_page_that_is_not_found_is_rendered_every_time(client):
    first = client.get("/en/models/nobody/nothing-here/")
    second = client.get("/en/models/nobody/nothing-here/")
    assert first.status_code == second.status_code == 404
    assert _cache_state(second) is None


def test_a_signed_in_user_gets_a_fresh_page_and_stores_none(client):
    client.get("/en/methodology/")  # stored for readers
    user = User.objects.create_user("editor", password="unused-password")
    client.force_login(user)
    assert _cache_state(client.get("/en/methodology/")) is None
    client.logout()
    client.cookies.pop("sessionid", None)
    assert _cache_state(client.get("/en/methodology/")) == "HIT"


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
    assert _cache_state(client.get("/en/methodology/")) is None


# --- invalidation ----------------------------------------------------------------------------------------


def _h200_cheapest(client) -> str:
    return parse(client.get("/en/gpus/").content).one("tr", data_gpu="h200-sxm").select("td")[-1].text


def test_a_price_refresh_shows_on_the_next_request(client):
    gpus_sync()
    raw = (RECORDED / "runpod-example.json").read_bytes()
    offers_refresh("runpod", raw=raw)
    before = _h200_cheapest(client)
    assert _cache_state(client.get("/en/gpus/")) == "HIT"

    offers_refresh("runpod", raw=raw.replace(b'"securePrice": 4.59', b'"securePrice": 0.42'))

    after = client.get("/en/gpus/")
    assert _cache_state(after) == "MISS"
    assert before.startswith("$4.59") and _h200_cheapest(client).startswith("$0.42")


def test_a_hosted_api_price_refresh_moves_the_prices_generation():
    before = PRICES_GENERATION.current()
    api_prices_refresh(raw=(RECORDED / "openrouter-recorded-models-2026-08-08.json").read_bytes())
    assert PRICES_GENERATION.current() != before


def test_a_model_import_shows_in_the_catalog_on_the_next_request(client, seed_site):
    assert LLAMA_ID.encode() not in client.get("/en/models/").content

    services.model_import_offline(SHIPPED, only=[LLAMA_ID])

    listing = client.get("/en/models/")
    assert _cache_state(listing) == "MISS"
    assert parse(listing.content).select("tr", data_hub_id=LLAMA_ID)


def test_loading_the_bundled_data_moves_the_catalog_generation():
    before = CATALOG_GENERATION.current()
    call_command("load_bundled_data", stdout=io.StringIO())
    assert CATALOG_GENERATION.current() != before


# --- conditional GET and HTTP caching --------------------------------------------------------------------


def test_if_none_match_and_if_modified_since_answer_304_without_a_body(client):
    first = client.get("/en/methodology/")
    etag, last_modified = first["ETag"], first["Last-Modified"]
    assert etag.startswith('W/"') and last_modified

    by_etag = client.get("/en/methodology/", headers={"If-None-Match": etag})
    by_date = client.get("/en/methodology/", headers={"If-Modified-Since": last_modified})
    other = client.get("/en/methodology/", headers={"If-None-Match": 'W/"something-else"'})

    assert (by_etag.status_code, by_etag.content) == (304, b"")
    assert (by_date.status_code, by_date.content) == (304, b"")
    assert by_etag["ETag"] == etag and by_etag["Cache-Control"] == first["Cache-Control"]
    assert other.status_code == 200 and other.content == first.content


def test_shared_pages_are_public_for_a_cdn_and_token_pages_private(client, settings, seed_site):
    settings.PAGE_CACHE_MAX_AGE_SECONDS = 45
    settings.PAGE_CACHE_STALE_WHILE_REVALIDATE_SECONDS = 120
    shared = client.get("/en/gpus/")
    with_token = client.get(GLM)

    assert shared["Cache-Control"] == "public, max-age=45, stale-while-revalidate=120"
    assert with_token["Cache-Control"] == "private, max-age=45"
    assert TOKEN.search(with_token.content)


def test_validation_page_keeps_its_own_cache_control(client):
    client.get("/en/validation/")
    again = client.get("/en/validation/")
    assert _cache_state(again) == "HIT" and again["Cache-Control"] == "public, max-age=3600"


def test_head_on_a_cached_page_answers_the_headers_without_a_body(client):
    page = client.get("/en/methodology/")
    head = client.head("/en/methodology/")
    assert head.status_code == 200 and head.content == b""
    assert head["ETag"] == page["ETag"] and head["Content-Length"] == str(len(page.content))


# --- CSRF: each reader's own token -----------------------------------------------------------------------


def test_a_cached_page_carries_the_second_readers_own_token(seed_site):
    first_reader = Client(enforce_csrf_checks=True)
    second_reader = Client(enforce_csrf_checks=True)
    first = first_reader.get(GLM)
    second = second_reader.get(GLM)

    assert (_cache_state(first), _cache_state(second)) == ("MISS", "HIT")
    first_token = TOKEN.search(first.content).group(1).decode()
    second_token = TOKEN.search(second.content).group(1).decode()
    assert first_token != second_token
    assert second.cookies["csrftoken"].value != first.cookies["csrftoken"].value
    form = {"rig": "rtx-4090", "rig_gpus": "1", "ram": "64", "next": GLM}

    stolen = second_reader.post("/en/my-machine/", {**form, "csrfmiddlewaretoken": first_token})
    own = second_reader.post("/en/my-machine/", {**form, "csrfmiddlewaretoken": second_token})

    assert stolen.status_code == 403
    assert own.status_code == 302 and own.cookies["gpufit_rig"].value == "rtx-4090,1,64"


def test_a_page_with_a_token_answers_304_only_to_a_reader_with_the_cookie(seed_site):
    reader = Client()
    page = reader.get(GLM)
    assert reader.get(GLM, headers={"If-None-Match": page["ETag"]}).status_code == 304
    newcomer = Client().get(GLM, headers={"If-None-Match": page["ETag"]})
    assert newcomer.status_code == 200 and TOKEN.search(newcomer.content)
    assert "csrftoken" in newcomer.cookies


# --- stampede --------------------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_concurrent_requests_for_a_missing_page_render_it_once():
    readers = 6
    renders: list[str] = []
    waiting: set[int] = set()
    all_waiting = threading.Event()
    guard = threading.Lock()

    def slow_view(request: HttpRequest) -> HttpResponse:
        renders.append(threading.current_thread().name)
        assert all_waiting.wait(10), "the other readers never waited"
        return HttpResponse("<p>rendered once</p>" * 50, content_type="text/html")

    def pause(seconds: float) -> None:
        with guard:
            waiting.add(threading.get_ident())
            if len(waiting) == readers - 1:
                all_waiting.set()
        all_waiting.wait(seconds)

    middleware = PageCacheMiddleware(slow_view, pause=pause)
    responses: list[HttpResponse] = []

    def read() -> None:
        responses.append(middleware(RequestFactory().get("/en/methodology/")))

    threads = [threading.Thread(target=read, name=f"reader-{i}") for i in range(readers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)

    assert len(renders) == 1
    assert len(responses) == readers
    assert {r.status_code for r in responses} == {200}
    assert {r.content for r in responses} == {b"<p>rendered once</p>" * 50}
    assert sorted(r["X-Cache"] for r in responses) == ["HIT"] * (readers - 1) + ["MISS"]


def test_a_waiting_request_renders_itself_after_the_bounded_wait():
    from django.core.cache import cache

    from config.page_cache import page_key

    request = RequestFactory().get("/en/methodology/")
    key = page_key(request)
    assert key is not None
    cache.add(f"{key}:lock", 1, 60)  # a renderer that never finishes
    now = [0.0]
    pauses: list[float] = []

    def pause(seconds: float) -> None:
        pauses.append(seconds)
        now[0] += seconds

    middleware = PageCacheMiddleware(
        lambda r: HttpResponse("<p>late</p>" * 10, content_type="text/html"), pause=pause, clock=lambda: now[0]
    )
    response = middleware(request)

    assert response.status_code == 200 and response.content == b"<p>late</p>" * 10
    assert now[0] >= WAIT_SECONDS and len(pauses) <= WAIT_SECONDS / min(pauses) + 1


# --- the database down -----------------------------------------------------------------------------------


@contextmanager
def _closed_port() -> Iterator[int]:
    """A port bound but never listening (so no one else takes it meanwhile): connecting to it is refused."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


@contextmanager
def _database_unreachable(django_db_blocker) -> Iterator[None]:
    """PostgreSQL: the connection points at a closed port, so every query fails to connect. SQLite's in-memory
    test database cannot be closed without losing it, so there every database access is refused instead."""
    if connection.vendor != "postgresql":
        with django_db_blocker.block():
            yield
        return
    saved = connection.settings_dict["PORT"]
    connection.close()
    try:
        with _closed_port() as port:
            connection.settings_dict["PORT"] = port
            yield
    finally:
        connection.close()
        connection.settings_dict["PORT"] = saved


@pytest.mark.django_db(transaction=True)
def test_a_cached_page_answers_while_the_database_is_down(seed_site, django_db_blocker):
    reader = Client(raise_request_exception=False)
    stored = reader.get(GLM)
    assert stored.status_code == 200

    with _database_unreachable(django_db_blocker):
        with pytest.raises((OperationalError, RuntimeError)):
            Model.objects.count()
        cached = reader.get(GLM)
        uncached = reader.get(GLM + "?precision=int4")

    assert cached.status_code == 200 and _cache_state(cached) == "HIT"
    assert TOKEN.sub(b"", cached.content) == TOKEN.sub(b"", stored.content)
    assert uncached.status_code >= 500  # the database really was down for anything not cached


def test_pages_still_render_when_the_cache_is_down(client, settings):
    with _closed_port() as port:
        settings.CACHES = {
            "default": {
                "BACKEND": "django.core.cache.backends.redis.RedisCache",
                "LOCATION": f"redis://127.0.0.1:{port}/1",
            }
        }
        first = client.get("/en/methodology/")
        second = client.get("/en/methodology/")

    assert first.status_code == second.status_code == 200
    assert _cache_state(first) is _cache_state(second) is None  # rendered each time, stored nowhere
    assert b"<h1" in second.content


# --- compression -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("coding", ["br", "gzip", "zstd"])
def test_compressed_copies_decode_to_the_same_page(client, seed_site, coding):
    shared = client.get("/en/gpus/")
    stored_copy = client.get("/en/gpus/", headers={"Accept-Encoding": coding})
    again = client.get("/en/gpus/", headers={"Accept-Encoding": coding})
    assert stored_copy["Content-Encoding"] == again["Content-Encoding"] == coding
    assert len(stored_copy.content) < len(shared.content) / 3
    assert _decoded(stored_copy) == _decoded(again) == shared.content
    assert "Accept-Encoding" in stored_copy["Vary"] and stored_copy["ETag"] == shared["ETag"]

    with_token = client.get(GLM)
    compressed = client.get(GLM, headers={"Accept-Encoding": coding})
    assert compressed["Content-Encoding"] == coding and _cache_state(compressed) == "HIT"
    assert TOKEN.sub(b"", _decoded(compressed)) == TOKEN.sub(b"", with_token.content)
    assert TOKEN.search(_decoded(compressed))
