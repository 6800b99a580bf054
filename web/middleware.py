"""Request guards every app relies on."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, JsonResponse, QueryDict

NUL = "\x00"


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
