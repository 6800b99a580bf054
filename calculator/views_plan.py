"""The planner page: ``/<lang>/plan/?model=…&out=…`` — the cheapest ways to serve a monthly volume of one model
within latency targets (calculator/page/planner.py), with the cost chart and its crossovers."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_GET

from calculator.charts import cost_chart
from calculator.page.basis import page_basis
from calculator.page.planner import plan_answer
from calculator.plan_state import parse_plan, plan_query, volume_label, volume_words
from calculator.state import CalculatorState
from calculator.validation.bands import kept_band, validation_family
from models_catalog import selectors as catalog
from models_catalog.models import Model

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
            answer = plan_answer(basis.sources.inputs(calculator), state.demand())
            curve = [(p.output_tokens_per_month, p.api_usd, p.rented_usd) for p in answer.curve]
            context |= {
                "answer": answer,
                "rows": answer.rows[:ROWS_SHOWN],
                "chart": cost_chart(curve, state.out),
                "band": kept_band("load_total_tps", answer.engine, validation_family(basis.sources.spec)),
                "permalink": f"?model={model.hub_id}&{plan_query(state)}".rstrip("&"),
                "display_name": basis.sources.display_name or model.hub_id,
            }
    return render(request, "plan.html", context, status=status)
