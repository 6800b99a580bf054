"""Selectors: read the catalog for pages (no writes)."""

from __future__ import annotations

import difflib
import heapq
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from django.db.models import BigIntegerField as BigIntegerOutput
from django.db.models import ExpressionWrapper, F, OrderBy, Q, QuerySet, Value
from django.db.models.functions import Lower
from django.utils import timezone
from rapidfuzz import fuzz, process

from models_catalog import naming
from models_catalog.hub_ids import HubId
from models_catalog.list_figures import ListFigures, list_figures
from models_catalog.models import ImportRequest, Model, ModelFact, QuantizedBuild, Source
from web.generations import CATALOG_GENERATION
from web.kept import PROCESS, Kept

# The primary key last makes every order total, so a page boundary never splits or repeats equal rows.
SORTS: dict[str, tuple[str | OrderBy, ...]] = {
    "name": ("name_key", "pk"),  # case-insensitive, numbers by value (models_catalog.naming)
    "size": (F("params_total").desc(nulls_last=True), "display_name", "pk"),
    "size_asc": (F("params_total").asc(nulls_last=True), "display_name", "pk"),
    "date": (F("release_date").desc(nulls_last=True), "display_name", "pk"),
    "date_asc": (F("release_date").asc(nulls_last=True), "display_name", "pk"),
}
PARAM_KINDS = ("params_total", "params_active")

# Parameter-count bands of the size filter: (lower bound inclusive, upper bound exclusive), in parameters.
SIZE_BANDS: dict[str, tuple[int | None, int | None]] = {
    "under-10": (None, 10_000_000_000),
    "10-40": (10_000_000_000, 40_000_000_000),
    "40-150": (40_000_000_000, 150_000_000_000),
    "over-150": (150_000_000_000, None),
}
# "Weights fit" filters: the weights alone against one GPU's memory (GB = 10⁹ bytes). This is not the memory a
# model needs (no KV cache, activations or engine overhead; the model page has those), so pages call it "weights
# fit". INT4 at 4.2 bits per weight covers group-quantized INT4 with g = 128 (4.156 bits, docs/methodology.md
# §2.4); FP16 is 16 bits (§2.1). Bits are kept as a fraction (numerator, denominator) so the database does
# integer arithmetic.
WEIGHT_FITS: dict[str, tuple[int, tuple[int, int]]] = {
    "24gb-int4": (24_000_000_000, (42, 10)),
    "80gb-fp16": (80_000_000_000, (16, 1)),
}
# "Runs on my machine": the weights at INT4 (the same 4.2 bits per parameter as "24gb-int4") within the remembered
# machine's GPU memory ("gpu"), or within its GPU memory plus system RAM, llama.cpp keeping the rest in RAM ("ram").
MACHINE_FITS = ("gpu", "ram")
MACHINE_FIT_BITS = (42, 10)
MOE_CHOICES = ("moe", "dense")
PER_PAGE = 100
COUNT_CAP = 1000  # the list counts matches up to here and says "more than" beyond, never COUNT(*) of the table
SUGGESTIONS = 8
MAX_SERVED_MODELS = 1024  # model rows kept per process for serving their pages (each a few KB with its config)


def models_list(
    query: str = "", family: str = "", attention: str = "", modality: str = "", sort: str = "name"
) -> QuerySet[Model]:
    models = Model.objects.all()
    if query:
        # each word inside the Hub id, name or family, hyphens, dots and spaces ignored: "gptoss", "llama 3.1 8b"
        for word in query.split():
            compacted = naming.compact(word)
            matches = Q(hub_id__icontains=word) | Q(family__icontains=word)
            if compacted:
                matches |= Q(search_text__contains=compacted)
            models = models.filter(matches)
    if family:
        models = models.filter(family=family)
    if attention:
        models = models.filter(attention_kind=attention)
    if modality:
        models = models.filter(modality=modality)
    return models.order_by(*SORTS.get(sort, SORTS["name"]))


def filter_choices() -> dict[str, list[str]]:
    def distinct(field: str) -> list[str]:
        # order_by() drops Meta.ordering, which DISTINCT would otherwise take into every row it compares.
        values = Model.objects.exclude(**{field: ""}).order_by().values_list(field, flat=True).distinct()
        return sorted(set(values))

    return {
        "family": distinct("family"),
        "attention": distinct("attention_kind"),
        "modality": distinct("modality"),
        "licence": distinct("licence"),
    }


def weight_bytes(bits: tuple[int, int]) -> ExpressionWrapper:
    """The weights' bytes at a number of bits per parameter, params_total × bits / 8, in the database."""
    numerator, denominator = bits
    return ExpressionWrapper(
        F("params_total") * Value(numerator) / Value(denominator * 8), output_field=BigIntegerOutput()
    )


def catalog_models(
    query: str = "",
    *,
    family: str = "",
    attention: str = "",
    modality: str = "",
    licence: str = "",
    size: str = "",
    moe: str = "",
    fits: str = "",
    machine_bytes: int | None = None,
    sort: str = "name",
) -> QuerySet[Model]:
    """The catalog list's models: the search and every filter of the list page, in the chosen order.
    ``machine_bytes``: only models whose weights at INT4 fit within that many bytes (the reader's machine)."""
    models = models_list(query, family, attention, modality, sort)
    if licence:
        models = models.filter(licence=licence)
    if size in SIZE_BANDS:
        low, high = SIZE_BANDS[size]
        if low is not None:
            models = models.filter(params_total__gte=low)
        if high is not None:
            models = models.filter(params_total__lt=high)
    if moe in MOE_CHOICES:
        models = models.filter(is_moe=moe == "moe")
    if fits in WEIGHT_FITS:
        limit, bits = WEIGHT_FITS[fits]
        models = models.annotate(weights_bytes=weight_bytes(bits)).filter(
            params_total__isnull=False, weights_bytes__lte=limit
        )
    if machine_bytes is not None:
        models = models.annotate(machine_weights_bytes=weight_bytes(MACHINE_FIT_BITS)).filter(
            params_total__isnull=False, machine_weights_bytes__lte=machine_bytes
        )
    return models


@dataclass(frozen=True, slots=True)
class CatalogRow:
    """One model of the catalog list, with its sizes in billions as the list shows them and the calculator's headline
    (list_figures.py) where one is known."""

    model: Model
    params_billions: float | None
    active_billions: float | None  # a mixture of experts only
    figures: ListFigures | None = None


def _catalog_row(model: Model, figures: ListFigures | None = None) -> CatalogRow:
    active = model.params_active if model.is_moe else None
    return CatalogRow(
        model=model,
        params_billions=model.params_total / 1e9 if model.params_total else None,
        active_billions=active / 1e9 if active else None,
        figures=figures,
    )


@dataclass(frozen=True, slots=True)
class CatalogPage:
    rows: list[CatalogRow]
    number: int
    per_page: int
    has_next: bool
    count: int | None  # None: more than COUNT_CAP matches

    @property
    def has_previous(self) -> bool:
        return self.number > 1

    @property
    def first_index(self) -> int:
        return (self.number - 1) * self.per_page + 1 if self.rows else 0

    @property
    def last_index(self) -> int:
        return (self.number - 1) * self.per_page + len(self.rows)


def catalog_page(models: QuerySet[Model], number: int = 1, per_page: int = PER_PAGE) -> CatalogPage:
    """One page of an ordered list without counting the whole table: one row past the page says whether a next
    page exists, and the count stops at COUNT_CAP (a COUNT over a LIMIT subquery, bounded however large the
    catalog grows)."""
    start = (max(number, 1) - 1) * per_page
    rows = list(models[start : start + per_page + 1])
    has_next = len(rows) > per_page
    rows = rows[:per_page]
    figures = list_figures(rows)
    if number == 1 and not has_next:
        count: int | None = len(rows)
    else:
        capped = models.order_by()[: COUNT_CAP + 1].count()
        count = capped if capped <= COUNT_CAP else None
    return CatalogPage(
        rows=[_catalog_row(m, figures.get(m.pk)) for m in rows],
        number=number,
        per_page=per_page,
        has_next=has_next,
        count=count,
    )


@dataclass(frozen=True, slots=True)
class Suggestion:
    url: str
    hub_id: str
    display_name: str
    organisation: str
    family: str
    params_billions: float | None


def suggestions(text: str, limit: int = SUGGESTIONS) -> list[Suggestion]:
    """Models for the search box as the reader types: names that start with the text first, then organisations or
    families that do, then names that contain every word; each tier alphabetical, at most `limit` in all."""
    text = " ".join(text.split())[:200]
    if not text:
        return []
    fields = ("hub_id", "display_name", "organisation", "family", "params_total")
    picked: list[Model] = []
    tiers: list[QuerySet[Model]] = [
        Model.objects.filter(display_name__istartswith=text).order_by(Lower("display_name"), "pk"),
        Model.objects.filter(Q(organisation__istartswith=text) | Q(family__istartswith=text)).order_by(
            Lower("organisation"), Lower("display_name"), "pk"
        ),
        models_list(text).order_by(Lower("display_name"), "pk"),
    ]
    for tier in tiers:
        if len(picked) >= limit:
            break
        seen = [m.pk for m in picked]
        picked.extend(tier.exclude(pk__in=seen).only(*fields)[: limit - len(picked)])
    return [
        Suggestion(
            url=m.url,
            hub_id=m.hub_id,
            display_name=m.display_name,
            organisation=m.organisation,
            family=m.family,
            params_billions=m.params_total / 1e9 if m.params_total else None,
        )
        for m in picked
    ]


def model_by_hub_id(hub_id: HubId | str) -> Model | None:
    value = hub_id.value if isinstance(hub_id, HubId) else hub_id
    return Model.objects.filter(hub_id__iexact=value).first()


# The catalog row a page's URL names, read once per state of the catalog in this process (an import, a bundled load
# or an admin edit bumps the generation): reading the row parses its config.json, ~1 ms of every model page. Pages
# only read it; whatever writes a model reads it afresh with ``model_by_hub_id``.
SERVED_MODELS: Kept[Model | None] = Kept(
    "served-model", depends_on=(CATALOG_GENERATION,), where=PROCESS, max_entries=MAX_SERVED_MODELS
)


def served_model(hub_id: HubId) -> Model | None:
    """The catalog model ``hub_id`` names (any letter case), for serving a page."""
    return SERVED_MODELS.get(lambda: model_by_hub_id(hub_id), hub_id.value.lower())


def _close_strings(word: str, possibilities: list[str], limit: int, cutoff: float = 0.5) -> list[str]:
    """``difflib.get_close_matches(word, possibilities, limit, cutoff)``: the same answer, without difflib scoring
    every possibility in Python (0.2 to 1 s for one query at 20,000 catalog ids).

    difflib's ratio counts the characters of its matching blocks, which form a common subsequence, so it never
    exceeds rapidfuzz's ``fuzz.ratio`` (twice the longest common subsequence over the summed lengths), which C code
    computes for every possibility at once. difflib then scores candidates in falling order of that bound and stops
    once no remaining candidate can reach the ``limit``-th best score.
    """
    epsilon = 1e-9  # rapidfuzz's percentages are floats; never prune a candidate on a rounding error
    lowest = max(0.0, cutoff * 100 - epsilon)
    bounded = process.extract(word, possibilities, scorer=fuzz.ratio, processor=None, score_cutoff=lowest, limit=None)
    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(word)
    best: list[tuple[float, str]] = []  # a min-heap of the best (score, possibility) so far, as difflib ranks them
    for possibility, bound, _ in bounded:
        if len(best) == limit and bound / 100 + epsilon < best[0][0]:
            break
        matcher.set_seq1(possibility)
        score = matcher.ratio()
        if score >= cutoff:
            if len(best) < limit:
                heapq.heappush(best, (score, possibility))
            else:
                heapq.heappushpop(best, (score, possibility))
    return [possibility for _, possibility in heapq.nlargest(limit, best)]


def close_matches(text: str, limit: int = 5) -> list[Model]:
    """Catalog models whose id or name looks like what the reader typed."""
    text = text.strip().lower()
    if not text:
        return []
    ids = list(Model.objects.values_list("hub_id", flat=True))
    by_lower = {i.lower(): i for i in ids}
    names = {i.split("/", 1)[1].lower(): i for i in ids}
    found = _close_strings(text, list(by_lower), limit)
    picked = [by_lower[f] for f in found]
    name = text.split("/", 1)[-1]
    for match in _close_strings(name, list(names), limit):
        if names[match] not in picked:
            picked.append(names[match])
    for i in ids:
        if name and name in i.lower() and i not in picked:
            picked.append(i)
    order = {hub_id.lower(): n for n, hub_id in enumerate(picked[:limit])}
    # by lower-case id, which the case-insensitive unique index answers (a plain hub_id__in reads the whole table)
    rows = Model.objects.alias(hub_id_lower=Lower("hub_id")).filter(hub_id_lower__in=order)
    return sorted(rows, key=lambda m: order[m.hub_id.lower()])


def import_request_for(hub_id: HubId, now: datetime | None = None) -> ImportRequest | None:
    """The import request of a Hub id. One still pending past its time limit reads as failed (timed out), as the
    reaper will record it, so no page polls for it; posting the id again queues it anew."""
    request = ImportRequest.objects.filter(hub_id__iexact=hub_id.value).select_related("model").first()
    if request is not None and request.is_stale(now or timezone.now()):
        request.state = ImportRequest.State.FAILED
        request.failure, request.reason = ImportRequest.TIMED_OUT, ImportRequest.TIMED_OUT_REASON
    return request


@dataclass(frozen=True, slots=True)
class FactRow:
    value_int: int | None
    value_text: str
    billions: float | None
    source: str
    source_label: str
    source_detail: str
    is_primary: bool


@dataclass(frozen=True, slots=True)
class FactGroup:
    kind: str
    label: str
    rows: tuple[FactRow, ...]
    conflict: bool  # the sources give different values


@dataclass(frozen=True, slots=True)
class BuildRow:
    format: str
    label: str
    repo_id: str
    bits_per_weight: Decimal | None
    bits_source: str
    file_size_bytes: int | None
    size_is_approximate: bool
    size_source: str
    min_ram_bytes: int | None
    quality_note: str
    quality_source: str


@dataclass(frozen=True, slots=True)
class ModelFacts:
    model: Model
    params: tuple[FactGroup, ...]
    other: tuple[FactGroup, ...]
    builds: tuple[BuildRow, ...]
    params_billions: float | None
    active_billions: float | None

    @property
    def has_conflict(self) -> bool:
        return any(g.conflict for g in self.params)


_PUBLISHED = re.compile(r"(\d+(?:\.(\d+))?)\s*[BMT]\b")


def _decimals(row: FactRow) -> int:
    """Decimals (in billions) a figure was given with: '321.3B' → 1, '320B' → 0, an exact count → 3."""
    match = _PUBLISHED.search(row.value_text)
    if match is None:
        return 3
    return len(match.group(2) or "")


def _conflict(kind: str, rows: list[FactRow]) -> bool:
    """Sources disagree when their figures differ even at the precision of the roughest one.

    321.3B vs 320B disagree (321 ≠ 320); 30,532,122,624 vs "30.5B" agree (30.5 = 30.5). Our own count from the
    config is shown beside them but is no source: it differs by convention (what counts as active, which tensors
    a partial config lacks), so it never makes a conflict by itself.
    """
    numbered = [(r, r.value_int) for r in rows if r.value_int and r.source != Source.COMPUTED]
    if kind in PARAM_KINDS and numbered:
        digits = min(_decimals(r) for r, _ in numbered)
        return len({round(value / 1e9, digits) for _, value in numbered}) > 1
    if numbered:
        return len({value for _, value in numbered}) > 1
    return len({r.value_text.strip().lower() for r in rows if r.value_text}) > 1


def model_facts(model: Model) -> ModelFacts:
    """Every figure of a model grouped by fact, with its source, conflicts flagged, and its builds."""
    labels = dict(Source.choices)
    kinds = dict(ModelFact.Kind.choices)
    grouped: dict[str, list[FactRow]] = {}
    for fact in model.facts.all():
        grouped.setdefault(fact.kind, []).append(
            FactRow(
                value_int=fact.value_int,
                value_text=fact.value_text,
                billions=fact.value_int / 1e9 if fact.value_int and fact.kind in PARAM_KINDS else None,
                source=fact.source,
                source_label=str(labels.get(fact.source, fact.source)),
                source_detail=fact.source_detail,
                is_primary=fact.is_primary,
            )
        )
    groups = {
        kind: FactGroup(kind=kind, label=str(kinds.get(kind, kind)), rows=tuple(rows), conflict=_conflict(kind, rows))
        for kind, rows in grouped.items()
    }
    order = [k for k, _ in ModelFact.Kind.choices]
    builds = build_rows([model.pk]).get(model.pk, ())
    return ModelFacts(
        model=model,
        params=tuple(groups[k] for k in PARAM_KINDS if k in groups),
        other=tuple(groups[k] for k in order if k in groups and k not in PARAM_KINDS),
        builds=builds,
        params_billions=model.params_total / 1e9 if model.params_total else None,
        active_billions=model.params_active / 1e9 if model.params_active else None,
    )


def build_rows(model_ids: Sequence[int]) -> dict[int, tuple[BuildRow, ...]]:
    """The published builds of each model, in the catalog's order, from one query."""
    found: dict[int, list[BuildRow]] = {}
    for b in QuantizedBuild.objects.filter(model_id__in=list(model_ids)):
        found.setdefault(b.model_id, []).append(
            BuildRow(
                format=b.format,
                label=b.label,
                repo_id=b.repo_id,
                bits_per_weight=b.bits_per_weight,
                bits_source=b.bits_source,
                file_size_bytes=b.file_size_bytes,
                size_is_approximate=b.size_is_approximate,
                size_source=b.size_source,
                min_ram_bytes=b.min_ram_bytes,
                quality_note=b.quality_note,
                quality_source=b.quality_source,
            )
        )
    return {model_id: tuple(rows) for model_id, rows in found.items()}


@dataclass(frozen=True, slots=True)
class FeaturedModel:
    url: str
    markdown_url: str  # the page's Markdown twin: the page's path with ".md" for its closing slash
    display_name: str
    hub_id: str
    params_billions: float | None  # the page formats it for the reader's locale
    is_moe: bool


def featured_models(limit: int = 12) -> list[FeaturedModel]:
    """A few catalog models for the home page, largest first."""
    featured = []
    for m in models_list(sort="size")[:limit]:
        url = m.url
        featured.append(
            FeaturedModel(
                url=url,
                markdown_url=url.rstrip("/") + ".md",
                display_name=m.display_name,
                hub_id=m.hub_id,
                params_billions=m.params_total / 1e9 if m.params_total else None,
                is_moe=bool(m.is_moe),
            )
        )
    return featured


@dataclass(frozen=True, slots=True)
class SimilarModel:
    url: str
    display_name: str
    params_billions: float | None
    is_moe: bool
    attention_kind: str
    hub_id: str


def similar_models(model: Model, limit: int = 6) -> list[SimilarModel]:
    """Catalog models of similar size (within 2.5× either way), the same kind (MoE or dense) and attention first."""
    total = model.params_total
    if not total:
        return []
    candidates = Model.objects.exclude(pk=model.pk).filter(params_total__gte=total / 2.5, params_total__lte=total * 2.5)
    sized = [
        (m, m.params_total)
        for m in candidates.only("hub_id", "display_name", "params_total", "is_moe", "attention_kind")
        if m.params_total
    ]

    def distance(candidate: tuple[Model, int]) -> tuple[bool, bool, float]:
        other, other_total = candidate
        size = abs(math.log(other_total / total))
        return (other.is_moe != model.is_moe, other.attention_kind != model.attention_kind, size)

    chosen = sorted(sized, key=distance)
    return [
        SimilarModel(m.url, m.display_name, params / 1e9, bool(m.is_moe), m.attention_kind, m.hub_id)
        for m, params in chosen[:limit]
    ]
