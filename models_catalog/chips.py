"""The catalog's quick filters: one link each that turns a common filter on (or off again), as chips above the list."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlencode

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

# (query field, value, label): the filters readers reach for most, each a value of the catalog form's choices.
QUICK_FILTERS: tuple[tuple[str, str, Promise], ...] = (
    ("fits", "24gb-int4", _("Fits a 24 GB card at INT4")),
    ("fits", "80gb-fp16", _("Fits an 80 GB card at FP16")),
    ("moe", "moe", _("Mixture of experts")),
    ("moe", "dense", _("Dense")),
    ("modality", "vision", _("Vision")),
    ("sort", "date", _("Newest first")),
)


@dataclass(frozen=True, slots=True)
class Chip:
    label: str
    href: str  # the list with this filter on, or off where it is on; from the first page
    active: bool


def quick_chips(base: str, filters: Mapping[str, str]) -> list[Chip]:
    """Each quick filter as a chip for the list at ``base`` filtered by ``filters`` (the form's non-empty values)."""
    chips = []
    for field, value, label in QUICK_FILTERS:
        active = filters.get(field) == value
        query = {name: given for name, given in filters.items() if name not in ("page", field)}
        if not active:
            query[field] = value
        chips.append(Chip(str(label), f"{base}?{urlencode(query)}" if query else base, active))
    return chips


def active_filter_count(filters: Mapping[str, str]) -> int:
    """The form's filters in force besides the search text and the order (the count beside "All filters")."""
    return sum(1 for name, value in filters.items() if value and name not in ("q", "sort", "page"))
