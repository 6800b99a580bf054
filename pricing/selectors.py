"""Selectors: read prices from the database as plain records (``OfferRecord``) and small dataclasses.

The current offers of a provider are those of its latest successful snapshot. They are **stale** when the
provider's latest refresh failed or came back empty (we kept the last good prices), or when their capture date is
older than ``PRICING_STALE_AFTER_HOURS``; pages then show them with that date.

Hosted per-token API prices (``api_prices_for``) come back as ``HostedApiPrice``: the price in force on a given day,
with its capture date, citation and confidence.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, TypedDict

from django.conf import settings
from django.db.models import F, Max, OuterRef, Q, Subquery

from web.generations import PRICES_GENERATION
from web.kept import PROCESS, Kept

from .models import ApiPrice, GpuPriceIndex, Offer, PriceSnapshot, Provider, ProviderPriceDay
from .offers import OfferRecord, as_confidence, as_pricing_kind
from .price_index import INDEX_KIND

if TYPE_CHECKING:
    from django.db.models import QuerySet
    from django_stubs_ext import WithAnnotations


@dataclass(frozen=True, slots=True)
class ProviderStatus:
    slug: str
    name: str
    website: str
    website_label: str  # the website as its link reads: without the scheme and the closing slash
    has_api: bool
    last_refresh_at: datetime | None
    last_outcome: str | None
    last_error: str
    last_good_at: datetime | None  # the latest refresh that confirmed prices (new or unchanged)
    offer_count: int
    stale: bool  # its newest current price is stale (so all are): old, or the latest refresh failed
    # the newest capture among its current offers (a live price counts as re-confirmed by every refresh that found
    # it unchanged): what "prices confirmed" means to a reader, not the time a refresh ran
    newest_capture: datetime | None = None

    @property
    def refresh_outcome(self) -> str | None:
        """What the latest refresh brought, as a reader would put it: a refresh that ran but left only old prices
        ("stale") did not bring new ones, whatever it wrote."""
        if self.stale and self.last_outcome in ("success", "unchanged"):
            return "stale"
        return self.last_outcome


@dataclass(frozen=True, slots=True)
class PricePoint:
    day: date
    median_usd: Decimal  # per GPU-hour, over that day's on-demand offers
    cheapest_usd: Decimal
    offer_count: int
    provider_count: int = 0
    cheapest_at: tuple[str, ...] = ()  # providers (names) offering the cheapest price that day


def _stale_after() -> timedelta:
    return timedelta(hours=settings.PRICING_STALE_AFTER_HOURS)


def _latest(outcomes: Iterable[str] | None, column: str) -> Subquery:
    snapshots = PriceSnapshot.objects.filter(provider=OuterRef("pk"))
    if outcomes is not None:
        snapshots = snapshots.filter(outcome__in=list(outcomes))
    return Subquery(snapshots.order_by("-captured_at", "-id").values(column)[:1])


class _LatestSnapshots(TypedDict):
    success_id: int | None
    last_outcome: str | None
    last_at: datetime | None
    last_error: str | None
    good_at: datetime | None


def _providers_with_latest() -> QuerySet[WithAnnotations[Provider, _LatestSnapshots]]:
    good = [PriceSnapshot.Outcome.SUCCESS, PriceSnapshot.Outcome.UNCHANGED]
    return Provider.objects.annotate(
        success_id=_latest([PriceSnapshot.Outcome.SUCCESS], "id"),
        last_outcome=_latest(None, "outcome"),
        last_at=_latest(None, "captured_at"),
        last_error=_latest(None, "error"),
        good_at=_latest(good, "captured_at"),
    )


def _latest_refresh_failed(provider: WithAnnotations[Provider, _LatestSnapshots]) -> bool:
    """The provider's newest refresh failed or came back empty: its current offers are the last good ones."""
    return provider.last_outcome in (PriceSnapshot.Outcome.FAILED, PriceSnapshot.Outcome.EMPTY)


def provider_statuses(
    now: datetime | None = None,
    *,
    provider_slugs: Iterable[str] | None = None,
    offers: Sequence[OfferRecord] | None = None,
) -> list[ProviderStatus]:
    """Each provider's refresh state, with how many current offers it has and the newest capture among them.
    ``offers``: those providers' current offers (``current_offers``) where the caller read them already."""
    now = now or datetime.now(UTC)
    providers = _providers_with_latest().order_by("name")
    if provider_slugs is not None:
        provider_slugs = list(provider_slugs)
        providers = providers.filter(slug__in=provider_slugs)
    if offers is None:
        offers = current_offers(provider_slugs=provider_slugs, now=now)
    offer_counts: dict[str, int] = defaultdict(int)
    newest: dict[str, datetime] = {}
    for offer in offers:
        offer_counts[offer.provider_slug] += 1
        seen = offer.captured_at
        if isinstance(seen, datetime) and (offer.provider_slug not in newest or seen > newest[offer.provider_slug]):
            newest[offer.provider_slug] = seen
    statuses = []
    for provider in providers:
        count = offer_counts[provider.slug]
        failing = _latest_refresh_failed(provider)
        newest_capture = newest.get(provider.slug)
        old = newest_capture is None or now - newest_capture > _stale_after()
        statuses.append(
            ProviderStatus(
                slug=provider.slug,
                name=provider.name,
                website=provider.website,
                website_label=provider.website.split("//")[-1].rstrip("/"),
                has_api=provider.has_api,
                last_refresh_at=provider.last_at,
                last_outcome=provider.last_outcome,
                last_error=provider.last_error or "",
                last_good_at=provider.good_at,
                offer_count=count,
                stale=bool(count) and (failing or old),
                newest_capture=newest_capture,
            )
        )
    return statuses


_RECORD_FIELDS = (
    "snapshot_id",
    "snapshot__captured_at",
    "provider__slug",
    "provider__name",
    "gpu__slug",
    "instance_name",
    "gpu_counts",
    "price_per_gpu_hour_usd",
    "pricing_kind",
    "region",
    "captured_at",
    "url",
    "confidence",
    "source",
    "notes",
    "instance_prices_usd",
    "term",
    "availability",
)


def _record(row: dict, as_of: datetime, stale: bool) -> OfferRecord:
    return OfferRecord(
        provider_slug=row["provider__slug"],
        provider_name=row["provider__name"],
        gpu_slug=row["gpu__slug"],
        instance_name=row["instance_name"],
        gpu_counts=tuple(sorted(int(c) for c in row["gpu_counts"])),
        price_per_gpu_hour_usd=float(row["price_per_gpu_hour_usd"].normalize()),
        pricing_kind=as_pricing_kind(row["pricing_kind"]),
        region=row["region"],
        captured_at=as_of,
        url=row["url"],
        stale=stale,
        confidence=as_confidence(row["confidence"]),
        source=row["source"],
        notes=row["notes"],
        instance_price_usd=tuple((int(count), float(price)) for count, price in row["instance_prices_usd"]),
        term=row["term"],
        availability=row["availability"],
    )


def current_offers(
    *,
    gpu_slugs: Iterable[str] | None = None,
    provider_slugs: Iterable[str] | None = None,
    pricing_kinds: Iterable[str] | None = None,
    now: datetime | None = None,
) -> list[OfferRecord]:
    """Each provider's offers from its latest successful snapshot, with capture date and stale flag."""
    now = now or datetime.now(UTC)
    stale_after = _stale_after()
    good = [PriceSnapshot.Outcome.SUCCESS, PriceSnapshot.Outcome.UNCHANGED]
    # Only the three snapshot facts this needs (each is a correlated subquery per provider; pages read this).
    providers = Provider.objects.annotate(
        success_id=_latest([PriceSnapshot.Outcome.SUCCESS], "id"),
        last_outcome=_latest(None, "outcome"),
        good_at=_latest(good, "captured_at"),
    ).filter(success_id__isnull=False)
    if provider_slugs is not None:
        providers = providers.filter(slug__in=list(provider_slugs))
    failed = (PriceSnapshot.Outcome.FAILED, PriceSnapshot.Outcome.EMPTY)
    by_snapshot = {
        success_id: (last_outcome in failed, good_at)
        for success_id, last_outcome, good_at in providers.values_list("success_id", "last_outcome", "good_at")
    }
    offers = Offer.objects.filter(snapshot_id__in=list(by_snapshot))
    if gpu_slugs is not None:
        offers = offers.filter(gpu__slug__in=list(gpu_slugs))
    if pricing_kinds is not None:
        offers = offers.filter(pricing_kind__in=list(pricing_kinds))
    records = []
    # Plain rows, not model instances: a page reads every current offer on each request.
    rows = offers.order_by("price_per_gpu_hour_usd", "provider__name", "instance_name").values(*_RECORD_FIELDS)
    for row in rows:
        failing, good_at = by_snapshot[row["snapshot_id"]]
        # A price read live from an API is re-confirmed by every unchanged refresh after it; a curated or
        # recorded price stays as old as the day it was seen.
        live = row["captured_at"] == row["snapshot__captured_at"]
        as_of = max(row["captured_at"], good_at) if live and good_at else row["captured_at"]
        records.append(_record(row, as_of, failing or now - as_of > stale_after))
    return records


def price_history(gpu_slug: str, *, since: date | None = None) -> list[PricePoint]:
    """The GPU's daily on-demand prices from the folded history (``pricing.price_index``; it outlives pruned
    offers), oldest day first: median and cheapest over every provider's offers, and which providers had the
    cheapest. Two indexed reads: the per-GPU index and the per-provider days."""
    index = GpuPriceIndex.objects.filter(gpu__slug=gpu_slug)
    per_provider = ProviderPriceDay.objects.filter(gpu__slug=gpu_slug, pricing_kind=INDEX_KIND)
    if since is not None:
        index, per_provider = index.filter(day__gte=since), per_provider.filter(day__gte=since)
    cheapest: dict[date, list[tuple[Decimal, str]]] = defaultdict(list)
    for day, price, name in per_provider.values_list("day", "cheapest_usd", "provider__name"):
        cheapest[day].append((price, name))
    points = []
    for day, median_usd, cheapest_usd, offer_count, provider_count in index.order_by("day").values_list(
        "day", "median_usd", "cheapest_usd", "offer_count", "provider_count"
    ):
        at = tuple(sorted(name for price, name in cheapest[day] if price == cheapest_usd))
        points.append(PricePoint(day, median_usd, cheapest_usd, offer_count, provider_count, at))
    return points


# Every page renders it: computed once per price-data generation in each process (one index lookup,
# ``pricing_offer_captured_at``), so a page spends no cache round trip on it.
PRICES_CAPTURED_AT: Kept[date | None] = Kept(
    "prices-captured-at", depends_on=(PRICES_GENERATION,), where=PROCESS, max_entries=4
)


def prices_captured_at() -> date | None:
    """The day the newest price we hold was seen at its source (the footer's "prices captured" date)."""
    return PRICES_CAPTURED_AT.get(_newest_capture_day)


def _newest_capture_day() -> date | None:
    newest = Offer.objects.aggregate(newest=Max("captured_at"))["newest"]
    return newest.astimezone(UTC).date() if newest else None


# --- hosted per-token API prices ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TokenPrices:
    """USD per million tokens: input, cached input (None: the source gives none) and output."""

    input_per_million_usd: Decimal
    cached_input_per_million_usd: Decimal | None
    output_per_million_usd: Decimal


@dataclass(frozen=True, slots=True)
class ApiPriceCitation:
    """The source as a reader would cite it; ``detail`` is the full text the data file gives."""

    publisher: str
    title: str
    url: str
    detail: str


@dataclass(frozen=True, slots=True)
class HostedApiPrice:
    """One hosted route's per-token price at one provider, as in force on the day asked about."""

    hub_id: str
    route: str
    provider: str
    prices: TokenPrices  # what applies on the day: the introductory price while it runs, else the list price
    intro_applies: bool  # ``prices`` is the introductory offer
    intro_expired: bool  # there was an introductory offer and it ended before the day
    list_prices: TokenPrices
    intro_prices: TokenPrices | None
    intro_ends_on: date | None  # last day of the introductory offer
    captured_on: date | None  # None: the source states no date
    source: ApiPriceCitation
    confidence: str  # high / medium / low (pricing.models.CONFIDENCE_CHOICES); mark "low" as unverified
    notes: str
    context_length: int | None


def _hosted_api_price(row: ApiPrice, on: date) -> HostedApiPrice:
    list_prices = TokenPrices(row.input_per_million_usd, row.cached_input_per_million_usd, row.output_per_million_usd)
    intro_prices = None
    if row.intro_input_per_million_usd is not None and row.intro_output_per_million_usd is not None:
        intro_prices = TokenPrices(
            row.intro_input_per_million_usd, row.intro_cached_input_per_million_usd, row.intro_output_per_million_usd
        )
    # The offer's end date is its last day (the source: "until 2026-09-09").
    intro_applies = intro_prices is not None and row.intro_ends_on is not None and on <= row.intro_ends_on
    return HostedApiPrice(
        hub_id=row.hub_id,
        route=row.route,
        provider=row.provider,
        prices=intro_prices if intro_applies and intro_prices else list_prices,
        intro_applies=intro_applies,
        intro_expired=intro_prices is not None and not intro_applies,
        list_prices=list_prices,
        intro_prices=intro_prices,
        intro_ends_on=row.intro_ends_on,
        captured_on=row.captured_on,
        source=ApiPriceCitation(row.source_publisher, row.source_title, row.source_url, row.source_detail),
        confidence=row.confidence,
        notes=row.notes,
        context_length=row.context_length,
    )


def api_prices_for(hub_id: str, on: date) -> list[HostedApiPrice]:
    """Per-token prices of every hosted route serving the model (Hub id, any case), as in force on ``on``.

    Per route and provider: the newest capture made on or before ``on``; a capture whose source states no date
    counts only where no dated one exists. Cheapest output first.
    """
    rows = ApiPrice.objects.filter(hub_id__iexact=hub_id.strip()).filter(
        Q(captured_on__lte=on) | Q(captured_on__isnull=True)
    )
    newest: dict[tuple[str, str], ApiPrice] = {}
    for row in rows.order_by("route", "provider", F("captured_on").desc(nulls_last=True), "-id"):
        newest.setdefault((row.route, row.provider), row)
    prices = [_hosted_api_price(row, on) for row in newest.values()]
    return sorted(prices, key=lambda p: (p.prices.output_per_million_usd, p.prices.input_per_million_usd, p.provider))
