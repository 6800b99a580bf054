"""The model page and its companions: one URL, two renderings (the whole page, or the results fragment HTMX swaps
in); the model's FAQ at its own URL; and a Markdown twin of the page for scripts and AI agents."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import get_language
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers
from markupsafe import Markup

from calculator.forms import PRESET_CONTEXTS, parse_state, state_query
from calculator.hardware import popular_hardware
from calculator.og_image import og_card
from calculator.page import commands, model_page, rig
from calculator.page_basis import PageBasis, page_basis
from models_catalog import selectors
from models_catalog.models import Model
from models_catalog.views import parsed_hub_id, unknown_model
from pricing.gpus import load_gpus
from pricing.services import prices_generation
from web.fragments import wants_fragment
from web.rig import RIG_COOKIE, RIG_COOKIE_SECONDS, RIG_FIELDS, parse_rig, remembered_rig

MARKDOWN = "text/markdown"


@dataclass(frozen=True, slots=True)
class Loaded:
    model: Model
    context: dict[str, Any]  # what the templates render; "page" is None when the model cannot be sized
    basis: PageBasis | None = None


# The page's sections that no query string changes (calculator/page_basis.py): rendered once per kept basis, which is
# per model, language, data generation and day. Their templates read only these names.
KEPT_SECTIONS = (("facts_html", "calculator/_model_facts.html"), ("similar_html", "calculator/_similar.html"))


def _kept_sections(loaded: Loaded, request: HttpRequest) -> dict[str, Markup]:
    basis = loaded.basis
    if basis is None:
        return {}
    context = {
        "facts": basis.facts,
        "model": basis.facts.model,
        "notes": basis.sources.spec.notes if basis.sources else (),
        "similar": basis.similar,
    }
    sections = {}
    for name, template in KEPT_SECTIONS:
        html = basis.rendered.get(name)
        if html is None:
            html = basis.rendered[name] = render_to_string(template, context, request=request)
        sections[name] = Markup(html)
    return sections


def _load(request: HttpRequest, org: str, name: str, suffix: str = "") -> Loaded | HttpResponse:
    """The model a URL names with everything its page shows, or the response that replaces the page (a 404 with
    search, or a permanent redirect to the catalog's spelling of the id)."""
    hub_id = parsed_hub_id(request, org, name)
    if isinstance(hub_id, HttpResponse):
        return hub_id
    model = selectors.model_by_hub_id(hub_id)
    if model is None:
        return unknown_model(request, hub_id.value, hub_id, "")
    if model.hub_id != hub_id.value:
        query = request.GET.urlencode()
        target = model.get_absolute_url().rstrip("/") + (suffix or "/")
        return redirect(target + (f"?{query}" if query else ""), permanent=True)

    basis = page_basis(model, datetime.now(UTC).date())
    facts, sources = basis.facts, basis.sources
    base_url = model.get_absolute_url()
    if sources is None:
        unsizable = {"unsizable": basis.unsizable, "page": None, "similar": basis.similar}
        return Loaded(model, {"facts": facts, "base_url": base_url, **unsizable}, basis)
    choices = sources.choices
    parsed = parse_state(with_remembered_rig(request), choices)
    query = state_query(parsed.state, choices)
    permalink = base_url + (f"?{query}" if query else "")
    inputs = sources.inputs(parsed.state)
    page = model_page(inputs)
    return Loaded(
        model,
        {
            "facts": facts,
            "page": page,
            "rig": rig(inputs, model.hub_id),
            "commands": commands(inputs, page, model.hub_id),
            "remembered_rig": remembered_rig(request) is not None,
            "state": parsed.state,
            "choices": choices,
            "ignored": parsed.ignored,
            "base_url": base_url,
            "permalink": permalink,
            "notes": sources.spec.notes,
            "context_presets": [c for c in PRESET_CONTEXTS if not choices.max_context or c <= choices.max_context],
            "unsizable": "",
            "popular_hardware": popular_hardware(sources.gpus),
            "similar": basis.similar,
        },
        basis,
    )


def with_remembered_rig(request: HttpRequest) -> QueryDict:
    """The query string, with the reader's remembered machine (a cookie: "rtx-4090,1,64") where the query names
    none; a permalink that carries the machine wins over the cookie."""
    remembered = remembered_rig(request)
    query = request.GET.copy()
    if remembered is not None and not any(name in query for name in RIG_FIELDS):
        query["rig"], query["rig_gpus"], query["ram"] = remembered.gpu, str(remembered.gpus), str(remembered.ram_gib)
    return query


@require_POST
def remember_rig(request: HttpRequest) -> HttpResponse:
    """Stores the reader's machine in a cookie (no account) and returns to the page; "forget" clears it."""
    target = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}) or not target.startswith("/"):
        target = "/"
    response = redirect(target)
    if "forget" in request.POST:
        response.delete_cookie(RIG_COOKIE)
        return response
    machine = parse_rig(",".join(request.POST.get(name, "").strip()[:24] for name in RIG_FIELDS))
    if machine is not None and any(g.slug == machine.gpu for g in load_gpus()):
        response.set_cookie(RIG_COOKIE, machine.cookie_value, max_age=RIG_COOKIE_SECONDS, samesite="Lax", httponly=True)
    return response


def _wants_markdown(request: HttpRequest) -> bool:
    accept = request.headers.get("Accept", "")
    return MARKDOWN in accept and "text/html" not in accept.split(MARKDOWN)[0]


@require_GET
@vary_on_headers("HX-Request", "Accept", "Cookie")
def model_detail(request: HttpRequest, org: str, name: str) -> HttpResponse:
    loaded = _load(request, org, name)
    if isinstance(loaded, HttpResponse):
        return loaded
    context = loaded.context
    if _wants_markdown(request):
        return _markdown(request, context)
    if wants_fragment(request) and context["page"] is not None:
        response = render(request, "calculator/_results.html", {**context, "oob": True})
        response["HX-Push-Url"] = context["permalink"]
        return response
    # state-independent sections are rendered with the page only, never with the fragment
    return render(request, "calculator/model.html", {**context, **_kept_sections(loaded, request)})


@require_GET
def model_markdown(request: HttpRequest, org: str, name: str) -> HttpResponse:
    """The same page as Markdown: ``/<lang>/models/<org>/<name>.md`` (the query string is the state, as on the page)."""
    loaded = _load(request, org, name, suffix=".md")
    if isinstance(loaded, HttpResponse):
        return loaded
    return _markdown(request, loaded.context)


def _markdown(request: HttpRequest, context: dict[str, Any]) -> HttpResponse:
    text = render_to_string("calculator/model.md", context, request=request)
    response = HttpResponse(text, content_type=f"{MARKDOWN}; charset=utf-8")
    response["Link"] = f'<{request.build_absolute_uri(context["base_url"])}>; rel="canonical"'
    return response


OG_IMAGE_SECONDS = 24 * 60 * 60


@require_GET
def model_og_image(request: HttpRequest, org: str, name: str) -> HttpResponse:
    """The model's Open Graph card (PNG) with the default state's headline numbers, cached per price generation."""
    loaded = _load(request, org, name, suffix="/og.png")
    if isinstance(loaded, HttpResponse):
        return loaded
    context = loaded.context
    key = f"og:{loaded.model.hub_id}:{get_language()}:{prices_generation()}"
    png = cache.get(key)
    if png is None:
        if context["page"] is None:
            lines = [str(context["unsizable"])]
        else:
            lines = render_to_string("calculator/og_lines.txt", context, request=request).strip().splitlines()
        png = og_card(loaded.model.display_name, lines[0], lines[1:], settings.SITE_NAME)
        cache.set(key, png, OG_IMAGE_SECONDS)
    response = HttpResponse(png, content_type="image/png")
    response["Cache-Control"] = f"public, max-age={OG_IMAGE_SECONDS}"
    return response


@require_GET
def model_faq(request: HttpRequest, org: str, name: str) -> HttpResponse:
    """The model's common questions at their own URL, answered from the live estimate and current prices."""
    loaded = _load(request, org, name, suffix="/faq/")
    if isinstance(loaded, HttpResponse):
        return loaded
    if loaded.context["page"] is None:
        return redirect(loaded.context["base_url"])
    return render(request, "calculator/faq.html", loaded.context)
