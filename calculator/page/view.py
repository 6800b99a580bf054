"""What the model page's URLs render (the page, its HTMX fragment, its Markdown twin, its FAQ, its share card),
from one call: ``model_page_view(request, model)``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from typing import Any

from django.http import HttpRequest, QueryDict
from django.template.loader import render_to_string
from markupsafe import Markup, escape

from calculator.page.basis import PageBasis, kept_section, page_basis
from calculator.page.compose import ModelPage
from calculator.page.machines import Hardware
from calculator.page.sections import (
    CHAPTER_BODIES,
    DEFERRED_SECTIONS,
    FRAGMENT_READS,
    MARKDOWN_PARTIALS,
    OUT_OF_BAND,
    PAGE_READS,
    PARTIALS,
)
from calculator.state import PRESET_CONTEXTS, CalculatorState, Ignored, PageChoices, parse_state, state_query
from models_catalog.architecture import SpecNote
from models_catalog.models import Model
from models_catalog.selectors import ModelFacts, SimilarModel
from web.generations import CATALOG_GENERATION, PRICES_GENERATION
from web.kept import PROCESS, Kept
from web.rig import MACOS_FIELD, RIG_FIELDS, remembered_rig

# The page's sections that no query string changes: rendered once per kept basis (calculator/page/basis.py).
BASIS_SECTIONS = (("facts_html", "calculator/_model_facts.html"), ("similar_html", "calculator/_similar.html"))
# Long blocks few readers open: the page carries a placeholder that loads each when it scrolls into view (the
# fragment ``?…&section=<name>``) and, without JavaScript, links to the page with the block in it (``show=<name>``).
# The JSON and Markdown twins always carry them. The deferred sections say so in their records (sections.py).
DEFERRED = {
    "more-gpus": "calculator/_gpus_more.html",  # the ranking past its first RANKING_SHOWN rows
    "providers": "calculator/_providers.html",
    **DEFERRED_SECTIONS,  # the published builds (only for a model with builds of a known size) and the FAQ
    **CHAPTER_BODIES,  # the closed chapters' tables and charts: loaded when the chapter is opened
    # the tables of the model's facts and their sources, inside their disclosures: loaded when opened (or, open,
    # when scrolled to); they read no input, so their URLs carry none
    "param-table": "calculator/_param_table.html",
    "fact-table": "calculator/_fact_table.html",
}
# The DEFERRED blocks that sit in a disclosure of the model's facts: the page anchor is the disclosure's, and the
# block loads when it becomes visible (``intersect``: opening the disclosure reveals it without a scroll).
IN_DISCLOSURE = {"param-table": "fact-sources", "fact-table": "other-sources"}
RANKING_SHOWN = 6
SECTION_FIELD = "section"  # the fragment of one deferred block
SHOW_FIELD = "show"  # the page with these deferred blocks in it (comma-separated names)


@dataclass(frozen=True, slots=True)
class DeferredUrls:
    fragment: str  # the block alone, for htmx
    page: str  # the whole page with the block in it, at its anchor
    trigger: str = "revealed"  # the htmx event that loads it


@dataclass(frozen=True, slots=True)
class ModelPageView:
    """Everything the model page's templates read, for one model and one request."""

    model: Model
    facts: ModelFacts
    base_url: str
    similar: tuple[SimilarModel, ...]
    page: ModelPage | None  # None when the model cannot be sized (``unsizable`` says why)
    unsizable: str = ""
    compare_url: str = ""
    state: CalculatorState | None = None
    choices: PageChoices | None = None
    ignored: tuple[Ignored, ...] = ()
    permalink: str = ""
    notes: tuple[SpecNote, ...] = ()
    context_presets: tuple[int, ...] = ()
    remembered_rig: bool = False
    popular_hardware: tuple[Hardware, ...] = ()
    partials: tuple[str, ...] = PARTIALS
    markdown_partials: tuple[str, ...] = MARKDOWN_PARTIALS
    deferred: frozenset[str] = frozenset()  # the DEFERRED blocks this rendering leaves to a placeholder
    deferred_urls: Mapping[str, DeferredUrls] = field(default_factory=dict)
    state_joined: str = ""  # the state's query followed by "&" ("" at the default state): what STATE_SLOT stands for

    @property
    def deferred_partials(self) -> dict[str, str]:
        """Partial template → block name, for the deferred blocks that are whole sections of the results."""
        return {template: name for name, template in DEFERRED.items() if name in self.deferred}

    def template_context(self) -> dict[str, Any]:
        extra = {
            "deferred_partials": self.deferred_partials,
            "ranking_shown": RANKING_SHOWN,
            "chapter_bodies": CHAPTER_BODIES,
        }
        return {f.name: getattr(self, f.name) for f in fields(self)} | extra


def model_page_view(request: HttpRequest, model: Model) -> ModelPageView:
    """The model's page for the state the request's query string (and remembered machine) names."""
    basis = page_basis(model, datetime.now(UTC).date())
    facts, sources, base_url = basis.facts, basis.sources, basis.base_url
    if sources is None:
        return ModelPageView(
            model, facts, base_url, basis.similar, None, unsizable=basis.unsizable, compare_url=basis.compare_url
        )
    choices = sources.choices
    parsed = parse_state(with_remembered_rig(request), choices)
    query = state_query(parsed.state, choices)
    shown = {name.strip() for name in request.GET.get(SHOW_FIELD, "").split(",")}
    # a model without published builds of a known size has no builds section: no placeholder for it either
    sized = any(b.file_size_bytes for b in sources.builds)
    deferred = frozenset(name for name in DEFERRED if name not in shown and (name != "builds" or sized))
    joined = f"{query}&" if query else ""
    return ModelPageView(
        model,
        facts,
        base_url,
        basis.similar,
        ModelPage(sources.inputs(parsed.state)),  # each section built when a rendering first reads it
        compare_url=basis.compare_url,
        state=parsed.state,
        choices=choices,
        ignored=tuple(parsed.ignored),
        permalink=base_url + (f"?{query}" if query else ""),
        notes=tuple(sources.spec.notes),
        context_presets=tuple(c for c in PRESET_CONTEXTS if not choices.max_context or c <= choices.max_context),
        remembered_rig=remembered_rig(request) is not None,
        popular_hardware=basis.popular_hardware,
        deferred=deferred,
        deferred_urls={name: _deferred_urls(base_url, joined, name) for name in deferred},
        state_joined=joined,
    )


def _deferred_urls(base_url: str, joined: str, name: str) -> DeferredUrls:
    """The URLs of a deferred block; ``joined``: the state's query and "&", or "" (or STATE_SLOT, which stands for
    it in kept HTML)."""
    if name in IN_DISCLOSURE:
        anchor = IN_DISCLOSURE[name]
        fragment, page = f"{base_url}?{SECTION_FIELD}={name}", f"{base_url}?{SHOW_FIELD}={name}#{anchor}"
        return DeferredUrls(fragment=fragment, page=page, trigger="intersect once")
    anchor = "ranking" if name == "more-gpus" else name  # shown on the page, the rows join the ranking's table
    # a chapter's body sits in its closed disclosure: it loads when opening the chapter reveals it
    trigger = "intersect once" if name in CHAPTER_BODIES else "revealed"
    return DeferredUrls(
        fragment=f"{base_url}?{joined}{SECTION_FIELD}={name}",
        page=f"{base_url}?{joined}{SHOW_FIELD}={name}#{anchor}",
        trigger=trigger,
    )


# Each kept section's HTML, per its partial, the values of the inputs it reads (sections.Section.reads), the blocks
# the page defers, the model, the day (prices shown as stale or current) and the catalog and price generations: a
# change of any other input renders the page with the kept HTML of every section that does not read it.
SECTION_HTML: Kept[str] = Kept(
    "section-html",
    depends_on=(CATALOG_GENERATION, PRICES_GENERATION),
    per_language=True,
    where=PROCESS,
    max_entries=8192,
)
# Where kept HTML links to the page in its whole state (a deferred block's URLs), it holds this slot for the state's
# query, filled in per request: the section is kept per the inputs it reads, its links still carry every input.
STATE_SLOT = "__gpufit_state__"


def kept_context(view: ModelPageView, *, oob: bool = False) -> dict[str, Any]:
    """The context kept sections render in: the deferred blocks' URLs hold STATE_SLOT for the state's query."""
    slotted = {name: _deferred_urls(view.base_url, STATE_SLOT, name) for name in view.deferred_urls}
    return {**view.template_context(), "deferred_urls": slotted, "oob": oob}


def kept_sections(request: HttpRequest, view: ModelPageView, *, fragment: bool = False) -> dict[str, Markup]:
    """The HTML of every section and page part declared with the inputs it reads, kept per their values (template
    → HTML); ``fragment``: those the HTMX fragment renders, the headline cards marked for an out-of-band swap."""
    if view.page is None or view.state is None:
        return {}
    state, today, context = view.state, datetime.now(UTC).date().isoformat(), kept_context(view, oob=fragment)
    deferred, joined = tuple(sorted(view.deferred)), str(escape(view.state_joined))

    def rendered(partial: str) -> Callable[[], str]:
        return lambda: render_to_string(partial, context, request)

    found: dict[str, Markup] = {}
    kept_html, hub_id, skipped = SECTION_HTML.reader(), view.model.hub_id, view.deferred_partials
    for partial, reads in SORTED_FRAGMENT_READS if fragment else SORTED_PAGE_READS:
        if partial in skipped:
            continue
        values = tuple([(name, getattr(state, name)) for name in reads])
        oob = fragment and partial in OUT_OF_BAND
        html = kept_html(rendered(partial), hub_id, today, partial, values, deferred, oob)
        found[partial] = Markup(html.replace(STATE_SLOT, joined))
    return found


# (template, the inputs it reads in a fixed order), for the keys of SECTION_HTML
SORTED_PAGE_READS = tuple((template, tuple(sorted(reads))) for template, reads in PAGE_READS.items())
SORTED_FRAGMENT_READS = tuple((template, tuple(sorted(reads))) for template, reads in FRAGMENT_READS.items())


def deferred_block(request: HttpRequest) -> str | None:
    """The DEFERRED block an HTMX request asks for alone (``section=<name>``), or None."""
    name = request.GET.get(SECTION_FIELD, "")
    return DEFERRED.get(name)


def basis_sections(request: HttpRequest, view: ModelPageView) -> dict[str, Markup]:
    """The sections rendered from the basis alone, as kept HTML (the whole page includes them; a fragment never)."""
    today = datetime.now(UTC).date()
    basis: PageBasis = page_basis(view.model, today)
    deferred = view.deferred & IN_DISCLOSURE.keys()  # the facts' tables this page leaves to their disclosures
    context = {
        "facts": basis.facts,
        "model": basis.facts.model,
        "notes": view.notes,
        "similar": basis.similar,
        "compare_url": basis.compare_url,
        "deferred": deferred,
        "deferred_urls": {name: view.deferred_urls[name] for name in deferred},
    }
    variant = ",".join(sorted(deferred))  # the URLs in it carry no state: one rendering per set of deferred tables

    def rendered(template: str) -> Markup:
        key = f"{template}|{variant}"
        return Markup(kept_section(view.model, today, key, lambda: render_to_string(template, context, request)))

    return {name: rendered(template) for name, template in BASIS_SECTIONS}


def with_remembered_rig(request: HttpRequest) -> QueryDict:
    """The query string, with the reader's remembered machine (a cookie: "rtx-4090,1,64") where the query names
    none; a permalink that carries the machine wins over the cookie."""
    remembered = remembered_rig(request)
    query = request.GET.copy()
    if remembered is not None and not any(name in query for name in RIG_FIELDS):
        query["rig"], query["rig_gpus"], query["ram"] = remembered.gpu, str(remembered.gpus), str(remembered.ram_gib)
    if remembered is not None and MACOS_FIELD not in query and remembered.macos != "15":
        query[MACOS_FIELD] = remembered.macos
    return query
