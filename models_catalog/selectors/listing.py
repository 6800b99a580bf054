"""The catalog list: the search, every filter and sort order of the list page, and one page of it."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import BigIntegerField as BigIntegerOutput
from django.db.models import ExpressionWrapper, F, OrderBy, Q, QuerySet, Value

from models_catalog import naming
from models_catalog.list_figures import ListFigures, list_figures
from models_catalog.models import Model

# The primary key last makes every order total, so a page boundary never splits or repeats equal rows.
SORTS: dict[str, tuple[str | OrderBy, ...]] = {
    # by the model's name, not its organisation; case-insensitive, numbers by value (models_catalog.naming.name_key)
    "name": ("name_key", "pk"),
    "size": (F("params_total").desc(nulls_last=True), "display_name", "pk"),
    "size_asc": (F("params_total").asc(nulls_last=True), "display_name", "pk"),
    "date": (F("release_date").desc(nulls_last=True), "display_name", "pk"),
    "date_asc": (F("release_date").asc(nulls_last=True), "display_name", "pk"),
    # popular: the Hub's downloads over the last 30 days, refreshed daily by discovery
    "popular": (F("downloads").desc(nulls_last=True), "display_name", "pk"),
}


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
