"""The page cache (config/page_cache.py) serving a stored page: conditional GET and HTTP caching headers, each
reader's own CSRF token, one render under a stampede, pages served while the database is down and rendered while
the cache is, and compressed copies that decode to the same page. What is stored under which key:
``test_page_cache.py``."""

from __future__ import annotations

import gzip
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import brotli
import pytest
from backports import zstd
from django.db import OperationalError, connection
from django.http import HttpRequest, HttpResponse
from django.test import Client, RequestFactory

from config.page_cache import WAIT_SECONDS, PageCacheMiddleware
from models_catalog.models import Model
from tests.config.page_cache_support import GLM, TOKEN, cache_state

pytestmark = pytest.mark.django_db


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
    assert cache_state(again) == "HIT" and again["Cache-Control"] == "public, max-age=3600"


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

    assert (cache_state(first), cache_state(second)) == ("MISS", "HIT")
    first_token = TOKEN.search(first.content).group(1).decode()
    second_token = TOKEN.search(second.content).group(1).decode()
    assert first_token != second_token
    assert second.cookies["csrftoken"].value != first.cookies["csrftoken"].value
    form = {"rig": "rtx-4090", "rig_gpus": "1", "ram": "64", "next": GLM}

    stolen = second_reader.post("/en/my-machine/", {**form, "csrfmiddlewaretoken": first_token})
    own = second_reader.post("/en/my-machine/", {**form, "csrfmiddlewaretoken": second_token})

    assert stolen.status_code == 403
    assert own.status_code == 302 and own.cookies["gpufit_rig"].value == "rtx-4090,1,64,15"


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


def test_a_render_stores_the_page_and_frees_its_lock_and_a_failed_render_frees_it_too():
    from django.core.cache import cache

    from config.page_cache import page_key

    request = RequestFactory().get("/en/methodology/")
    key = page_key(request)
    assert key is not None
    stored = PageCacheMiddleware(lambda r: HttpResponse("<p>stored</p>" * 10, content_type="text/html"))(request)
    assert stored["X-Cache"] == "MISS"
    assert cache.get(key).body == b"<p>stored</p>" * 10 and cache.get(f"{key}:lock") is None

    def failing(r: HttpRequest) -> HttpResponse:
        raise RuntimeError("the view failed")

    other = RequestFactory().get("/en/methodology/?x=1")
    other_key = page_key(other)
    with pytest.raises(RuntimeError):
        PageCacheMiddleware(failing)(other)
    assert cache.get(other_key) is None and cache.get(f"{other_key}:lock") is None
    not_storable = RequestFactory().get("/en/methodology/?x=2")
    PageCacheMiddleware(lambda r: HttpResponse("gone", status=404))(not_storable)
    assert cache.get(f"{page_key(not_storable)}:lock") is None


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

    assert cached.status_code == 200 and cache_state(cached) == "HIT"
    assert TOKEN.sub(b"", cached.content) == TOKEN.sub(b"", stored.content)
    # a new state is rendered, not served: from what this process keeps of the model (its row, its page's basis,
    # the offers), which the database going down does not take away
    assert uncached.status_code == 200 and cache_state(uncached) == "MISS"


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
    assert cache_state(first) is cache_state(second) is None  # rendered each time, stored nowhere
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
    assert compressed["Content-Encoding"] == coding and cache_state(compressed) == "HIT"
    assert TOKEN.sub(b"", _decoded(compressed)) == TOKEN.sub(b"", with_token.content)
    assert TOKEN.search(_decoded(compressed))
