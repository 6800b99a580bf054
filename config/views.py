from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from calculator.hardware import capacity_comparison
from calculator.home import home_answers, home_machines
from calculator.page.sources import model_spec
from calculator.reference_page import REFERENCE_MODEL, ReferenceRow, reference_comparison
from config import health
from config.methodology import CHANGES, SOURCES
from models_catalog.selectors import featured_models, model_by_hub_id
from models_catalog.specs import SpecUnavailable
from pricing.gpus import load_gpus
from pricing.owned import owned_data
from web.rig import remembered_rig


@require_GET
@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    results = health.run_checks()
    failed = {name: reason for name, reason in results.items() if reason is not None}
    body = {
        "status": "fail" if failed else "ok",
        "checks": {name: ("fail" if name in failed else "ok") for name in results},
    }
    if failed:
        body["failed"] = failed
    return JsonResponse(body, status=503 if failed else 200)


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    context = {
        "featured_models": featured_models(),
        "answers": home_answers(),
        "machines": home_machines(remembered_rig(request)),
    }
    response = render(request, "home.html", context)
    patch_vary_headers(response, ("Cookie",))  # the machine lists follow the remembered machine
    return response


def _reference_rows() -> tuple[ReferenceRow, ...]:
    """The reference page's GLM-5.3-Flash figures beside ours; none while the catalog does not list the model."""
    model = model_by_hub_id(REFERENCE_MODEL)
    if model is None:
        return ()
    try:
        spec = model_spec(model)
    except SpecUnavailable:
        return ()
    return reference_comparison(spec, load_gpus())


@require_GET
def methodology(request: HttpRequest) -> HttpResponse:
    context = {
        "sources": SOURCES,
        "changes": CHANGES,
        "capacity": capacity_comparison(load_gpus()),
        "owned": owned_data(),
        "reference_rows": _reference_rows(),
    }
    return render(request, "methodology.html", context)


@require_GET
def robots_txt(request: HttpRequest) -> HttpResponse:
    lines = [
        "User-agent: *",
        # a moved admin (ADMIN_PATH) is not named here: robots.txt is public, and would tell anyone where it is
        *(["Disallow: /admin/"] if settings.ADMIN_PATH == "admin/" else []),
        "Disallow: /healthz",
        "",
        f"Sitemap: {request.build_absolute_uri(reverse('sitemap'))}",
        "",
    ]
    response = HttpResponse("\n".join(lines), content_type="text/plain; charset=utf-8")
    response["Cache-Control"] = "public, max-age=86400"
    return response


# static/img/favicon.svg drawn with Pillow at 16, 32 and 48 px, for clients that ask for /favicon.ico (the pages
# link the SVG)
FAVICON_ICO = settings.BASE_DIR / "static" / "img" / "favicon.ico"


@require_GET
def favicon_ico(request: HttpRequest) -> HttpResponse:
    response = HttpResponse(FAVICON_ICO.read_bytes(), content_type="image/vnd.microsoft.icon")
    response["Cache-Control"] = "public, max-age=86400"
    return response


@require_GET
def llms_txt(request: HttpRequest) -> HttpResponse:
    """/llms.txt: what the site is and where its machine-readable pages are, for AI agents and scripts."""
    text = render_to_string("llms.txt", {"models": featured_models(limit=1000)}, request=request)
    response = HttpResponse(text, content_type="text/plain; charset=utf-8")
    response["Cache-Control"] = "public, max-age=3600"
    return response


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return render(request, "404.html", status=404)


def server_error(request: HttpRequest) -> HttpResponse:
    # No context processors that touch the database: the error may be the database.
    from django.template import loader

    html = loader.get_template("500.html").render({"request": request, "site_name": "gpufit"})
    return HttpResponse(html, status=500)
