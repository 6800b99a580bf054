"""Request guards every app relies on."""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import MiddlewareNotUsed
from django.core.handlers.exception import get_exception_response
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse, QueryDict, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.template import loader
from django.urls import Resolver404, get_resolver, resolve

logger = logging.getLogger(__name__)

NUL = "\x00"
# How long a client is asked to wait when the database does not answer (a restart, a failover).
DATABASE_RETRY_AFTER_S = 30


class HeadAsGet:
    """HEAD is answered wherever GET is, with GET's status and headers and no body (RFC 9110, section 9.3.2): uptime
    monitors and load balancers probe with HEAD, and views (``require_GET``), the sitemaps and the JSON API know only
    GET. One rule for every URL: everything below this middleware sees a GET, and the body is dropped here, keeping
    its Content-Length."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if request.method != "HEAD":
            return self.get_response(request)
        request.method = "GET"
        try:
            response = self.get_response(request)
        finally:
            request.method = "HEAD"  # access logs and signal handlers record what the client asked for
        if isinstance(response, StreamingHttpResponse):
            response.streaming_content = []  # a file being served is still closed with the response
        elif isinstance(response, HttpResponse):
            if not response.has_header("Content-Length"):
                response["Content-Length"] = str(len(response.content))
            response.content = b""
        return response


class DatabaseUnavailable:
    """The database not answering (down, restarting, out of connections) is a 503 with Retry-After, not a 500: the
    JSON API answers its error body, pages a short page rendered without touching the database. The exception
    goes to the log; the response names no host or port."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, OperationalError | InterfaceError):
            return None
        logger.error("database unavailable while serving %s", request.path, exc_info=exception)
        response: HttpResponse
        if request.path.startswith("/api/"):
            body = {
                "error": {
                    "code": "unavailable",
                    "message": f"The service is briefly unavailable; try again in {DATABASE_RETRY_AFTER_S} s.",
                    "parameters": {},
                }
            }
            response = JsonResponse(body, status=503)
        else:
            # Rendered like config.views.server_error: no context processors, which may query the database.
            html = loader.get_template("503.html").render({"request": request, "site_name": settings.SITE_NAME})
            response = HttpResponse(html, status=503)
        response["Retry-After"] = str(DATABASE_RETRY_AFTER_S)
        response["Cache-Control"] = "no-store"
        return response


class NulCharacterGuard:
    """A NUL character in a query value can reach no database (PostgreSQL refuses it in text), so it never gets
    that far: the JSON API answers 400 naming the parameter; pages read the value with the NUL removed, and
    their own bounds then decide what is usable."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        tainted = {key for key, values in request.GET.lists() if NUL in key or any(NUL in v for v in values)}
        if tainted:
            if request.path.startswith("/api/"):
                names = sorted(key.replace(NUL, "\\0") for key in tainted)
                body = {
                    "error": {
                        "code": "bad_parameter",
                        "message": f"Unusable parameter(s): {', '.join(names)}.",
                        "parameters": {name: "contains a NUL character" for name in names},
                    }
                }
                return JsonResponse(body, status=400)
            cleaned = QueryDict(mutable=True)
            for key, values in request.GET.lists():
                cleaned.setlist(key.replace(NUL, ""), [v.replace(NUL, "") for v in values])
            request.GET = QueryDict(cleaned.urlencode())  # immutable again, as Django hands it to views
        return self.get_response(request)


class NotFoundPageUnderDebug:
    """Under DEBUG (``make run``) Django answers a 404 with its technical page, which lists every URL pattern, the
    admin's included; this answers with the site's own 404 page (``handler404``) instead, as production does. It
    sits inside LocaleMiddleware and CommonMiddleware, so their redirects of a 404 (the language prefix, the
    trailing slash) still happen. Without DEBUG Django already does this, and the middleware steps aside."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        if not settings.DEBUG:
            raise MiddlewareNotUsed
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        # An address no pattern matches fails before any view, where Django turns it into its technical page.
        try:
            resolve(request.path_info, getattr(request, "urlconf", None))
        except Resolver404 as exc:
            return self._not_found(request, exc)
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponseBase | None:
        return self._not_found(request, exception) if isinstance(exception, Http404) else None

    def _not_found(self, request: HttpRequest, exception: Exception) -> HttpResponseBase:
        # what Django itself answers without DEBUG
        return get_exception_response(request, get_resolver(getattr(request, "urlconf", None)), 404, exception)
