"""The part of a model page that does not depend on the reader's inputs, kept in each web process.

A model page recomputes per request only what its query string changes (the estimate, the ranking, the verdicts).
What it reads about the model and the market — the facts and builds, the parsed architecture, the current offers,
the hosted API prices, the models of similar size — is the same for every query string until the catalog or the
prices change, and costs ~6 ms of an uncached page. It is kept (``web.kept``, in this process) per model, language
and UTC day under the two data generations (``web.generations``), so an import, a refresh, an admin edit or midnight
makes the next request read it afresh, as the page cache does. Labels in the facts and the choices are said in the
language active when they were read: one basis per language.

The sections that depend on the basis alone (facts and sources, similar models) are rendered once per basis and
kept the same way (``kept_section``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from urllib.parse import quote

from django.urls import reverse

from calculator.page import sources as page_data
from calculator.page.machines import Hardware, popular_hardware
from calculator.page.sources import PageSources
from models_catalog import selectors
from models_catalog.models import Model
from models_catalog.selectors import ModelFacts, SimilarModel
from models_catalog.specs import SpecUnavailable
from web.generations import CATALOG_GENERATION, PRICES_GENERATION
from web.kept import PROCESS, Kept

MAX_MODELS = 512  # a few MB per process at most: a basis is the model's facts and spec; offers and GPUs are shared
COMPARED_SIMILAR = 3  # the compare page takes four models: this one and the three most similar


@dataclass(frozen=True, slots=True)
class PageBasis:
    facts: ModelFacts
    sources: PageSources | None  # None when the model cannot be sized (``unsizable`` says why)
    unsizable: str
    similar: tuple[SimilarModel, ...]
    compare_url: str  # this model beside the most similar ones on the compare page; "" when none is similar
    base_url: str = ""  # the model's page in the active language
    popular_hardware: tuple[Hardware, ...] = ()  # the machines with a "runs on" page of their own, for the links


BASES: Kept[PageBasis] = Kept(
    "page-basis",
    depends_on=(CATALOG_GENERATION, PRICES_GENERATION),
    per_language=True,
    where=PROCESS,
    max_entries=MAX_MODELS,
)
# HTML of a section rendered from the basis alone, per model, day and section: a few KB each.
SECTIONS: Kept[str] = Kept(
    "page-basis-section",
    depends_on=(CATALOG_GENERATION, PRICES_GENERATION),
    per_language=True,
    where=PROCESS,
    max_entries=4 * MAX_MODELS,
)


def page_basis(model: Model, today: date) -> PageBasis:
    """The model's page basis for ``today`` in the active language, computed once per catalog and price state in this
    process."""
    return BASES.get(lambda: _compute(model, today), model.hub_id, today)


def kept_section(model: Model, today: date, name: str, render: Callable[[], str]) -> str:
    """A section of the model's page rendered from its basis alone (``render()``), once per basis."""
    return SECTIONS.get(render, model.hub_id, today, name)


def forget() -> None:
    """Drops everything kept (tests; a process that must read afresh)."""
    BASES.forget()
    SECTIONS.forget()


def _compare_url(model: Model, similar: Sequence[SimilarModel]) -> str:
    """The compare page with ``model`` and the most similar models beside it, in the active language; "" when no
    model is similar."""
    if not similar:
        return ""
    hub_ids = ",".join([model.hub_id, *(m.hub_id for m in similar[:COMPARED_SIMILAR])])
    return f"{reverse('calculator:compare')}?models={quote(hub_ids, safe='/')}"


def _compute(model: Model, today: date) -> PageBasis:
    facts = selectors.model_facts(model)
    similar = tuple(selectors.similar_models(model))
    compare = _compare_url(model, similar)
    base_url = model.get_absolute_url()
    try:
        sources = page_data.page_sources(model, facts, today)
    except SpecUnavailable as exc:
        return PageBasis(facts, None, str(exc), similar, compare, base_url)
    return PageBasis(facts, sources, "", similar, compare, base_url, tuple(popular_hardware(sources.gpus)))
