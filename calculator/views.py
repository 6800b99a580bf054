"""The model page and its companions: one URL, two renderings (the whole page, or the results fragment HTMX swaps
in); the model's FAQ at its own URL; and a Markdown twin of the page for scripts and AI agents."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers

from calculator.og_image import og_card
from calculator.page.view import ModelPageView, basis_sections, deferred_block, kept_sections, model_page_view
from models_catalog.views import model_for
from pricing.gpus import load_gpus
from web.fragments import HtmxHttpRequest, wants_fragment
from web.generations import CATALOG_GENERATION, PRICES_GENERATION
from web.kept import Kept
from web.negotiation import MARKDOWN, wants_markdown
from web.rig import MACOS_FIELD, RIG_COOKIE, RIG_COOKIE_SECONDS, RIG_FIELDS, parse_rig

OG_IMAGE_SECONDS = 24 * 60 * 60
# The share card shows the model's name and its default state's headline in the reader's language: a rename, a
# re-import or a price refresh draws it anew.
OG_CARDS: Kept[bytes] = Kept(
    "og-card", depends_on=(CATALOG_GENERATION, PRICES_GENERATION), per_language=True, seconds=OG_IMAGE_SECONDS
)


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
    machine = parse_rig(",".join(request.POST.get(name, "").strip()[:24] for name in (*RIG_FIELDS, MACOS_FIELD)))
    if machine is not None and any(g.slug == machine.gpu for g in load_gpus()):
        response.set_cookie(RIG_COOKIE, machine.cookie_value, max_age=RIG_COOKIE_SECONDS, samesite="Lax", httponly=True)
    return response


@require_GET
@vary_on_headers("HX-Request", "Accept", "Cookie")
def model_detail(request: HtmxHttpRequest, org: str, name: str) -> HttpResponse:
    view = model_page_view(request, model_for(request, org, name))
    if wants_markdown(request):
        return _markdown(request, view)
    if wants_fragment(request) and view.page is not None:
        block = deferred_block(request)
        if block is not None:  # one block the page left to a placeholder, now scrolled into view
            return render(request, block, view.template_context())
        sections = kept_sections(request, view, fragment=True)
        response = render(
            request, "calculator/_results.html", {**view.template_context(), "oob": True, "section_html": sections}
        )
        response["HX-Push-Url"] = view.permalink
        return response
    # state-independent sections are rendered with the page only, never with the fragment
    context = {**view.template_context(), **basis_sections(request, view), "section_html": kept_sections(request, view)}
    return render(request, "calculator/model.html", context)


@require_GET
def model_markdown(request: HttpRequest, org: str, name: str) -> HttpResponse:
    """The same page as Markdown: ``/<lang>/models/<org>/<name>.md`` (the query string is the state, as on the page)."""
    return _markdown(request, model_page_view(request, model_for(request, org, name, suffix=".md")))


def _markdown(request: HttpRequest, view: ModelPageView) -> HttpResponse:
    text = render_to_string("calculator/model.md", view.template_context(), request=request)
    response = HttpResponse(text, content_type=f"{MARKDOWN}; charset=utf-8")
    response["Link"] = f'<{request.build_absolute_uri(view.base_url)}>; rel="canonical"'
    return response


@require_GET
def model_og_image(request: HttpRequest, org: str, name: str) -> HttpResponse:
    """The model's Open Graph card (PNG) with the default state's headline numbers."""
    model = model_for(request, org, name, suffix="/og.png")

    def drawn() -> bytes:
        view = model_page_view(request, model)
        if view.page is None:
            lines = [view.unsizable]
        else:
            text = render_to_string("calculator/og_lines.txt", view.template_context(), request=request)
            lines = text.strip().splitlines()
        return og_card(model.display_name, lines[0], lines[1:], settings.SITE_NAME)

    response = HttpResponse(OG_CARDS.get(drawn, model.hub_id), content_type="image/png")
    response["Cache-Control"] = f"public, max-age={OG_IMAGE_SECONDS}"
    return response


@require_GET
def model_faq(request: HttpRequest, org: str, name: str) -> HttpResponse:
    """The model's common questions at their own URL, answered from the live estimate and current prices."""
    view = model_page_view(request, model_for(request, org, name, suffix="/faq/"))
    if view.page is None:
        return redirect(view.base_url)
    return render(request, "calculator/faq.html", view.template_context())
