"""The planner's answer for a planner state: the one call the planner page, the API and ``manage.py plan`` make
(the reader's options, and the spot offers where allowed, read here)."""

from __future__ import annotations

from calculator.page.inputs import PageInputs
from calculator.page.planner import PlanAnswer, PlanOptions, plan_answer
from calculator.page.sources import spot_offers
from calculator.plan_state import PlanState


def plan_for(inputs: PageInputs, state: PlanState) -> PlanAnswer:
    options = PlanOptions(bool(state.spot), state.x, state.owned_costs(), state.prices)
    return plan_answer(inputs, state.demand(), options, spot_offers() if state.spot else ())
