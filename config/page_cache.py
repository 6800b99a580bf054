"""The page cache: rendered pages and HTMX fragments kept in the default cache (Redis in production), answered
before sessions, CSRF and the view run.

Which pages: those whose URL name is in ``CACHED_PAGES``, for GET and HEAD without a session cookie (a signed-in
user always gets a fresh page). Only a 200 that sets no cookie but the CSRF one is stored.

The key: scheme and host, path, the query string with its parameters sorted, the language, fragment or whole page
(``web.fragments.wants_fragment``), HTML or Markdown (``Accept``), the reader's remembered machine (cookie) and the
UTC day (pages show "today"). Each stored page also records the two data generations it was rendered under: prices
(bumped by every price store) and catalog (bumped by every model import). One cache read fetches the page and the
current generations together; a page from an older generation is rendered anew (and replaces the old one). A refresh
therefore shows at once, and a lookup never touches the database, so cached pages still answer while PostgreSQL is
down.

A page keeps a hole where each CSRF token was (``web.csrf_holes``); each serve fills in the reader's own token.
Pages without holes are shared by every reader, so they are also kept compressed, one copy per coding; pages with
holes differ per reader and are compressed on the way out by ``django_http_compression``.

Every served page carries an ETag (a hash of the stored bytes) and Last-Modified, answers ``If-None-Match`` /
``If-Modified-Since`` with 304, and says what a CDN may keep: ``public`` with a short max-age and
stale-while-revalidate, or ``private`` where the page carries the reader's token.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from operator import itemgetter
from typing import Any, TypeVar, cast
from urllib.parse import parse_qsl, urlencode

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.urls import Resolver404, resolve
from django.utils import translation
from django.utils.cache import get_conditional_response, has_vary_header, patch_cache_control, patch_vary_headers
from django.utils.http import http_date
from django_htmx.middleware import HtmxDetails
from redis.exceptions import RedisError

from web import compression, csrf_holes
from web.fragments import HtmxHttpRequest, wants_fragment
from web.generations import CATALOG_GENERATION, PRICES_GENERATION, request_tokens
from web.negotiation import wants_markdown
from web.rig import RIG_COOKIE

# URL names (resolved from the path) whose pages are cached. Everything else — POST, the admin, /healthz, the
# import pages, the JSON API — passes through untouched.
CACHED_PAGES = frozenset(
    {
        "home",
        "methodology",
        "validation",
        "models_catalog:list",
        "calculator:model",  # the whole page and its HTMX results fragment (one URL, two renderings)
        "calculator:model_markdown",
        "calculator:model_faq",
        "calculator:runs_on",
        "calculator:gpus",
        "calculator:gpu",
        "calculator:providers",
        "calculator:provider",
        "calculator:compare",
        # the sitemap follows the catalog generation: a discovered model is listed at once, an unchanged one's
        # lastmod stays its own
        "sitemap",
        "sitemap_section",
    }
)
# The data a page shows, each with a token in the cache that changes with it (web/generations.py).
GENERATIONS = (PRICES_GENERATION, CATALOG_GENERATION)  # in the order CachedPage.generations holds them
# Bump when CachedPage changes: entries of the old shape then are never read.
KEY_PREFIX = "page:1:"

logger = logging.getLogger(__name__)

MAX_QUERY_CHARS = 1024  # longer query strings are no reader's permalink: render, don't store
MAX_PATH_CHARS = 512  # a path longer than any page's is not looked up (nor kept among the resolved paths)
MAX_BODY_BYTES = 2 * 1024 * 1024
LOCK_SECONDS = 10  # a renderer that died frees its key after this
WAIT_SECONDS = 2.0  # how long a request waits for another one's render before rendering itself
POLL_SECONDS = 0.02
# Headers that belong to one response, not to the page.
PER_RESPONSE_HEADERS = frozenset({"content-length", "content-encoding", "set-cookie", "date", "x-cache", "x-noise"})


T = TypeVar("T")


def _unless_cache_down(default: T, call: Callable[..., T], *args: Any) -> T:
    """``call(*args)``, or ``default`` when the cache does not answer: a cache outage costs speed, never a page."""
    try:
        return call(*args)
    except RedisError as exc:
        logger.warning("page cache unavailable: %s", exc)
        return default


@dataclass(frozen=True, slots=True)
class CachedPage:
    body: bytes  # uncompressed, with csrf_holes.HOLE where each reader's token goes
    headers: tuple[tuple[str, str], ...]  # as the view answered, with ETag, Last-Modified, Cache-Control and Vary
    etag: str
    last_modified: int  # seconds since the epoch: when the page was rendered
    has_csrf_holes: bool
    generations: tuple[str, ...]  # the GENERATIONS tokens it was rendered under


# --- which pages, under which key --------------------------------------------------------------------------


@lru_cache(maxsize=4096)
def _url_name(path: str, language: str) -> str | None:
    # The language prefix of i18n_patterns matches only the active language; the cache answers before
    # LocaleMiddleware activates it.
    with translation.override(language):
        try:
            return resolve(path).view_name
        except Resolver404:
            return None


def _is_fragment(request: HttpRequest) -> bool:
    if not hasattr(request, "htmx"):  # HtmxMiddleware runs after the cache; the same rule, the same details
        cast(HtmxHttpRequest, request).htmx = HtmxDetails(request)
    return wants_fragment(request)


def sorted_query(query_string: str) -> str:
    """The query string with its parameters sorted by name; repeated values keep their order."""
    return urlencode(sorted(parse_qsl(query_string, keep_blank_values=True), key=itemgetter(0)))


def page_key(request: HttpRequest) -> str | None:
    """The cache key of the page this request asks for, or None when it must not come from the cache."""
    if settings.PAGE_CACHE_SECONDS <= 0 or request.method not in ("GET", "HEAD"):
        return None
    if settings.SESSION_COOKIE_NAME in request.COOKIES:
        return None
    query = request.META.get("QUERY_STRING", "")
    if len(query) > MAX_QUERY_CHARS or len(request.path_info) > MAX_PATH_CHARS:
        return None
    language = translation.get_language_from_path(request.path_info)
    if language is None or _url_name(request.path_info, language) not in CACHED_PAGES:
        return None
    try:
        host = request.get_host()  # pages carry absolute links (canonical, JSON-LD)
    except DisallowedHost:
        return None
    parts = (
        request.scheme or "",
        host,
        request.path,
        sorted_query(query),
        language,
        "fragment" if _is_fragment(request) else "page",
        "markdown" if wants_markdown(request) else "html",
        request.COOKIES.get(RIG_COOKIE, "")[:64],
        datetime.now(UTC).date().isoformat(),
    )
    # repr, not a join: a path may hold any character, and no two different tuples share one repr
    return KEY_PREFIX + hashlib.blake2b(repr(parts).encode(), digest_size=20).hexdigest()


# --- storing a rendered page -------------------------------------------------------------------------------


def _http_caching(response: HttpResponseBase, etag: str, last_modified: int, has_csrf_holes: bool) -> None:
    response["ETag"] = etag
    response["Last-Modified"] = http_date(last_modified)
    if has_csrf_holes:
        # The reader's own token and CSRF cookie: a shared cache must not keep it.
        patch_cache_control(response, private=True, max_age=settings.PAGE_CACHE_MAX_AGE_SECONDS)
    elif not response.has_header("Cache-Control"):
        patch_cache_control(
            response,
            public=True,
            max_age=settings.PAGE_CACHE_MAX_AGE_SECONDS,
            stale_while_revalidate=settings.PAGE_CACHE_STALE_WHILE_REVALIDATE_SECONDS,
        )
    # The key holds the reader's machine cookie; a CDN must not be coarser than the key.
    patch_vary_headers(response, ("Cookie", "Accept-Encoding"))
    if has_vary_header(response, "HX-Request"):
        # htmx restores history with HX-Request *and* this header, and must get the whole page then.
        patch_vary_headers(response, ("HX-History-Restore-Request",))


def _storable(request: HttpRequest, response: HttpResponseBase, generations: tuple[str, ...]) -> CachedPage | None:
    if request.method != "GET" or response.status_code != 200 or not isinstance(response, HttpResponse):
        return None
    if response.has_header("Content-Encoding") or set(response.cookies) - {settings.CSRF_COOKIE_NAME}:
        return None
    cache_control = response.get("Cache-Control", "")
    if any(word in cache_control for word in ("private", "no-store", "no-cache")) or response.get("Vary") == "*":
        return None
    body, has_csrf_holes = csrf_holes.tokens_punched(request, response.content)
    if len(body) > MAX_BODY_BYTES or (has_csrf_holes and settings.CSRF_USE_SESSIONS):
        return None
    # weak: the token differs per reader. SHA-256 (cut to 128 bits) because CPUs with SHA extensions hash a 60 kB
    # page in ~40 µs, BLAKE2b in ~85 µs (measured on the benchmark machine).
    etag = f'W/"{hashlib.sha256(body).hexdigest()[:32]}"'
    last_modified = int(time.time())
    _http_caching(response, etag, last_modified, has_csrf_holes)
    headers = tuple((name, value) for name, value in response.items() if name.lower() not in PER_RESPONSE_HEADERS)
    return CachedPage(body, headers, etag, last_modified, has_csrf_holes, generations)


# --- serving a stored page ---------------------------------------------------------------------------------


def _not_modified(request: HttpRequest, page: CachedPage, response: HttpResponse) -> HttpResponseBase | None:
    """A 304 when the reader's copy is current. A page with holes answers 304 only to a reader that still has
    the CSRF cookie its copy's token was made for."""
    if page.has_csrf_holes and settings.CSRF_COOKIE_NAME not in request.COOKIES:
        return None
    conditional = get_conditional_response(request, etag=page.etag, last_modified=page.last_modified, response=response)
    return None if conditional is response else conditional


def _served(request: HttpRequest, page: CachedPage, key: str) -> HttpResponseBase:
    response = HttpResponse()
    for name, value in page.headers:
        response[name] = value
    response["X-Cache"] = "HIT"
    not_modified = _not_modified(request, page, response)
    if not_modified is not None:
        return not_modified
    if request.method == "HEAD":
        response["Content-Length"] = str(len(page.body))
        return response
    if page.has_csrf_holes:

        def respond(body: bytes) -> HttpResponse:
            response.content = body
            response["Content-Length"] = str(len(body))
            return response

        return csrf_holes.tokens_filled(request, page.body, respond)
    coding = compression.accepted_coding(request)
    if coding != compression.IDENTITY and compression.compressible(response.get("Content-Type", ""), page.body):
        kept = _unless_cache_down(None, cache.get, f"{key}:{coding}")  # (etag, bytes) of the page it was made from
        if kept is not None and kept[0] == page.etag:
            compressed = kept[1]
        else:
            compressed = compression.compress(page.body, coding)
            _unless_cache_down(None, cache.set, f"{key}:{coding}", (page.etag, compressed), settings.PAGE_CACHE_SECONDS)
        response.content = compressed
        response["Content-Encoding"] = coding
    else:
        response.content = page.body
    response["Content-Length"] = str(len(response.content))
    return response


# --- the middleware ----------------------------------------------------------------------------------------


class PageCacheMiddleware:
    """Answers a cached page before sessions, CSRF and the view run; stores what the view renders.

    When a page is missing, one request renders it while the others asking for the same key wait for it (a short
    lock, taken on Redis by the same round trip that found the page missing, elsewhere with ``cache.add``), and
    render themselves only if it does not arrive within ``WAIT_SECONDS``. A miss costs two round trips on Redis:
    the read that takes the lock, and the store that frees it.
    ``pause`` and ``clock`` are the waiting seams (tests pass their own).
    """

    def __init__(
        self,
        get_response: Callable[[HttpRequest], HttpResponseBase],
        *,
        pause: Callable[[float], object] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.get_response = get_response
        self.pause = pause
        self.clock = clock

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        key = page_key(request)
        if key is None:
            return self.get_response(request)
        keys, lock = [key, *(g.key for g in GENERATIONS)], f"{key}:lock"
        read_or_lock = getattr(cache, "get_many_or_add", None) if request.method == "GET" else None
        if read_or_lock is not None:  # Redis: the page read and, where it is missing, its render lock taken at once
            found, locked = _unless_cache_down((None, False), read_or_lock, keys, lock, 1, LOCK_SECONDS)
        else:
            found, locked = _unless_cache_down(None, cache.get_many, keys), False
        if found is None:
            return self.get_response(request)  # the cache is down: render, store nothing
        generations = tuple(str(found[g.key]) if g.key in found else g.current() for g in GENERATIONS)
        page = found.get(key)
        if page is not None and page.generations == generations:
            return _served(request, page, key)
        # what the view keeps (web.kept) is keyed by the tokens read here: one round trip, one state of the data
        with request_tokens({g.key: token for g, token in zip(GENERATIONS, generations, strict=True)}):
            return self._missing(request, key, lock, generations, locked)

    def _missing(
        self, request: HttpRequest, key: str, lock: str, generations: tuple[str, ...], locked: bool
    ) -> HttpResponseBase:
        """``locked``: this request holds the page's render ``lock`` already (taken with the read)."""
        if request.method == "HEAD":
            return self.get_response(request)  # a HEAD answer has no body to store
        if locked or _unless_cache_down(True, cache.add, lock, 1, LOCK_SECONDS):
            unlocked = False
            try:
                response, page = self._rendered(request, generations)
                if page is not None:
                    _unless_cache_down(None, _store, request, key, page, lock)  # one round trip for both
                    unlocked = True
                return _answered(request, response, page)
            finally:
                if not unlocked:
                    _unless_cache_down(None, cache.delete, lock)
        deadline = self.clock() + WAIT_SECONDS
        while self.clock() < deadline:
            self.pause(POLL_SECONDS)
            polled: dict[str, Any] = _unless_cache_down({}, cache.get_many, [key, lock])
            page = polled.get(key)
            if page is None and lock not in polled:
                # The renderer is done. get_many is one read in Redis but not in every backend, so look once more:
                # the page was stored before the lock went, unless it was not storable (not a 200, a cookie).
                page = _unless_cache_down(None, cache.get, key)
                if page is None:
                    break
            if page is not None and page.generations == generations:
                return _served(request, page, key)
        response, page = self._rendered(request, generations)
        if page is not None:
            _unless_cache_down(None, _store, request, key, page, None)
        return _answered(request, response, page)

    def _rendered(
        self, request: HttpRequest, generations: tuple[str, ...]
    ) -> tuple[HttpResponseBase, CachedPage | None]:
        """The view's response and the page to store from it (None: not storable)."""
        # ``generations`` were read before the view ran: a refresh during the render leaves this page outdated.
        response = self.get_response(request)
        return response, _storable(request, response, generations)


def _store(request: HttpRequest, key: str, page: CachedPage, lock: str | None) -> None:
    """The page stored and its render lock freed, in one round trip where the cache can (Redis: web.cache), unless
    its path has had PAGE_CACHE_STATES_PER_PATH pages stored within PAGE_CACHE_SECONDS (so at most twice that many
    are kept at once): a client asking for one page under endless query strings gets it rendered, not kept."""
    seconds, bound = settings.PAGE_CACHE_SECONDS, settings.PAGE_CACHE_STATES_PER_PATH
    count_key = f"{KEY_PREFIX}stored:" + hashlib.blake2b(request.path.encode(), digest_size=20).hexdigest()
    bounded = getattr(cache, "set_within_bound", None)
    if bounded is not None:
        bounded(key, page, seconds, count_key, bound, lock)
        return
    cache.add(count_key, 0, seconds)
    try:
        stored = cache.incr(count_key)
    except ValueError:  # the count went between the two calls (culled): keep nothing rather than count wrong
        stored = bound + 1
    if stored <= bound:
        cache.set(key, page, seconds)
    if lock is not None:
        cache.delete(lock)


def _answered(request: HttpRequest, response: HttpResponseBase, page: CachedPage | None) -> HttpResponseBase:
    """What a freshly rendered page answers: the response, marked a miss when stored (or a 304 to a reader whose
    copy is current)."""
    if page is None or not isinstance(response, HttpResponse):  # only an HttpResponse is storable
        return response
    response["X-Cache"] = "MISS"
    not_modified = _not_modified(request, page, response)
    return response if not_modified is None else not_modified
