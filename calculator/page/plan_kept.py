"""The model page's FAQ plan (a billion output tokens a month, calculator/page/planner.py:faq_answer) kept through
the one seam, web/kept.py: the builder computes, this module keeps."""

from __future__ import annotations

from web.generations import CATALOG_GENERATION, PRICES_GENERATION
from web.kept import PROCESS, Kept

from .inputs import PageInputs
from .planner import PlanAnswer, faq_answer, faq_state

# The FAQ's plan per catalog model, day and the state's planned fields: the planner sizes every replica shape (about
# half of a JSON estimate's work), and the self-host chapter, the API, the FAQ page, the Markdown twin and the FAQ
# block ask for the same states.
FAQ_PLANS: Kept[PlanAnswer] = Kept(
    "faq-plan",
    depends_on=(CATALOG_GENERATION, PRICES_GENERATION),
    per_language=True,
    where=PROCESS,
    max_entries=1024,
)


def faq_plan(inputs: PageInputs) -> PlanAnswer:
    """``faq_answer`` kept per catalog model, day and what of the state it reads (``faq_state``: a new context or
    concurrency on the page plans nothing again); an inline config, without a catalog id, is planned each time."""
    if not inputs.hub_id:
        return faq_answer(inputs)
    return FAQ_PLANS.get(lambda: faq_answer(inputs), inputs.hub_id, inputs.today, faq_state(inputs.state))
