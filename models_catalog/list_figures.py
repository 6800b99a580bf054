"""Figures the catalog list shows beside each model that the catalog itself does not compute: the memory a model
needs as released and the cheapest configuration that holds it.

Those are the calculator's answers, and the calculator sits above the catalog (imports run config → calculator →
catalog), so the catalog only names the shape it reads and the calculator registers the function that fills it when
its app loads (``calculator.apps``). Without one (the catalog on its own) the list shows no such columns.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

from models_catalog.models import Model


@dataclass(frozen=True, slots=True)
class ListFigures:
    """One model's headline: the precision it ships in, what inference needs at it (8K tokens, one request), and the
    cheapest on-demand instance that holds that."""

    precision: str  # a precision key ("fp8", "mxfp4"); pages name it in the reader's language
    need_bytes: int
    cheapest_per_hour_usd: Decimal | None  # None: nothing on sale holds it on one node
    cheapest_instance: str  # "4 × MI300X 192GB", "" without one
    cheapest_provider: str


Provider = Callable[[Sequence[Model]], Mapping[int, ListFigures]]
_providers: list[Provider] = []


def provide(provider: Provider) -> None:
    """Register the function that computes the figures of a page of models (by primary key)."""
    _providers[:] = [provider]


def list_figures(models: Sequence[Model]) -> Mapping[int, ListFigures]:
    return _providers[0](models) if _providers else {}
