"""The model page as data: every section for one calculator state, from one call."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from functools import cached_property
from typing import Any

from calculator.estimation import Breakdown, Mode, Workload, budget_bytes
from calculator.estimation.engines.builds import released_precision
from calculator.estimation.memory.applicability import choose_mode
from calculator.page.accuracy import accuracy_notes
from calculator.page.inputs import PageInputs, precision_label
from calculator.page.planner import faq_plan
from models_catalog.architecture import AttentionKind, ModelSpec

from .commands import Commands, commands_section
from .context import ContextSection, context_section
from .faq import Faq, faq_section
from .gpus import Gpus, gpus_section, largest_datacenter_gpu, smallest_single_gpu
from .hosted import SelfHostVsApi, hosted_section
from .inverse import Inverse, inverse_section
from .local import Local, Rig, local_section, rig_section
from .setting import MATRIX_PRECISIONS, MODES, Cheapest, PageEstimates, Setting, setting_for
from .sizes import (
    BreakdownRow,
    BuildRow,
    MatrixCell,
    ModeCard,
    ModeCards,
    PrecisionCard,
    PrecisionCards,
    Summary,
    build_rows,
)


@dataclass(frozen=True, slots=True)
class CacheLayout:
    """Which layers keep a per-token KV cache: the reason a hybrid model's cache is far below 2·L·H·d·T."""

    total_layers: int
    cached_layers: int  # full, sliding-window or MLA attention
    state_layers: int  # linear attention / SSM: a fixed-size state per request
    sliding_layers: int


def _cache_layout(spec: ModelSpec) -> CacheLayout:
    counts = {kind: 0 for kind in AttentionKind}
    for group in spec.layer_groups:
        counts[group.kind] += group.count
    cached = counts[AttentionKind.FULL] + counts[AttentionKind.SLIDING] + counts[AttentionKind.MLA]
    return CacheLayout(spec.num_layers, cached, counts[AttentionKind.LINEAR], counts[AttentionKind.SLIDING])


@dataclass(frozen=True, slots=True)
class ModelPage:
    """One calculator state's page: the setting it computed for, then one field per section (``SECTIONS``)."""

    cache_layout: CacheLayout
    setting: Setting
    workload: Workload  # the core's workload the setting computed (fine-tuning's tokens per sample, batch, rank, …)
    breakdown: Breakdown
    summary: Summary
    rows: tuple[BreakdownRow, ...]
    gpus: Gpus
    commands: Commands
    matrix: tuple[tuple[str, tuple[MatrixCell, ...]], ...]
    precision_cards: PrecisionCards
    mode_cards: ModeCards
    builds: tuple[BuildRow, ...]
    context: ContextSection
    inverse: Inverse | None
    local: Local
    rig: Rig | None
    api: SelfHostVsApi
    faq: Faq


class PageWork:
    """What the sections of one page share, each part computed once, when a section first asks for it."""

    def __init__(self, inputs: PageInputs) -> None:
        self.inputs = inputs
        self.spec, self.state, self.builds = inputs.spec, inputs.state, inputs.builds
        self.estimates = PageEstimates(inputs.spec, inputs.builds)
        self.setting = setting_for(inputs.state, inputs.builds)
        self.workload: Workload = self.estimates.workload(self.state, self.setting.mode, self.setting.precision)
        self.breakdown, self.need = self.estimates.need(self.workload)

    @cached_property
    def gpus(self) -> Gpus:
        return gpus_section(self.need, self.spec, self.workload, self.inputs.offers, self.inputs.gpus)

    @cached_property
    def cheapest(self) -> Cheapest:
        return Cheapest(self.inputs.offers, self.inputs.gpus, self.gpus.ranking, self.workload.engine)

    @cached_property
    def needs(self) -> dict[tuple[Mode, str], int]:
        """The need of every mode and generic precision that applies (the matrix's cells)."""
        found = {}
        for precision in MATRIX_PRECISIONS:
            for mode in MODES:
                if choose_mode(mode, precision).applies:
                    workload = self.estimates.workload(self.state, mode, precision)
                    found[(mode, precision)] = self.estimates.need(workload)[1]
        return found

    @cached_property
    def released(self) -> PrecisionCard:
        """Inference at the precision the model's repository ships, with its cheapest configuration."""
        return self.precision_card(released_precision(self.spec.native_dtype))

    def precision_card(self, precision: str) -> PrecisionCard:
        need = self.needs.get((Mode.INFERENCE, precision))
        if need is None:
            need = self.estimates.need(self.estimates.workload(self.state, Mode.INFERENCE, precision))[1]
        return PrecisionCard(precision, precision_label(precision), need, self.cheapest(need))

    @cached_property
    def local(self) -> Local:
        return local_section(self.estimates, self.state, self.builds, self.inputs.gpus)


def _rows(work: PageWork) -> tuple[BreakdownRow, ...]:
    gpu_total = sum(t.bytes for t in work.breakdown.terms if t.on_gpu and t.bytes > 0) or 1
    rows, offset = [], 0.0
    for term in work.breakdown.terms:
        if term.bytes > 0:
            share = term.bytes / gpu_total if term.on_gpu else 0.0
            rows.append(BreakdownRow(term, share, offset))
            offset += share
    return tuple(rows)


def _summary(work: PageWork) -> Summary:
    largest = largest_datacenter_gpu(work.inputs.gpus)
    smallest_gpu = smallest_single_gpu(work.need, work.inputs.gpus, work.setting.engine)
    smallest_mode = Mode.INFERENCE
    smallest_label, smallest_need = work.local.options[0]
    if work.setting.mode is not Mode.INFERENCE:  # the smallest way to fine-tune, never an inference figure
        training = [(need, mode, p) for (mode, p), need in work.needs.items() if mode is not Mode.INFERENCE]
        smallest_need, smallest_mode, precision = min(training, key=lambda t: (t[0], MODES.index(t[1])))
        smallest_label = precision_label(precision)
    return Summary(
        need_bytes=work.need,
        smallest_need_bytes=smallest_need,
        smallest_label=smallest_label,
        smallest_mode=smallest_mode,
        cheapest=work.gpus.ranking.cheapest,
        fits_one_gpu=largest is not None and work.need <= budget_bytes(largest, work.setting.engine),
        largest_gpu_name=largest.short_name if largest else "",
        smallest_gpu_name=smallest_gpu.short_name if smallest_gpu else "",
        accuracy=accuracy_notes(work.setting.mode, work.setting.engine, str(work.workload.framework), work.spec),
    )


def _matrix(work: PageWork) -> tuple[tuple[str, tuple[MatrixCell, ...]], ...]:
    return tuple(
        (precision, tuple(MatrixCell(mode, precision, work.needs.get((mode, precision))) for mode in MODES))
        for precision in MATRIX_PRECISIONS
    )


def _precision_cards(work: PageWork) -> PrecisionCards:
    card = work.precision_card
    return PrecisionCards(fp16=card("fp16"), int8=card("int8"), int4=card("int4"), released=work.released)


def _mode_cards(work: PageWork) -> ModeCards:
    inference_fp16 = work.needs[(Mode.INFERENCE, "fp16")]

    def card(mode: Mode, precision: str) -> ModeCard:
        need = work.needs[(mode, precision)]
        return ModeCard(mode, precision, need, need / inference_fp16, work.cheapest(need))

    return ModeCards(
        inference=card(Mode.INFERENCE, "fp16"),
        lora=card(Mode.LORA, "fp16"),
        qlora=card(Mode.QLORA, "int4"),
        full=card(Mode.FULL, "fp16"),
    )


@dataclass(frozen=True, slots=True)
class Section:
    """One section of the page: the field of ``ModelPage`` it fills, its builder, the partial in
    ``templates/calculator/`` that renders it (``""``: the page renders it elsewhere), and the calculator inputs
    (``CalculatorState`` fields) its rendering reads: the HTML is kept per their values (calculator/page/view.py),
    so a change of any other input reuses it. ``None``: rendered every time (it reads nearly every input, or a
    reader's own token)."""

    name: str
    build: Callable[[PageWork], object]
    partial: str = ""
    reads: frozenset[str] | None = None


# What an estimate of the page's workload reads: the precision, mode, context, requests, engine, KV cache and the
# fine-tuning knobs (tests/calculator/test_section_reads.py checks every declaration against the rendered bytes).
WORKLOAD_INPUTS = frozenset(
    {"precision", "mode", "context", "concurrency", "engine", "kv", "release", "sglang", "llamacpp", "mlx_lm", "batch",
     "seq", "rank", "optimizer", "checkpointing", "framework"}
)  # fmt: skip


# The sections in page order. A new one: its builder, its partial, one line here (and its field in ModelPage);
# tests/calculator/test_page_sections.py fails until the JSON and Markdown twins say it too.
SECTIONS: tuple[Section, ...] = (
    Section("summary", _summary),
    Section("rows", _rows, "_breakdown.html", WORKLOAD_INPUTS),
    # the ranking's placeholders link to the page in its whole state: kept with a slot for it (page/view.py)
    Section("gpus", lambda w: w.gpus, "_gpus.html", WORKLOAD_INPUTS),
    Section(
        "commands",
        lambda w: commands_section(w.inputs, w.setting, w.gpus.by_gpu[0] if w.gpus.by_gpu else None, w.local),
        "_commands.html",
        WORKLOAD_INPUTS | {"macos"},
    ),
    Section("matrix", _matrix, "_matrix.html", WORKLOAD_INPUTS - {"precision", "mode"}),
    Section("precision_cards", _precision_cards),
    Section("mode_cards", _mode_cards),
    Section(
        "builds",
        lambda w: build_rows(w.estimates, w.state, w.builds, w.inputs.gpus),
        "_builds.html",
        frozenset({"context", "concurrency", "engine", "kv"}),
    ),
    Section(
        "context",
        lambda w: context_section(w.estimates, w.state, w.setting, w.spec, w.inputs.gpus),
        "_context.html",
        WORKLOAD_INPUTS - {"context"},
    ),
    Section(
        "inverse",
        lambda w: inverse_section(w.estimates, w.state, w.spec, w.inputs.gpus),
        "_inverse.html",
        frozenset({"gpu", "gpus", "context", "concurrency", "engine", "kv", "macos"}),
    ),
    # llama.cpp on the cards and Macs, MLX-LM's commands on the Macs: their release lines
    Section(
        "local", lambda w: w.local, "_local.html", frozenset({"context", "concurrency", "macos", "llamacpp", "mlx_lm"})
    ),
    Section("rig", lambda w: rig_section(w.inputs), "_rig.html"),  # the reader's CSRF token in its form
    Section(
        "api",
        lambda w: hosted_section(w.inputs, w.gpus, w.spec, w.workload),
        "_api.html",
        WORKLOAD_INPUTS | {"ratio", "cached", "tps"},
    ),
    Section(
        "faq",
        lambda w: faq_section(
            w.inputs.display_name, w.setting, w.needs, w.local, w.released, w.inputs.gpus, faq_plan(w.inputs)
        ),
        "_faq.html",
        WORKLOAD_INPUTS | {"macos", "ratio", "cached"},
    ),
)


@dataclass(frozen=True, slots=True)
class PagePart:
    """A part of the page kept like the results' sections: its template, the inputs it reads, and where it goes:
    the whole page, the HTMX fragment (inside the results, or swapped out of band beside them), or both."""

    template: str
    reads: frozenset[str]
    on_page: bool = True
    in_fragment: bool = False
    out_of_band: bool = False  # in the fragment: swapped out of band (its own element, marked for it)


# The engine's release lines: what the version select and the answer's engine name read
RELEASE_INPUTS = frozenset({"engine", "release", "sglang", "llamacpp", "mlx_lm"})
PAGE_PARTS: tuple[PagePart, ...] = (
    # the state's headline cards above the results
    PagePart("calculator/_summary.html", WORKLOAD_INPUTS | {"macos"}, in_fragment=True, out_of_band=True),
    # the page's title and description: the same figures as text (the description: inference at FP16, INT8, INT4
    # and as released, so every workload input but the precision, the mode and the fine-tuning knobs)
    PagePart("calculator/_title.html", WORKLOAD_INPUTS),
    PagePart("calculator/_description.html", RELEASE_INPUTS | {"context", "concurrency", "kv"}),
    # the form's first fields: the precision it computes (a fine-tuning mode may change it), the mode, the context
    PagePart("calculator/_form_fields.html", frozenset({"precision", "mode", "context"})),
    # the form's rarer settings (the release select among them); the fragment swaps in the select alone
    PagePart(
        "calculator/_form_more.html",
        RELEASE_INPUTS | {"mode", "kv", "framework", "batch", "seq", "context", "rank", "optimizer", "checkpointing"},
    ),
    PagePart("calculator/_engine_release.html", RELEASE_INPUTS, on_page=False, in_fragment=True, out_of_band=True),
    # the reader's machine's inputs above its table (the table reads the requests and context too: rendered anew)
    PagePart("calculator/_rig_machine.html", frozenset({"rig", "rig_gpus", "ram"}), in_fragment=True),
)
_SECTIONS_KEPT: dict[str, frozenset[str]] = {
    f"calculator/{s.partial}": s.reads for s in SECTIONS if s.partial and s.reads is not None
}
# template → the inputs its rendering reads, for every section and part kept per those inputs; those the whole page
# renders, those the HTMX fragment renders, and the parts the fragment marks for an out-of-band swap
SECTION_READS: dict[str, frozenset[str]] = _SECTIONS_KEPT | {part.template: part.reads for part in PAGE_PARTS}
PAGE_READS: dict[str, frozenset[str]] = _SECTIONS_KEPT | {p.template: p.reads for p in PAGE_PARTS if p.on_page}
FRAGMENT_READS: dict[str, frozenset[str]] = _SECTIONS_KEPT | {p.template: p.reads for p in PAGE_PARTS if p.in_fragment}
OUT_OF_BAND: frozenset[str] = frozenset(part.template for part in PAGE_PARTS if part.out_of_band)
# the rendered partials, in page order (the results fragment includes each)
PARTIALS: tuple[str, ...] = tuple(f"calculator/{s.partial}" for s in SECTIONS if s.partial)
# every section's Markdown, in page order (the Markdown twin includes each): templates/calculator/md/_<name>.md
MARKDOWN_PARTIALS: tuple[str, ...] = tuple(f"calculator/md/_{s.name}.md" for s in SECTIONS)


_BUILDERS: dict[str, Callable[[PageWork], object]] = {section.name: section.build for section in SECTIONS}


class LazyModelPage:
    """A ``ModelPage`` whose sections are built the first time something reads them: the HTML page, whose kept
    sections (``Section.reads``) need no data when their HTML is kept, and whose deferred blocks load later. The
    JSON API builds the whole ``ModelPage`` (``model_page``); both read the same builders over one ``PageWork``."""

    def __init__(self, inputs: PageInputs) -> None:
        self._work = PageWork(inputs)
        self._built: dict[str, object] = {}
        self.cache_layout = _cache_layout(inputs.spec)
        self.setting = self._work.setting
        self.workload = self._work.workload
        self.breakdown = self._work.breakdown

    def __getattr__(self, name: str) -> Any:
        builder = _BUILDERS.get(name)
        if builder is None:
            raise AttributeError(name)
        if name not in self._built:
            self._built[name] = builder(self._work)
        return self._built[name]

    @property
    def built(self) -> frozenset[str]:
        """The sections built so far (tests: what a page with kept sections computed)."""
        return frozenset(self._built)


def model_page(inputs: PageInputs) -> ModelPage:
    """Every section of the model page for one calculator state."""
    work = PageWork(inputs)
    sections: dict[str, Any] = {section.name: section.build(work) for section in SECTIONS}
    return ModelPage(
        cache_layout=_cache_layout(inputs.spec),
        setting=work.setting,
        workload=work.workload,
        breakdown=work.breakdown,
        **sections,
    )


# every field of ModelPage but the setting it computed for is a section
assert [f.name for f in fields(ModelPage)][4:] == [s.name for s in SECTIONS], "ModelPage and SECTIONS disagree"
