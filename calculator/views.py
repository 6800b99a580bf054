"""The model page: one URL, two renderings (the whole page, or the results fragment HTMX swaps in)."""

from __future__ import annotations

from datetime import UTC, datetime

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers

from calculator import page_data
from calculator.forms import PRESET_CONTEXTS, parse_state, state_query
from calculator.page import model_page
from models_catalog import selectors
from models_catalog.specs import SpecUnavailable
from models_catalog.views import parsed_hub_id, unknown_model
from web.fragments import wants_fragment


@require_GET
@vary_on_headers("HX-Request")
def model_detail(request: HttpRequest, org: str, name: str) -> HttpResponse:
    hub_id = parsed_hub_id(request, org, name)
    if isinstance(hub_id, HttpResponse):
        return hub_id
    model = selectors.model_by_hub_id(hub_id)
    if model is None:
        return unknown_model(request, hub_id.value, hub_id, "")
    if model.hub_id != hub_id.value:
        query = request.GET.urlencode()
        return redirect(model.get_absolute_url() + (f"?{query}" if query else ""), permanent=True)

    facts = selectors.model_facts(model)
    today = datetime.now(UTC).date()
    try:
        sources = page_data.page_sources(model, facts, today)
    except SpecUnavailable as exc:
        return render(request, "calculator/model.html", {"facts": facts, "unsizable": str(exc), "page": None})
    choices = sources.choices
    parsed = parse_state(request.GET, choices)
    query = state_query(parsed.state, choices)
    base_url = model.get_absolute_url()
    permalink = base_url + (f"?{query}" if query else "")
    context = {
        "facts": facts,
        "page": model_page(sources.inputs(parsed.state)),
        "state": parsed.state,
        "choices": choices,
        "ignored": parsed.ignored,
        "base_url": base_url,
        "permalink": permalink,
        "notes": sources.spec.notes,
        "context_presets": [c for c in PRESET_CONTEXTS if not choices.max_context or c <= choices.max_context],
        "unsizable": "",
    }
    if wants_fragment(request):
        response = render(request, "calculator/_results.html", {**context, "oob": True})
        response["HX-Push-Url"] = permalink
        return response
    # state-independent sections are rendered with the page only, never with the fragment
    return render(request, "calculator/model.html", {**context, "similar": selectors.similar_models(model)})
