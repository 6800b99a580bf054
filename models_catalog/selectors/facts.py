"""One model's facts for its pages: every figure grouped by fact with its sources and conflicts, and its published
builds."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from models_catalog.models import Model, ModelFact, QuantizedBuild, Source

PARAM_KINDS = ("params_total", "params_active")


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
