"""Rank cloud offers for a memory need: the cheapest way to rent enough GPUs, per GPU type and per provider.

GPUs needed under the engine's budget on what each GPU's runtime reports, at most 8 per node (``fit.gpus_needed``;
the seed page filled 90 % of the nameplate, ``fit.reference_gpus_needed``); an offer is an
instance sold with certain GPU counts, so you rent the smallest allowed count that covers the GPUs needed and
pay for all of it (8 × B200 billed where the memory needs 5). Cost per month is 730 hours of that instance.

Pure: plain offer records in (``pricing.offers.OfferRecord``), plain dataclasses out. Comparisons run on floats
for speed; the figures of the winning rows are recomputed in ``Decimal`` from the stored prices, so a total such
as 8 × $2.39 or AWS's quoted $63.296/h comes out exactly as the provider states it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Protocol

from pricing.offers import HOURS_PER_MONTH, OfferRecord, PricingKind

from ..memory.fit import MAX_GPUS_PER_NODE, UNREACHABLE_GPUS, gpus_needed, gpus_to_run, nodes_needed

DEFAULT_PRICING_KINDS: tuple[PricingKind, ...] = ("on-demand",)

_CENT = Decimal("0.01")
_DOLLAR = Decimal("1")


class RankableGpu(Protocol):
    """What the ranking needs from a GPU (``pricing.gpus.GpuSpec`` has all of it)."""

    @property
    def slug(self) -> str: ...

    @property
    def memory_bytes(self) -> int: ...

    @property
    def capacity_bytes(self) -> int: ...

    @property
    def name(self) -> str: ...

    @property
    def short_name(self) -> str: ...  # "" where the record has none: the ranking names the GPU by ``name``

    @property
    def family(self) -> str: ...  # "" where the record has none: the ranking groups the GPU by its slug


def round_usd(amount: Decimal, places: Decimal = _CENT) -> Decimal:
    """Round half up, as prices are printed (CoreWeave's $6.305/GPU-h shows as $6.31, not banker's $6.30)."""
    return amount.quantize(places, rounding=ROUND_HALF_UP)


def _exact(value: float) -> Decimal:
    # repr() gives the shortest decimal that round-trips, i.e. the figure that was stored (2.39, not 2.3900000…).
    return Decimal(repr(value))


@dataclass(frozen=True, slots=True)
class RankedOffer:
    """One row: an offer with the instance you would rent for the need, and what it costs."""

    offer: OfferRecord
    gpu_family: str
    gpu_name: str  # the GPU type's short name, "MI300X 192GB"
    gpus_needed: int
    instance_gpus: int  # GPUs in the instance you rent (≥ gpus_needed)
    price_per_gpu_hour_usd: Decimal
    per_hour_usd: Decimal
    per_month_usd: Decimal

    @property
    def provider_slug(self) -> str:
        return self.offer.provider_slug

    @property
    def provider_name(self) -> str:
        return self.offer.provider_name

    @property
    def pays_for_unused_gpus(self) -> bool:
        """True when the instance is only sold larger than the memory needs (8 GPUs billed where 5 hold it)."""
        return self.instance_gpus > self.gpus_needed

    @property
    def price_per_gpu_hour_rounded(self) -> Decimal:
        return round_usd(self.price_per_gpu_hour_usd)

    @property
    def per_hour_rounded(self) -> Decimal:
        return round_usd(self.per_hour_usd)

    @property
    def per_month_rounded(self) -> Decimal:
        return round_usd(self.per_month_usd, _DOLLAR)


@dataclass(frozen=True, slots=True)
class GpuCount:
    """A GPU type and how many of it a need takes (used for the several-node list): the GPUs the memory needs and
    the GPUs an engine runs, whole nodes beyond one (fit.gpus_to_run)."""

    gpu_family: str
    gpu_name: str
    memory_bytes: int
    gpus_needed: int
    nodes: int
    gpus_run: int


@dataclass(frozen=True, slots=True)
class Ranking:
    need_bytes: int
    by_gpu: tuple[RankedOffer, ...]  # one row per GPU type that fits one node, cheapest first
    by_provider: tuple[RankedOffer, ...]  # the cheapest matching offer of each provider, cheapest first
    several_nodes: tuple[GpuCount, ...]  # offered GPU types that need more than 8 GPUs
    no_large_instance: tuple[GpuCount, ...]  # fit one node, but no offer sells an instance that large
    hours_per_month: int = HOURS_PER_MONTH
    per_gpu_bytes: int = 0  # what every GPU of a split held for itself in the counts (fit.gpus_needed)

    @property
    def cheapest(self) -> RankedOffer | None:
        return self.by_gpu[0] if self.by_gpu else None


def _gpu_index(gpus: Iterable[RankableGpu] | Mapping[str, RankableGpu]) -> Mapping[str, RankableGpu]:
    if isinstance(gpus, Mapping):
        return gpus
    return {gpu.slug: gpu for gpu in gpus}


def _family(gpu: RankableGpu) -> tuple[str, str]:
    family = gpu.family or gpu.slug
    name = gpu.short_name or gpu.name
    return family, name


def _row(offer: OfferRecord, family: str, name: str, needed: int, count: int, hours_per_month: int) -> RankedOffer:
    per_gpu = _exact(offer.price_per_gpu_hour_usd)
    per_hour = per_gpu * count
    for quoted_count, quoted_price in offer.instance_price_usd:
        if quoted_count == count:
            per_hour = _exact(quoted_price)
            break
    return RankedOffer(
        offer=offer,
        gpu_family=family,
        gpu_name=name,
        gpus_needed=needed,
        instance_gpus=count,
        price_per_gpu_hour_usd=per_gpu,
        per_hour_usd=per_hour,
        per_month_usd=per_hour * hours_per_month,
    )


def _tie_key(offer: OfferRecord) -> tuple[bool, str, str, str]:
    # Equal prices: fresh before stale, then a stable, readable order.
    return (offer.stale, offer.provider_name.lower(), offer.instance_name, offer.region)


def _count(
    gpu: RankableGpu,
    need_bytes: int,
    engine: str,
    per_gpu_bytes: int,
    several: dict[str, GpuCount],
    fitting_families: dict[str, GpuCount],
) -> tuple[str, str, int]:
    """(family, name, GPUs needed) of a catalog GPU, each GPU holding ``per_gpu_bytes`` for itself; its family's count
    noted among those that take several nodes or those that fit one (neither where no count holds it)."""
    family, name = _family(gpu)
    needed = gpus_needed(need_bytes, gpu, engine, per_gpu_bytes)
    counted = GpuCount(family, name, int(gpu.memory_bytes), needed, nodes_needed(needed), gpus_to_run(needed))
    if needed >= UNREACHABLE_GPUS:
        pass  # one GPU's budget holds nothing beside the engine's start-up budget
    elif needed > MAX_GPUS_PER_NODE:
        several.setdefault(family, counted)
    else:
        fitting_families.setdefault(family, counted)
    return family, name, needed


def _keep_cheaper(
    best: dict[str, tuple[float, OfferRecord, int]], key: str, candidate: tuple[float, OfferRecord, int]
) -> None:
    """Keeps ``candidate`` (cost, offer, count) under ``key`` when it is cheaper than the kept one, or as cheap and
    first by the tie order."""
    current = best.get(key)
    cost, offer, _count = candidate
    if current is None or cost < current[0] or (cost == current[0] and _tie_key(offer) < _tie_key(current[1])):
        best[key] = candidate


def _rows(
    best: dict[str, tuple[float, OfferRecord, int]],
    per_slug: Mapping[str, tuple[str, str, int] | None],
    hours_per_month: int,
) -> tuple[RankedOffer, ...]:
    built = []
    for _cost, offer, count in best.values():
        placed = per_slug[offer.gpu_slug]
        assert placed is not None  # only offers whose GPU was counted reach `best`
        family, name, needed = placed
        built.append(_row(offer, family, name, needed, count, hours_per_month))
    built.sort(key=lambda row: (row.per_hour_usd, _tie_key(row.offer)))
    return tuple(built)


def rank(
    need_bytes: int,
    offers: Iterable[OfferRecord],
    gpus: Iterable[RankableGpu] | Mapping[str, RankableGpu],
    *,
    pricing_kinds: Iterable[PricingKind] = DEFAULT_PRICING_KINDS,
    hours_per_month: int = HOURS_PER_MONTH,
    engine: str = "vllm",
    per_gpu_bytes: int = 0,
) -> Ranking:
    """Rank ``offers`` for a workload that needs ``need_bytes`` of GPU memory.

    ``gpus`` is the GPU catalog (offers for GPUs not in it are ignored). Only offers of ``pricing_kinds`` count
    (on-demand by default, as the seed compares list prices). GPU counts follow ``engine``'s budget rule
    (fit.budget_bytes), each GPU of a split holding ``per_gpu_bytes`` for itself (fit.gpus_needed).
    """
    catalog = _gpu_index(gpus)
    kinds = frozenset(pricing_kinds)
    # slug → (family, name, gpus needed), or None for a GPU not in the catalog
    per_slug: dict[str, tuple[str, str, int] | None] = {}
    best_by_family: dict[str, tuple[float, OfferRecord, int]] = {}
    best_by_provider: dict[str, tuple[float, OfferRecord, int]] = {}
    several: dict[str, GpuCount] = {}
    fitting_families: dict[str, GpuCount] = {}

    for offer in offers:
        if offer.pricing_kind not in kinds:
            continue
        slug = offer.gpu_slug
        if slug not in per_slug:
            gpu = catalog.get(slug)
            per_slug[slug] = (
                None if gpu is None else _count(gpu, need_bytes, engine, per_gpu_bytes, several, fitting_families)
            )
        info = per_slug[slug]
        if info is None:
            continue
        family, _name, needed = info
        if needed > MAX_GPUS_PER_NODE:
            continue
        count = offer.smallest_count_covering(needed)
        if count is None:
            continue
        cost = offer.instance_price_per_hour(count)
        _keep_cheaper(best_by_family, family, (cost, offer, count))
        _keep_cheaper(best_by_provider, offer.provider_slug, (cost, offer, count))

    return Ranking(
        need_bytes=need_bytes,
        by_gpu=_rows(best_by_family, per_slug, hours_per_month),
        by_provider=_rows(best_by_provider, per_slug, hours_per_month),
        several_nodes=_ordered(several.values()),
        no_large_instance=_ordered(
            counted for family, counted in fitting_families.items() if family not in best_by_family
        ),
        hours_per_month=hours_per_month,
        per_gpu_bytes=per_gpu_bytes,
    )


def _ordered(counts: Iterable[GpuCount]) -> tuple[GpuCount, ...]:
    # Fewest GPUs first; among equals the larger GPU first, then by name.
    return tuple(sorted(counts, key=lambda c: (c.gpus_needed, -c.memory_bytes, c.gpu_name)))


def several_node_gpus(
    need_bytes: int, gpus: Iterable[RankableGpu], engine: str = "vllm", per_gpu_bytes: int = 0
) -> tuple[GpuCount, ...]:
    """The GPU types among ``gpus`` on which ``need_bytes`` takes more than one node of 8 GPUs."""
    found: dict[str, GpuCount] = {}
    for gpu in gpus:
        needed = gpus_needed(need_bytes, gpu, engine, per_gpu_bytes)
        if needed >= UNREACHABLE_GPUS:
            continue  # one GPU's budget holds nothing beside the engine's start-up budget
        if needed > MAX_GPUS_PER_NODE:
            family, name = _family(gpu)
            found.setdefault(
                family,
                GpuCount(family, name, int(gpu.memory_bytes), needed, nodes_needed(needed), gpus_to_run(needed)),
            )
    return _ordered(found.values())
