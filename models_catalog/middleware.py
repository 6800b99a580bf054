"""One handler for model URLs that name no catalog model: every view raises (``models_catalog.views.model_for``),
this answers — the "unknown model" page with search and import, or the permanent redirect to the catalog's
spelling of the id."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.http.response import HttpResponseBase

from models_catalog.views import ModelMoved, UnknownModel, model_not_found


class ModelNotFound:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, UnknownModel):
            return model_not_found(request, exception)
        if isinstance(exception, ModelMoved):
            return HttpResponsePermanentRedirect(exception.target)
        return None
