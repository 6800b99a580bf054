"""Reads what a model page needs from the catalog and pricing, as the plain inputs ``calculator.page`` takes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from calculator.estimation import ApiPrice
from calculator.estimation.engines.builds import build_bits, released_precision
from calculator.labels import data_text
from calculator.page import Build, HostedPrice, PageInputs, build_key, page_choices
from calculator.state import CalculatorState, PageChoices
from models_catalog.architecture import ModelSpec
from models_catalog.models import Model
from models_catalog.selectors import BuildRow, ModelFacts
from models_catalog.specs import spec_from_model
from pricing.gpus import GpuSpec, load_gpus
from pricing.offers import OfferRecord
from pricing.selectors import HostedApiPrice, api_prices_for, current_offers
from web.generations import PRICES_GENERATION
from web.kept import PROCESS, Kept


@dataclass(frozen=True, slots=True)
class PageSources:
    spec: ModelSpec
    builds: tuple[Build, ...]
    offers: tuple[OfferRecord, ...]
    gpus: tuple[GpuSpec, ...]
    hosted: tuple[HostedPrice, ...]
    today: date
    choices: PageChoices

    hub_id: str
    display_name: str = ""

    def inputs(self, state: CalculatorState) -> PageInputs:
        return PageInputs(
            self.spec,
            state,
            self.offers,
            self.gpus,
            self.builds,
            self.hosted,
            self.today,
            self.hub_id,
            self.display_name,
        )


def page_builds(rows: Sequence[BuildRow], params_total: int) -> tuple[Build, ...]:
    """The catalog's published builds as pages choose them (a key per build, labels in the reader's language)."""
    taken: set[str] = set()
    return tuple(
        Build(
            key=build_key(b.label, taken),  # from the label as stored: a permalink names the same build in any language
            label=data_text(b.label),
            format=b.format,
            repo_id=b.repo_id,
            bits_per_weight=build_bits(_optional(b.bits_per_weight), b.file_size_bytes, params_total),
            file_size_bytes=b.file_size_bytes,
            size_is_approximate=b.size_is_approximate,
            size_source=b.size_source,
            min_ram_bytes=b.min_ram_bytes,
            quality_note=b.quality_note,
            quality_source=b.quality_source,
        )
        for b in rows
    )


def _optional(value: object) -> float | None:
    return None if value is None else float(value)  # type: ignore[arg-type]


def _hosted(row: HostedApiPrice) -> HostedPrice:
    intro = row.intro_prices
    price = ApiPrice(
        input_per_million_usd=float(row.list_prices.input_per_million_usd),
        output_per_million_usd=float(row.list_prices.output_per_million_usd),
        cached_input_per_million_usd=_optional(row.list_prices.cached_input_per_million_usd),
        intro_input_per_million_usd=_optional(intro.input_per_million_usd) if intro else None,
        intro_cached_input_per_million_usd=_optional(intro.cached_input_per_million_usd) if intro else None,
        intro_output_per_million_usd=_optional(intro.output_per_million_usd) if intro else None,
        intro_ends=row.intro_ends_on,
    )
    return HostedPrice(
        route=row.route,
        provider=row.provider,
        price=price,
        captured_on=row.captured_on,
        source_publisher=row.source.publisher,
        source_title=row.source.title,
        source_url=row.source.url,
        confidence=row.confidence,
    )


# One spec object per catalog row version in this process: the estimation core remembers what it derives from a spec
# by its identity (facts, per-tensor sizes, estimates), so every request for a model reuses them.
MODEL_SPECS: Kept[ModelSpec] = Kept("model-spec", where=PROCESS, max_entries=1024)
# The current on-demand offers every model page ranks, once per state of the price data (every store, failed
# refresh, prune and fold bumps its generation); stale marks depend on the clock, so re-read at least every 5 min.
PAGE_OFFERS: Kept[tuple[OfferRecord, ...]] = Kept("page-offers", depends_on=(PRICES_GENERATION,), seconds=300)


def model_spec(model: Model) -> ModelSpec:
    key = (model.pk, model.config_sha256, model.params_total, model.params_active, model.updated_at)
    return MODEL_SPECS.get(lambda: spec_from_model(model), *key)


# The current spot (interruptible) offers, which the planner adds where the reader allows them
SPOT_OFFERS: Kept[tuple[OfferRecord, ...]] = Kept("spot-offers", depends_on=(PRICES_GENERATION,), seconds=300)


def page_offers() -> tuple[OfferRecord, ...]:
    return PAGE_OFFERS.get(lambda: tuple(current_offers(pricing_kinds=("on-demand",))))


def spot_offers() -> tuple[OfferRecord, ...]:
    return SPOT_OFFERS.get(lambda: tuple(current_offers(pricing_kinds=("spot",))))


def page_sources(model: Model, facts: ModelFacts, today: date) -> PageSources:
    """Everything the page computes from; raises ``SpecUnavailable`` when the model cannot be sized."""
    spec = model_spec(model)
    builds = page_builds(facts.builds, spec.params_total)
    gpus: Sequence[GpuSpec] = load_gpus()
    return PageSources(
        spec=spec,
        builds=builds,
        offers=page_offers(),
        gpus=tuple(gpus),
        hosted=tuple(_hosted(row) for row in api_prices_for(model.hub_id, today)),
        today=today,
        choices=page_choices(
            spec.max_context or model.max_context,
            builds,
            gpus,
            released=released_precision(spec.native_dtype),
            mtp_layers=spec.mtp_layers,
        ),
        hub_id=model.hub_id,
        display_name=model.display_name,
    )
