"""The planner page: ``/<lang>/plan/?model=…&out=…`` — the cheapest ways to serve a monthly volume of one model
within latency targets (calculator/page/planner.py), with the cost chart and its crossovers; every figure the page
prints is computed in ``calculator.plan_view``."""

from __future__ import annotations

from urllib.parse import quote

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET

from calculator.charts import SIZES, cost_chart
from calculator.page.basis import page_basis
from calculator.page.plan_bands import plan_bands
from calculator.page.sources import spot_offers
from calculator.plan_for import plan_for
from calculator.plan_state import PlanState, parse_plan, plan_query
from calculator.plan_view import close_matches, plan_form, plan_view, provider_options
from calculator.state import CalculatorState
from calculator.validation.bands import THROUGHPUT_KINDS, kept_band, validation_family
from models_catalog import selectors as catalog
from models_catalog.models import Model
from pricing.owned import owned_data

ROWS_SHOWN = 12


@require_GET
def plan_page(request: HttpRequest) -> HttpResponse:
    parsed = parse_plan(request.GET)
    state = parsed.state
    asked = request.GET.get("model", "").strip()[:200]
    model = Model.objects.filter(hub_id=asked).first() if asked else None
    owned_changed = state.owned_costs() != PlanState().owned_costs() or bool(state.prices)
    context: dict[str, object] = {
        "form": plan_form(state, (*owned_data().servers, *owned_data().machines), owned_changed),
        "unused": parsed.unused,
        "asked": asked,
        "models": Model.objects.order_by("hub_id").values_list("hub_id", flat=True),
        "plan": None,
        "unknown": False,
        "unsizable": False,
        "providers": (),
    }
    status = 200
    if asked and model is None:
        status = 404
        context["unknown"] = True
        context["close"] = close_matches([m.hub_id for m in catalog.close_matches(asked)])
        context["search_url"] = f"{reverse('models_catalog:list')}?q={quote(asked)}"
    elif model is not None:
        context |= _answer(model, state)
    return render(request, "plan.html", context, status=status)


def _answer(model: Model, state: PlanState) -> dict[str, object]:
    """The planner's answer for ``model`` as the page shows it; ``unsizable`` where no plan can be made."""
    basis = page_basis(model, timezone.localdate())
    if basis.sources is None:
        return {"unsizable": True}
    calculator = CalculatorState(engine=state.engine).with_defaults_of(basis.sources.choices)
    answer = plan_for(basis.sources.inputs(calculator), state)
    curve = [(p.output_tokens_per_month, p.api_usd, p.rented_usd, p.owned_usd) for p in answer.curve]
    names = {o.provider_slug: o.provider_name for o in (*basis.sources.offers, *spot_offers())}
    crossings = [c.output_tokens_per_month for c in answer.crossovers]
    charts = [chart for size in SIZES if (chart := cost_chart(curve, state.out, crossings, size)) is not None]
    family = validation_family(basis.sources.spec)
    band = kept_band(THROUGHPUT_KINDS, answer.engine, family)
    shown = answer.rows[:ROWS_SHOWN]
    bands = plan_bands(answer, shown, family)
    excluded = [names.get(slug, slug) for slug in state.x]
    permalink = f"?model={model.hub_id}&{plan_query(state)}".rstrip("&")
    return {
        "plan": plan_view(answer, state, shown, charts, band, excluded, basis.sources.today, bands),
        "display_name": basis.sources.display_name or model.hub_id,
        "providers": provider_options(names, state.x),
        "model_url": model.get_absolute_url(),
        "json_url": f"/api/v1/plan{permalink}",
    }
