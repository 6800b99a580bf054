"""Reads what a model page needs from the catalog and pricing, as the plain inputs ``calculator.page`` takes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from django.core.cache import cache
from django.db.models import Max

from calculator.estimation import ApiPrice
from calculator.forms import CalculatorState, PageChoices
from calculator.labels import data_text
from calculator.page import Build, HostedPrice, PageInputs, build_key, page_choices
from models_catalog.architecture import ModelSpec
from models_catalog.models import Model
from models_catalog.selectors import BuildRow, ModelFacts
from models_catalog.specs import spec_from_model
from pricing.gpus import GpuSpec, load_gpus
from pricing.models import Offer, PriceSnapshot
from pricing.offers import OfferRecord
from pricing.selectors import HostedApiPrice, api_prices_for, current_offers
from pricing.services import prices_generation


@dataclass(frozen=True, slots=True)
class PageSources:
    spec: ModelSpec
    builds: tuple[Build, ...]
    offers: tuple[OfferRecord, ...]
    gpus: tuple[GpuSpec, ...]
    hosted: tuple[HostedPrice, ...]
    today: date
    choices: PageChoices

    def inputs(self, state: CalculatorState) -> PageInputs:
        return PageInputs(self.spec, state, self.offers, self.gpus, self.builds, self.hosted, self.today)


def _bits(build: BuildRow, params_total: int) -> float | None:
    """Bits per weight as published, else as the file size says (size × 8 ÷ parameters)."""
    if build.bits_per_weight is not None:
        return float(build.bits_per_weight)
    if build.file_size_bytes and params_total > 0:
        return build.file_size_bytes * 8 / params_total
    return None


def _builds(facts: ModelFacts, params_total: int) -> tuple[Build, ...]:
    taken: set[str] = set()
    return tuple(
        Build(
            key=build_key(b.label, taken),  # from the label as stored: a permalink names the same build in any language
            label=data_text(b.label),
            format=b.format,
            repo_id=b.repo_id,
            bits_per_weight=_bits(b, params_total),
            file_size_bytes=b.file_size_bytes,
            size_is_approximate=b.size_is_approximate,
            size_source=b.size_source,
            min_ram_bytes=b.min_ram_bytes,
            quality_note=b.quality_note,
            quality_source=b.quality_source,
        )
        for b in facts.builds
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


_SPECS: dict[tuple[object, ...], ModelSpec] = {}
_SPECS_LIMIT = 1024


def model_spec(model: Model) -> ModelSpec:
    """The model's spec, one object per catalog row version in this process: the estimation core caches what it
    derives from a spec by its identity (facts, per-tensor sizes), so every request for a model reuses them."""
    key = (model.pk, model.config_sha256, model.params_total, model.params_active, model.updated_at)
    spec = _SPECS.get(key)
    if spec is None:
        spec = spec_from_model(model)
        if len(_SPECS) >= _SPECS_LIMIT:
            _SPECS.clear()
        _SPECS[key] = spec
    return spec


OFFERS_SECONDS = 300  # stale marks depend on the clock: re-read at least this often


def page_offers() -> tuple[OfferRecord, ...]:
    """The current on-demand offers every model page ranks, read once per price data state: the key changes with
    the price generation a refresh bumps, every stored snapshot (a refresh, failed or not) and every stored offer,
    so no page shows an old price."""
    snapshot = PriceSnapshot.objects.aggregate(newest=Max("id"))["newest"]
    offer = Offer.objects.aggregate(newest=Max("id"))["newest"]
    key = f"page-offers:{prices_generation()}:{snapshot}:{offer}"
    offers = cache.get(key)
    if offers is None:
        offers = tuple(current_offers(pricing_kinds=("on-demand",)))
        cache.set(key, offers, OFFERS_SECONDS)
    return offers


def page_sources(model: Model, facts: ModelFacts, today: date) -> PageSources:
    """Everything the page computes from; raises ``SpecUnavailable`` when the model cannot be sized."""
    spec = model_spec(model)
    builds = _builds(facts, spec.params_total)
    gpus: Sequence[GpuSpec] = load_gpus()
    return PageSources(
        spec=spec,
        builds=builds,
        offers=page_offers(),
        gpus=tuple(gpus),
        hosted=tuple(_hosted(row) for row in api_prices_for(model.hub_id, today)),
        today=today,
        choices=page_choices(spec.max_context or model.max_context, builds, gpus),
    )
