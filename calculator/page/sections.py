"""The model page's sections, one record each, in page order: what a section reads, how it is built, the partial
that renders it, its JSON and Markdown forms and whether the page defers it. The page's composition
(``compose.ModelPage``), the HTML kept per section (``SECTION_READS``: calculator/page/view.py), the results
fragment (``PARTIALS``), the deferred blocks, the JSON estimate (calculator/api/estimate.py) and the Markdown twin
(``MARKDOWN_PARTIALS``) all loop over ``SECTIONS``.

A new section is one record here, its builder (``builders``), its JSON form (``as_json``), its partial in
``templates/calculator/`` and its Markdown partial in ``templates/calculator/md/``
(tests/calculator/test_page_sections.py fails until each exists).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from . import as_json, builders
from .work import PageWork

T = TypeVar("T")
# Where a section's partial sits: in the results (the HTMX fragment swaps them), above them (the headline cards: the
# fragment swaps it out of band), or within another section's partial (the matrix shows the cards).
Place = Literal["results", "headline", "within"]


@dataclass(frozen=True, slots=True)
class ChapterBody:
    """A block of a chapter that stays out of the page until the reader opens the chapter: ``name`` is its element's
    id and its ``section=``/``show=`` name, ``template`` its partial."""

    name: str
    template: str


@dataclass(frozen=True, slots=True)
class Section(Generic[T]):
    """One section of the model page.

    ``reads``: the calculator inputs (``CalculatorState`` fields) its rendering reads; its HTML is kept per their
    values (calculator/page/view.py), so a change of any other input reuses it. ``None``: rendered every time (it
    reads nearly every input, or a reader's own token). ``deferred``: the page carries a placeholder that loads it
    when it scrolls into view (the JSON and Markdown twins always carry it). ``bodies``: the blocks inside a closed
    chapter that the page loads when the reader opens it (its summary line stays in the page)."""

    name: str
    reads: frozenset[str] | None
    build: Callable[[PageWork], T]
    template: str  # its partial in templates/ ("" when ``place`` is "within": another section's partial shows it)
    json: Callable[[T, PageWork], dict[str, Any]]  # its members of the JSON estimate
    markdown: str  # its block of the Markdown twin
    deferred: bool = False
    place: Place = "results"
    bodies: tuple[ChapterBody, ...] = ()


# What an estimate of the page's workload reads: the precision, mode, context, requests, engine, KV cache and the
# fine-tuning knobs (tests/calculator/test_section_reads.py checks every declaration against the rendered bytes).
WORKLOAD_INPUTS = frozenset(
    {"precision", "mode", "context", "concurrency", "engine", "kv", "mtp", "release", "sglang", "llamacpp", "mlx_lm",
     "batch", "seq", "rank", "optimizer", "checkpointing", "framework"}
)  # fmt: skip


SECTIONS: tuple[Section[Any], ...] = (
    Section(
        "summary",
        # the headline, the need on common cards (and the reader's own machine), the cards
        reads=WORKLOAD_INPUTS | {"macos", "rig", "rig_gpus"},
        build=builders.build_summary,
        template="calculator/_summary.html",
        json=as_json.summary_json,
        markdown="calculator/md/_summary.md",
        place="headline",
    ),
    Section(
        "rows",
        reads=WORKLOAD_INPUTS,
        build=builders.build_rows,
        template="calculator/_breakdown.html",
        json=as_json.rows_json,
        markdown="calculator/md/_rows.md",
    ),
    Section(
        "gpus",
        # the ranking's placeholders link to the page in its whole state: kept with a slot for it (page/view.py)
        reads=WORKLOAD_INPUTS,
        build=builders.build_gpus,
        template="calculator/_gpus.html",
        json=as_json.gpus_json,
        markdown="calculator/md/_gpus.md",
    ),
    Section(
        "commands",
        reads=WORKLOAD_INPUTS | {"macos"},
        build=builders.build_commands,
        template="calculator/_commands.html",
        json=as_json.commands_json,
        markdown="calculator/md/_commands.md",
    ),
    Section(
        "matrix",
        reads=WORKLOAD_INPUTS - {"precision", "mode"},
        build=builders.build_matrix,
        template="calculator/_matrix.html",
        json=as_json.matrix_json,
        markdown="calculator/md/_matrix.md",
        bodies=(ChapterBody("precision-body", "calculator/_matrix_body.html"),),
    ),
    Section(
        "precision_cards",
        reads=None,
        build=builders.build_precision_cards,
        template="",
        json=as_json.precision_cards_json,
        markdown="calculator/md/_precision_cards.md",
        place="within",
    ),
    Section(
        "mode_cards",
        reads=None,
        build=builders.build_mode_cards,
        template="",
        json=as_json.mode_cards_json,
        markdown="calculator/md/_mode_cards.md",
        place="within",
    ),
    Section(
        "builds",
        reads=frozenset({"context", "concurrency", "engine", "kv", "mtp", "release", "sglang"}),
        build=builders.build_builds,
        template="calculator/_builds.html",
        json=as_json.builds_json,
        markdown="calculator/md/_builds.md",
        deferred=True,  # only for a model with published builds of a known size
    ),
    Section(
        "context",
        reads=WORKLOAD_INPUTS - {"context"},
        build=builders.build_context,
        template="calculator/_context.html",
        json=as_json.context_json,
        markdown="calculator/md/_context.md",
        bodies=(ChapterBody("context-body", "calculator/_context_body.html"),),
    ),
    Section(
        "inverse",
        reads=frozenset({"gpu", "gpus", "context", "concurrency", "engine", "kv", "mtp", "release", "sglang", "macos"}),
        build=builders.build_inverse,
        template="calculator/_inverse.html",
        json=as_json.inverse_json,
        markdown="calculator/md/_inverse.md",
    ),
    Section(
        "local",
        # llama.cpp on the cards and Macs, MLX-LM's commands on the Macs: their release lines
        reads=frozenset({"context", "concurrency", "macos", "llamacpp", "mlx_lm"}),
        build=builders.build_local,
        template="calculator/_local.html",
        json=as_json.local_json,
        markdown="calculator/md/_local.md",
        # the consumer cards and the Macs: the macOS select between them stays in the page (it belongs to the form)
        bodies=(
            ChapterBody("local-cards-body", "calculator/_local_cards.html"),
            ChapterBody("local-macs-body", "calculator/_local_macs.html"),
        ),
    ),
    Section(
        "rig",
        reads=None,  # the reader's CSRF token in its form
        build=builders.build_rig,
        template="calculator/_rig.html",
        json=as_json.rig_json,
        markdown="calculator/md/_rig.md",
    ),
    Section(
        "api",
        reads=WORKLOAD_INPUTS | {"ratio", "cached", "tps"},
        build=builders.build_api,
        template="calculator/_api.html",
        json=as_json.api_json,
        markdown="calculator/md/_api.md",
    ),
    Section(
        "faq",
        reads=WORKLOAD_INPUTS | {"macos", "ratio", "cached", "tps"},
        build=builders.build_faq,
        template="calculator/_faq.html",
        json=as_json.faq_json,
        markdown="calculator/md/_faq.md",
        deferred=True,
    ),
)
BY_NAME: dict[str, Section[Any]] = {section.name: section for section in SECTIONS}


@dataclass(frozen=True, slots=True)
class PagePart:
    """A part of the page that is no section, kept like them: its template, the inputs it reads, and where it goes:
    the whole page, the HTMX fragment (inside the results, or swapped out of band beside them), or both."""

    template: str
    reads: frozenset[str]
    on_page: bool = True
    in_fragment: bool = False
    out_of_band: bool = False  # in the fragment: swapped out of band (its own element, marked for it)


# The engine's release lines: what the version select and the answer's engine name read
RELEASE_INPUTS = frozenset({"engine", "release", "sglang", "llamacpp", "mlx_lm"})
PAGE_PARTS: tuple[PagePart, ...] = (
    # the page's title and description: the headline's figures as text (the description: inference at FP16, INT8,
    # INT4 and as released, so every workload input but the precision, the mode and the fine-tuning knobs)
    PagePart("calculator/_title.html", WORKLOAD_INPUTS),
    PagePart("calculator/_description.html", RELEASE_INPUTS | {"context", "concurrency", "kv", "mtp"}),
    # the form's first fields: the precision it computes (a fine-tuning mode may change it), the mode, the context
    PagePart("calculator/_form_fields.html", frozenset({"precision", "mode", "context"})),
    # the form's rarer settings (the release select among them); the fragment swaps in the select alone
    PagePart(
        "calculator/_form_more.html",
        RELEASE_INPUTS
        | {"mode", "kv", "mtp", "framework", "batch", "seq", "context", "rank", "optimizer", "checkpointing"},
    ),
    PagePart("calculator/_engine_release.html", RELEASE_INPUTS, on_page=False, in_fragment=True, out_of_band=True),
    # the reader's machine's inputs above its table (the table reads the requests and context too: rendered anew)
    PagePart("calculator/_rig_machine.html", frozenset({"rig", "rig_gpus", "ram"}), in_fragment=True),
)
# The sections kept per the inputs they read: the whole page and the HTMX fragment render each (a headline section:
# in the fragment, out of band)
_SECTIONS_KEPT: dict[str, frozenset[str]] = {
    s.template: s.reads for s in SECTIONS if s.template and s.reads is not None
}
# template → the inputs its rendering reads, for every section and part kept per those inputs; those the whole page
# renders, those the HTMX fragment renders, and those the fragment marks for an out-of-band swap
SECTION_READS: dict[str, frozenset[str]] = _SECTIONS_KEPT | {part.template: part.reads for part in PAGE_PARTS}
PAGE_READS: dict[str, frozenset[str]] = _SECTIONS_KEPT | {p.template: p.reads for p in PAGE_PARTS if p.on_page}
FRAGMENT_READS: dict[str, frozenset[str]] = _SECTIONS_KEPT | {p.template: p.reads for p in PAGE_PARTS if p.in_fragment}
OUT_OF_BAND: frozenset[str] = frozenset(
    [s.template for s in SECTIONS if s.place == "headline"] + [p.template for p in PAGE_PARTS if p.out_of_band]
)
# the partials in the results, in page order (the results fragment includes each)
PARTIALS: tuple[str, ...] = tuple(s.template for s in SECTIONS if s.place == "results")
# the deferred sections: name → partial (the page's placeholder loads the fragment ``?…&section=<name>``)
DEFERRED_SECTIONS: dict[str, str] = {s.name: s.template for s in SECTIONS if s.deferred}
# the chapters' bodies: name → partial (loaded when the reader opens the chapter: ``?…&section=<name>``)
CHAPTER_BODIES: dict[str, str] = {body.name: body.template for s in SECTIONS for body in s.bodies}
# every section's Markdown, in page order (the Markdown twin includes each)
MARKDOWN_PARTIALS: tuple[str, ...] = tuple(s.markdown for s in SECTIONS)
