"""What a model page computes from: the model's spec and published builds, the reader's calculator state, the offers,
the GPU catalog and the hosted API prices, as plain data (no queryset)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import date

from calculator.estimation import PRECISIONS, ApiPrice
from calculator.estimation.engines.builds import build_precision, released_precision
from calculator.estimation.engines.sourcing import SourceKind, WeightsSource, weights_source
from calculator.state import CalculatorState
from models_catalog.architecture import ModelSpec
from pricing.gpus import GpuSpec
from pricing.offers import OfferRecord

BUILD_PREFIX = "build:"


@dataclass(frozen=True, slots=True)
class Build:
    """A real quantized build of the model, as the catalog records it."""

    key: str  # "build:<slug>", the precision value the form uses
    label: str
    format: str
    repo_id: str
    bits_per_weight: float | None
    file_size_bytes: int | None
    size_is_approximate: bool
    size_source: str
    min_ram_bytes: int | None  # as published, when known
    quality_note: str
    quality_source: str

    @property
    def precision(self) -> str:
        """The generic precision whose rules size everything but the weights (KV cache, overhead)."""
        return build_precision(self.format, self.label, self.bits_per_weight)


@dataclass(frozen=True, slots=True)
class HostedPrice:
    """A hosted API's per-token price for this model, with where it was seen."""

    route: str  # "z-ai/glm-5.3-flash"
    provider: str
    price: ApiPrice
    captured_on: date | None  # None: the source states no date
    source_publisher: str
    source_title: str
    source_url: str
    confidence: str  # "high" | "medium" | "low"


@dataclass(frozen=True, slots=True)
class PageInputs:
    spec: ModelSpec
    state: CalculatorState
    offers: Sequence[OfferRecord]
    gpus: Sequence[GpuSpec]
    builds: Sequence[Build] = ()
    hosted: Sequence[HostedPrice] = ()
    today: date = field(default_factory=date.today)
    hub_id: str = ""  # the model's Hub id, named in launch commands
    display_name: str = ""  # the model's name as the page says it (the FAQ's questions); "" for an inline config

    def weights_source(self, engine: str, precision: str) -> WeightsSource:
        """Where ``engine`` gets ``precision`` (a precision key or a published build's key) of this model from."""
        builds: Sequence[Build] = self.builds
        chosen = next((b for b in builds if b.key == precision), None)
        if chosen is not None:
            builds, precision = (chosen,), chosen.precision
        released = released_precision(self.spec.native_dtype)
        found = weights_source(engine, self.hub_id, released, precision, builds)
        if chosen is not None and found.kind is SourceKind.PUBLISHED:  # its repository may hold the others too
            shared = any(b.repo_id == chosen.repo_id and b.label != chosen.label for b in self.builds)
            found = replace(found, shared_repo=shared)
        return found


def precision_label(precision: str, builds: Sequence[Build] = ()) -> str:
    for build in builds:
        if build.key == precision:
            return build.label
    found = PRECISIONS.get(precision)
    return found.label if found else precision


def build_key(label: str, taken: set[str]) -> str:
    """'2bit-lite' → 'build:2bit-lite'; unique within the model's builds."""
    slug = "-".join("".join(ch if ch.isalnum() else " " for ch in label.lower()).split()) or "build"
    key, n = BUILD_PREFIX + slug, 2
    while key in taken:
        key, n = f"{BUILD_PREFIX}{slug}-{n}", n + 1
    taken.add(key)
    return key
