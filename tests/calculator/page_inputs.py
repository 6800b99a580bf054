"""A model page's inputs without the database: the spec from the recorded Hub files (``models_catalog/data/hub/``),
the GPU table, the shipped offer snapshot and the hosted API prices from ``pricing/data/``, and a calculator state
from a query, as ``calculator.page.sources`` would hand them to the page from the catalog and the price tables.

    inputs = page_inputs("meta-llama/Llama-3.1-8B-Instruct", {"precision": "int4", "context": "32768"})
    section = build_context(PageWork(inputs))

Nothing here reads or writes a table: tests that use it run without the ``db`` fixture, where pytest-django fails
any query. The model has no published builds (they live in the catalog's tables only).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, date, datetime
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from django.http import QueryDict

from calculator.estimation import ApiPrice
from calculator.estimation.engines.builds import released_precision
from calculator.page import HostedPrice, PageInputs, page_choices
from calculator.state import CalculatorState, PageChoices, parse_state
from models_catalog.architecture import ModelSpec
from models_catalog.specs import spec_from_recorded_folder
from pricing import bundled
from pricing.api_prices import ApiPriceRecord, load_api_prices
from pricing.gpus import GpuSpec, load_gpus
from pricing.offers import OfferRecord
from pricing.providers import curated
from tests.support import ROOT

HUB = ROOT / "models_catalog" / "data" / "hub"
# The day the pages are computed for: the shipped snapshot's capture day (its prices are current then)
SNAPSHOT_DAY = date(2026, 8, 8)


@cache
def recorded_spec(hub_id: str) -> ModelSpec:
    """The model's spec from its recorded config.json and meta.json, with the catalog's parameter counts."""
    return spec_from_recorded_folder(HUB / hub_id)


@cache
def bundled_gpus() -> tuple[GpuSpec, ...]:
    return tuple(load_gpus())


@cache
def bundled_offers(pricing_kind: str = "on-demand") -> tuple[OfferRecord, ...]:
    """Every offer of the newest shipped snapshot (one curated file per provider) of one pricing kind."""
    newest: Path = bundled.snapshot_dirs()[0]
    captured = datetime.combine(date.fromisoformat(newest.name), datetime.min.time(), UTC)
    found: list[OfferRecord] = []
    for path in sorted(newest.glob("*.json")):
        payload: Any = json.loads(path.read_text())
        found += [offer for offer in curated.parse(payload, captured) if offer.pricing_kind == pricing_kind]
    return tuple(found)


def bundled_hosted(hub_id: str, on: date = SNAPSHOT_DAY) -> tuple[HostedPrice, ...]:
    """The hosted routes serving the model as the price file records them, the newest capture on or before ``on``
    per route and provider (a capture without a date only where no dated one exists), cheapest output first."""
    newest: dict[tuple[str, str], ApiPriceRecord] = {}
    rows = [r for r in load_api_prices() if r.hub_id.lower() == hub_id.lower()]
    for row in sorted(rows, key=lambda r: (r.captured_on is None, -(r.captured_on or on).toordinal())):
        if row.captured_on is None or row.captured_on <= on:
            newest.setdefault((row.route, row.provider), row)
    prices = [_hosted(row) for row in newest.values()]
    return tuple(sorted(prices, key=lambda p: (*p.price.prices_on(on)[2::-2], p.provider)))


def _hosted(row: ApiPriceRecord) -> HostedPrice:
    def usd(value: object) -> float | None:
        return None if value is None else float(str(value))

    price = ApiPrice(
        input_per_million_usd=float(row.input_per_million_usd),
        output_per_million_usd=float(row.output_per_million_usd),
        cached_input_per_million_usd=usd(row.cached_input_per_million_usd),
        intro_input_per_million_usd=usd(row.intro_input_per_million_usd),
        intro_cached_input_per_million_usd=usd(row.intro_cached_input_per_million_usd),
        intro_output_per_million_usd=usd(row.intro_output_per_million_usd),
        intro_ends=row.intro_ends_on,
    )
    return HostedPrice(
        route=row.route,
        provider=row.provider,
        price=price,
        captured_on=row.captured_on,
        source_publisher=row.source_publisher,
        source_title=row.source_title,
        source_url=row.source_url,
        confidence=row.confidence,
    )


def recorded_choices(hub_id: str) -> PageChoices:
    """The form's choices for the model, as its page offers them (no published builds)."""
    spec = recorded_spec(hub_id)
    return page_choices(spec.max_context, (), bundled_gpus(), released=released_precision(spec.native_dtype))


def state_for(hub_id: str, query: Mapping[str, str] | None = None) -> CalculatorState:
    """The calculator state a query string asks for on the model's page (defaults for what it leaves out)."""
    return parse_state(QueryDict(urlencode(dict(query or {}))), recorded_choices(hub_id)).state


def page_inputs(
    hub_id: str, query: Mapping[str, str] | None = None, *, today: date = SNAPSHOT_DAY, **changes: Any
) -> PageInputs:
    """Everything a section's builder reads for the model at the state ``query`` asks for; ``changes`` replace
    fields of ``PageInputs`` (``sustained_batch``, ``offers``, …)."""
    fields: dict[str, Any] = {
        "spec": recorded_spec(hub_id),
        "state": state_for(hub_id, query),
        "offers": bundled_offers(),
        "gpus": bundled_gpus(),
        "hosted": bundled_hosted(hub_id, today),
        "today": today,
        "hub_id": hub_id,
        "display_name": hub_id.split("/", 1)[1],
    }
    return PageInputs(**(fields | changes))
