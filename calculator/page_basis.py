"""The part of a model page that does not depend on the reader's inputs, kept in each web process.

A model page recomputes per request only what its query string changes (the estimate, the ranking, the verdicts).
What it reads about the model and the market — the facts and builds, the parsed architecture, the current offers,
the hosted API prices, the models of similar size — is the same for every query string until the catalog or the
prices change, and costs ~6 ms of an uncached page. It is kept per model and language under the two data generations
(``web.generations``: the catalog's, bumped by every import and admin edit; the prices', by every price store)
and the UTC day, so an import, a refresh or midnight makes the next request read it afresh, as the page cache does.

Per process and bounded (least recently used out first); nothing is shared between processes, so a process
restarted or scaled out starts empty and fills on its first requests.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import date

from django.conf import settings
from django.core.cache import cache
from django.utils.translation import get_language

from calculator import page_data
from calculator.page_data import PageSources
from models_catalog import selectors
from models_catalog.models import Model
from models_catalog.selectors import ModelFacts, SimilarModel
from models_catalog.specs import SpecUnavailable
from pricing.generation import PRICES_GENERATION
from web.generations import CATALOG_GENERATION, Generation

MAX_MODELS = 512  # a few MB per process at most: a basis is the model's facts and spec; offers and GPUs are shared


@dataclass(frozen=True, slots=True)
class PageBasis:
    facts: ModelFacts
    sources: PageSources | None  # None when the model cannot be sized (``unsizable`` says why)
    unsizable: str
    similar: tuple[SimilarModel, ...]
    # HTML of the page's sections that depend on nothing else, rendered on first use (calculator/views.py)
    rendered: dict[str, str] = field(default_factory=dict, compare=False)


_Key = tuple[str, str, str, str, date]  # hub id, language, catalog token, prices token, day
_kept: OrderedDict[_Key, PageBasis] = OrderedDict()
_lock = threading.Lock()


def _tokens(generations: tuple[Generation, Generation]) -> tuple[str, str] | None:
    """The current tokens, read together (one cache round trip); a missing one is created and read back. None when
    the cache cannot keep them (it is down and answers nothing): then nothing is kept or reused."""
    keys = [g.key for g in generations]
    found = cache.get_many(keys)
    if len(found) < len(keys):
        for g in generations:
            if g.key not in found:
                g.current()
        found = cache.get_many(keys)
        if len(found) < len(keys):
            return None
    catalog, prices = (str(found[key]) for key in keys)
    return catalog, prices


def page_basis(model: Model, today: date) -> PageBasis:
    """The model's page basis for ``today`` in the active language, computed once per catalog and price state in this
    process."""
    tokens = _tokens((CATALOG_GENERATION, PRICES_GENERATION))
    # Labels in the facts and the choices are said in the language active when they were read: one basis per language.
    language = get_language() or settings.LANGUAGE_CODE
    key: _Key | None = (model.hub_id, language, tokens[0], tokens[1], today) if tokens else None
    if key is not None:
        with _lock:
            kept = _kept.get(key)
            if kept is not None:
                _kept.move_to_end(key)
                return kept
    basis = _compute(model, today)
    if key is not None:
        with _lock:
            _kept[key] = basis
            while len(_kept) > MAX_MODELS:
                _kept.popitem(last=False)
    return basis


def forget() -> None:
    """Drops everything kept (tests; a process that must read afresh)."""
    with _lock:
        _kept.clear()


def _compute(model: Model, today: date) -> PageBasis:
    facts = selectors.model_facts(model)
    similar = tuple(selectors.similar_models(model))
    try:
        sources = page_data.page_sources(model, facts, today)
    except SpecUnavailable as exc:
        return PageBasis(facts, None, str(exc), similar)
    return PageBasis(facts, sources, "", similar)
