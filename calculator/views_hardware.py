"""Hardware-first pages: the GPU index and one page per GPU, cloud providers, "can <model> run on <hardware>", and
the side-by-side comparison of models. Thin: read, call one composition function, render."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from django.db.models import F
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET

from calculator.charts import SIZES, price_chart
from calculator.hardware import gpu_fit_formats, hardware_for, models_on_gpu, popular_hardware, runs_on
from calculator.page import ModelPage, model_page
from calculator.page.basis import page_basis
from calculator.page.choices import FORM_PRECISIONS
from calculator.state import DEFAULT_PRECISION, CalculatorState, parse_state, state_query
from models_catalog import selectors
from models_catalog.models import Model
from models_catalog.specs import SpecUnavailable, spec_from_model
from models_catalog.views import model_for
from pricing.gpus import SEGMENTS, GpuSpec, load_gpus, successor_slug
from pricing.offers import OfferRecord, stale_offers
from pricing.selectors import current_offers, price_history, provider_statuses

MODELS_ON_GPU_PAGE = 120  # catalog models listed on a GPU page (the most downloaded, then the largest)
MAX_COMPARED = 4


def _today() -> Any:
    return datetime.now(UTC).date()


@dataclass(frozen=True, slots=True)
class GpuRow:
    gpu: GpuSpec
    cheapest_usd: float | None  # per GPU-hour, current on-demand
    offers: int


@dataclass(frozen=True, slots=True)
class SourceLine:
    """One source of a GPU's specs: a link, or a citation without one."""

    text: str
    href: str  # the text itself where it is a web address; "" otherwise


def _source_lines(sources: Sequence[str]) -> list[SourceLine]:
    return [SourceLine(source, source if source.startswith("http") else "") for source in sources]


def _cheapest_by_slug(offers: list[OfferRecord]) -> dict[str, tuple[float, int]]:
    found: dict[str, tuple[float, int]] = {}
    for offer in offers:
        price, count = found.get(offer.gpu_slug, (offer.price_per_gpu_hour_usd, 0))
        found[offer.gpu_slug] = (min(price, offer.price_per_gpu_hour_usd), count + 1)
    return found


@require_GET
def gpu_index(request: HttpRequest) -> HttpResponse:
    cheapest = _cheapest_by_slug(current_offers(pricing_kinds=("on-demand",)))
    groups: dict[str, list[GpuRow]] = defaultdict(list)
    for gpu in load_gpus():
        price, count = cheapest.get(gpu.slug, (None, 0))
        groups[gpu.segment].append(GpuRow(gpu, price, count))
    ordered = [(segment, groups[segment]) for segment in SEGMENTS if groups.get(segment)]
    return render(request, "calculator/gpus.html", {"groups": ordered})


def _catalog_specs(limit: int) -> list[tuple[str, str, float | None, Any]]:
    rows = []
    models = Model.objects.exclude(config__isnull=True).order_by(
        F("downloads").desc(nulls_last=True), F("params_total").desc(nulls_last=True), "id"
    )[: limit * 2]
    for model in models:
        try:
            spec = spec_from_model(model)
        except SpecUnavailable:
            continue
        rows.append((model.url, model.display_name, model.params_total / 1e9 if model.params_total else None, spec))
        if len(rows) == limit:
            break
    return rows


def _capacity_read_on(gpu: GpuSpec, gpus: Sequence[GpuSpec]) -> str:
    """The short name of the GPU whose log gave ``gpu`` its runtime total, where that is another form factor of the
    same chip and memory (an H100 PCIe reads the H100 SXM's); "" where the log is its own or there is none."""
    report = gpu.capacity_report
    if report is None or report.reported_for == gpu.slug:
        return ""
    return next((g.short_name for g in gpus if g.slug == report.reported_for), report.reported_for)


@require_GET
def gpu_detail(request: HttpRequest, slug: str) -> HttpResponse:
    gpus = load_gpus()
    gpu = next((g for g in gpus if g.slug == slug), None)
    if gpu is None:
        successor = successor_slug(slug)
        if successor is not None:  # a family of form factors before they were told apart: its usual part
            return redirect(reverse("calculator:gpu", kwargs={"slug": successor}), permanent=True)
        raise Http404("no such GPU")
    offers = current_offers(gpu_slugs=[slug])
    on_demand = [o for o in offers if o.pricing_kind == "on-demand"]
    history = price_history(slug)
    days = [(p.day, float(p.median_usd), float(p.cheapest_usd)) for p in history]
    charts = [chart for size in SIZES if (chart := price_chart(days, size)) is not None]
    context = {
        "gpu": gpu,
        "sources": _source_lines(gpu.sources),
        "on_demand": on_demand,
        "stale": stale_offers(on_demand),
        "other_offer_count": len(offers) - len(on_demand),  # spot, community and reserved
        "history": history,
        "charts": charts,
        "prices_flat": len(days) > 1 and not charts,  # price_chart draws no flat line: the page says it in words
        "fits": models_on_gpu(_catalog_specs(MODELS_ON_GPU_PAGE), gpu),
        "fit_formats": gpu_fit_formats(gpu),
        "runs_on_key": slug if hardware_for(slug, gpus) else None,
        "capacity_read_on": _capacity_read_on(gpu, gpus),
    }
    return render(request, "calculator/gpu.html", context)


@require_GET
def provider_index(request: HttpRequest) -> HttpResponse:
    return render(request, "calculator/providers.html", {"providers": provider_statuses()})


@require_GET
def provider_detail(request: HttpRequest, slug: str) -> HttpResponse:
    offers = current_offers(provider_slugs=[slug])
    status = next(iter(provider_statuses(provider_slugs=[slug], offers=offers)), None)
    if status is None:
        raise Http404("no such provider")
    names = {g.slug: g.short_name for g in load_gpus()}
    context = {"provider": status, "offers": offers, "stale": stale_offers(offers), "gpu_names": names}
    return render(request, "calculator/provider.html", context)


@require_GET
def model_runs_on(request: HttpRequest, org: str, name: str, hardware: str) -> HttpResponse:
    gpus = load_gpus()
    successor = successor_slug(hardware)
    if successor is not None and hardware_for(hardware, gpus) is None:
        where = reverse("calculator:runs_on", kwargs={"org": org, "name": name, "hardware": successor})
        return redirect(where, permanent=True)
    model = model_for(request, org, name, suffix=f"/runs-on/{hardware}/")
    target = hardware_for(hardware, gpus)
    if target is None:
        raise Http404("no such hardware")
    basis = page_basis(model, _today())
    facts, sources = basis.facts, basis.sources
    if sources is None:
        return redirect(model.get_absolute_url())
    answer = runs_on(sources.spec, sources.builds, target, sources.offers, gpus)
    others = [h for h in popular_hardware(gpus) if h.key != hardware]
    context = {"facts": facts, "answer": answer, "base_url": model.get_absolute_url(), "others": others}
    return render(request, "calculator/runs_on.html", context)


@dataclass(frozen=True, slots=True)
class Compared:
    model: Model
    page: ModelPage | None
    reason: str  # why a model cannot be sized

    @property
    def params_billions(self) -> float | None:
        return self.model.params_total / 1e9 if self.model.params_total else None

    @property
    def active_billions(self) -> float | None:
        """Parameters active per token, for a mixture of experts only."""
        return self.model.params_active / 1e9 if self.model.is_moe and self.model.params_active else None


@require_GET
def compare(request: HttpRequest) -> HttpResponse:
    """Up to four models side by side at the same calculator settings (``?models=a,b,c&precision=int4``)."""
    raw = request.GET.get("models", "")[:2000]
    wanted = [part.strip() for part in raw.split(",") if part.strip()]
    notices = []
    if len(wanted) > MAX_COMPARED:
        notices.append(("models", ", ".join(wanted[MAX_COMPARED:])[:120], "too_many"))
        wanted = wanted[:MAX_COMPARED]
    compared: list[Compared] = []
    missing: list[str] = []
    today = _today()
    choices = None
    state = CalculatorState()
    as_released = True
    for hub in dict.fromkeys(wanted):
        model = selectors.model_by_hub_id(hub)
        if model is None:
            missing.append(hub[:120])
            continue
        basis = page_basis(model, today)
        sources = basis.sources
        if sources is None:
            compared.append(Compared(model, None, basis.unsizable))
            continue
        if choices is None:
            # the settings every column shares: the form's generic precisions and formats (a published build or a
            # model's own release format belongs to one model); without one asked, each model as it is released
            choices = replace(
                sources.choices,
                precisions=[c for c in sources.choices.precisions if c.value in FORM_PRECISIONS],
                max_context=None,
                default_precision=DEFAULT_PRECISION,
            )
            parsed = parse_state(request.GET, choices)
            state = parsed.state
            notices += [(i.name, i.value, i.reason) for i in parsed.ignored]
            as_released = not request.GET.get("precision") or any(i.name == "precision" for i in parsed.ignored)
        column = replace(state, precision=sources.choices.default_precision) if as_released else state
        compared.append(Compared(model, model_page(sources.inputs(column)), ""))
    query = state_query(state, choices) if choices else ""
    context = {
        "compared": compared,
        "missing": missing,
        "notices": notices,
        "state": state,
        "as_released": as_released,
        "precisions": FORM_PRECISIONS,  # the model page's choices; "as released" is the empty one
        "models_param": ",".join(c.model.hub_id for c in compared),
        "state_query": query,
        "max_compared": MAX_COMPARED,
        "suggestions": selectors.featured_models(limit=4),
    }
    return render(request, "calculator/compare.html", context)
