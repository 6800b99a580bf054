"""The planner page: ``/<lang>/plan/?model=…&out=…`` — the cheapest ways to serve a monthly volume of one model
within latency targets (calculator/page/planner.py), with the cost chart and its crossovers."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_GET

from calculator.charts import cost_chart
from calculator.page.basis import page_basis
from calculator.page.sources import spot_offers
from calculator.plan_for import plan_for
from calculator.plan_state import PlanState, parse_plan, plan_query, volume_label, volume_words
from calculator.state import CalculatorState
from calculator.validation.bands import kept_band, validation_family
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
    context: dict[str, object] = {
        "state": state,
        "unused": parsed.unused,
        "asked": asked,
        "model": model,
        "models": Model.objects.order_by("hub_id").values_list("hub_id", flat=True),
        "volume_label": volume_label,
        "volume_words": volume_words,
        "answer": None,
        "problem": "",
        "servers": (*owned_data().servers, *owned_data().machines),
        "owned_changed": state.owned_costs() != PlanState().owned_costs() or bool(state.prices),
        "providers": (),
    }
    status = 200
    if asked and model is None:
        status = 404
        context["problem"] = "unknown"
        context["close"] = catalog.close_matches(asked)
    elif model is not None:
        basis = page_basis(model, timezone.localdate())
        if basis.sources is None:
            context["problem"] = "unsizable"
        else:
            calculator = CalculatorState(engine=state.engine).with_defaults_of(basis.sources.choices)
            answer = plan_for(basis.sources.inputs(calculator), state)
            curve = [(p.output_tokens_per_month, p.api_usd, p.rented_usd, p.owned_usd) for p in answer.curve]
            names = {o.provider_slug: o.provider_name for o in (*basis.sources.offers, *spot_offers())}
            context |= {
                "answer": answer,
                "rows": answer.rows[:ROWS_SHOWN],
                "chart": cost_chart(curve, state.out, [c.output_tokens_per_month for c in answer.crossovers]),
                "band": kept_band("load_total_tps", answer.engine, validation_family(basis.sources.spec)),
                "permalink": f"?model={model.hub_id}&{plan_query(state)}".rstrip("&"),
                "display_name": basis.sources.display_name or model.hub_id,
                "providers": sorted(names.items(), key=lambda item: item[1].lower()),
                "excluded_names": [names.get(slug, slug) for slug in state.x],
                "today": basis.sources.today,
            }
    return render(request, "plan.html", context, status=status)
