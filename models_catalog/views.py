"""Catalog pages: the list, a model's facts, the on-demand import. Thin: parse, one call, render."""

from __future__ import annotations

import contextlib
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers

from models_catalog import import_requests, new_models, selectors
from models_catalog.chips import active_filter_count, quick_chips
from models_catalog.client import client_address
from models_catalog.forms import CatalogQueryForm, HubIdForm, SuggestQueryForm
from models_catalog.hub_ids import HubId, InvalidHubId, parse_hub_id
from models_catalog.machine import machine_budget
from models_catalog.models import Model
from web.fragments import wants_fragment
from web.rig import remembered_rig


@require_GET
@vary_on_headers("HX-Request", "Cookie")  # the remembered machine (a cookie) adds the "My machine" filter
def model_list(request: HttpRequest) -> HttpResponse:
    form = CatalogQueryForm(request.GET)
    values = form.values()
    filters = form.filters()
    machine = machine_budget(remembered_rig(request))
    models = selectors.catalog_models(
        str(values["q"]),
        family=str(values["family"]),
        attention=str(values["attention"]),
        modality=str(values["modality"]),
        licence=str(values["licence"]),
        size=str(values["size"]),
        moe=str(values["moe"]),
        fits=str(values["fits"]),
        machine_bytes=machine.budget(str(values["machine"])) if machine else None,
        sort=str(values["sort"]),
    )
    page = selectors.catalog_page(models, int(values["page"]), selectors.PER_PAGE)
    importable = None
    close: list[Model] = []
    if values["q"] and not page.rows and page.number == 1:
        try:
            importable = parse_hub_id(str(values["q"]))
        except InvalidHubId:
            importable = None
        # a typo ("deepsek", "qwen 3 32"): the catalog ids and names that look like it
        close = selectors.close_matches(str(values["q"]))
    base = reverse("models_catalog:list")

    def page_url(number: int) -> str:
        query = {**filters, **({"page": str(number)} if number > 1 else {})}
        return f"{base}?{urlencode(query)}" if query else base

    context = {
        "rows": page.rows,
        "page": page,
        "page_urls": {
            "previous": page_url(page.number - 1) if page.has_previous and page.rows else None,
            "next": page_url(page.number + 1) if page.has_next else None,
            "first": page_url(1) if page.number > 1 else None,
        },
        "query": values,
        "choices": selectors.filter_choices(),
        # the unfiltered first page opens with the models listed in the last week
        "new_this_week": list(new_models.new_this_week()) if not filters and values["page"] == 1 else [],
        "importable": importable,
        "close_matches": close,
        "query_errors": sorted(form.errors),
        "machine": machine,
        "chips": quick_chips(base, filters),
        "active_filters": active_filter_count(filters),
        # a link that asks for "runs on my machine" where this browser remembers no machine: the list is unfiltered
        "machine_missing": bool(values["machine"]) and machine is None,
    }
    template = "models_catalog/_model_rows.html" if wants_fragment(request) else "models_catalog/list.html"
    return render(request, template, context)


@require_GET
@vary_on_headers("HX-Request")
def model_suggestions(request: HttpRequest) -> HttpResponse:
    """Up to eight models for the search box as the reader types. The fragment is the list the box swaps in;
    without HTMX the same query goes to the catalog list, the search a plain form submits."""
    form = SuggestQueryForm(request.GET)
    text = form.text()
    if not wants_fragment(request):
        base = reverse("models_catalog:list")
        return redirect(f"{base}?{urlencode({'q': text})}" if text else base)
    return render(request, "models_catalog/_suggestions.html", {"suggestions": selectors.suggestions(text), "q": text})


class UnknownModel(Exception):
    """A model URL names no model in the catalog (or no Hub id at all); ``model_not_found`` answers it."""

    def __init__(self, typed: str, hub_id: HubId | None, error: str = "") -> None:
        super().__init__(typed)
        self.typed, self.hub_id, self.error = typed, hub_id, error


class ModelMoved(Exception):
    """A model URL spells the id otherwise than the catalog: the page lives at ``target`` (a permanent redirect)."""

    def __init__(self, target: str) -> None:
        super().__init__(target)
        self.target = target


def hub_id_for(org: str, name: str) -> HubId:
    """The Hub id a model URL names; raises ``UnknownModel`` (with the reason) when it is not one."""
    try:
        return parse_hub_id(f"{org}/{name}")
    except InvalidHubId as exc:
        raise UnknownModel(f"{org}/{name}", None, str(exc)) from None


def model_for(request: HttpRequest, org: str, name: str, suffix: str = "/") -> Model:
    """The catalog model a URL names (``<org>/<name>`` then ``suffix``). Raises ``UnknownModel`` when there is none
    and ``ModelMoved`` when the URL spells the id otherwise than the catalog (the query string is kept)."""
    hub_id = hub_id_for(org, name)
    model = selectors.served_model(hub_id)
    if model is None:
        raise UnknownModel(hub_id.value, hub_id)
    if model.hub_id != hub_id.value:
        query = request.GET.urlencode()
        raise ModelMoved(model.get_absolute_url().rstrip("/") + suffix + (f"?{query}" if query else ""))
    return model


def model_not_found(request: HttpRequest, exc: UnknownModel) -> HttpResponse:
    """The "unknown model" page: what was typed, close matches from the catalog, and the import form."""
    context = {
        "typed": exc.typed,
        "hub_id": exc.hub_id,
        "error": exc.error,
        "matches": selectors.close_matches(exc.typed),
        "pending": selectors.import_request_for(exc.hub_id) if exc.hub_id else None,
    }
    return render(request, "models_catalog/unknown.html", context, status=404)


@require_POST
def import_start(request: HttpRequest) -> HttpResponse:
    form = HubIdForm(request.POST)
    if not form.is_valid():
        typed = request.POST.get("hub_id", "")[:200]
        context = {
            "typed": typed,
            "hub_id": None,
            "error": "; ".join(str(error) for error in form.errors.get("hub_id", [])),
            "matches": selectors.close_matches(typed),
            "pending": None,
        }
        return render(request, "models_catalog/unknown.html", context, status=400)
    hub_id: HubId = form.cleaned_data["hub_id"]
    existing = selectors.model_by_hub_id(hub_id)
    if existing is not None:
        return redirect(existing)
    try:
        import_requests.import_request_start(hub_id, client_key=client_address(request))
    except import_requests.ImportsThrottled as exc:
        return render(request, "models_catalog/throttled.html", {"hub_id": hub_id, "reason": str(exc)}, status=429)
    except import_requests.ImportsPaused:
        response = render(request, "models_catalog/paused.html", {"hub_id": hub_id}, status=503)
        response["Retry-After"] = "120"
        response["Cache-Control"] = "no-store"
        return response
    return redirect("models_catalog:import_status", org=hub_id.org, name=hub_id.name)


@require_GET
@vary_on_headers("HX-Request")
def import_status(request: HttpRequest, org: str, name: str) -> HttpResponse:
    hub_id = hub_id_for(org, name)
    with contextlib.suppress(import_requests.ImportsPaused):  # recorded on the request, which the page shows
        import_requests.import_request_requeue_lost(hub_id)
    pending = selectors.import_request_for(hub_id)
    model = selectors.model_by_hub_id(hub_id)
    if pending is None and model is None:
        raise UnknownModel(hub_id.value, hub_id)
    context = {"hub_id": hub_id, "pending": pending, "facts": selectors.model_facts(model) if model else None}
    template = "models_catalog/_import_status.html" if wants_fragment(request) else "models_catalog/import.html"
    response = render(request, template, context)
    response["Cache-Control"] = "no-store"
    return response
