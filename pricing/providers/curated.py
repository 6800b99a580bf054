"""Curated offers: providers without a price API, and dated offline snapshots, in one documented file format.

A file holds one provider's offers as captured on given dates::

    {"format": "gpufit-offers/1",
     "provider": {"slug": "coreweave", "name": "CoreWeave", "website": "https://..."},
     "captured": "2026-11-13",
     "offers": [{"gpu_slug": "h200-sxm", "instance_name": "HGX H200", "gpu_counts": [8],
                 "price_per_gpu_hour_usd": "6.305", "instance_price_usd": [[8, "50.44"]],
                 "pricing_kind": "on-demand", "term": "", "region": "us", "captured_on": "2026-11-13",
                 "confidence": "medium", "source": "...", "notes": "", "url": ""}]}

Prices are decimal strings (or numbers) in USD; ``captured_on`` is the date the price was seen, which is what
pages show. Every row names its source and its confidence (high / medium / low).
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from typing import Any

from pricing.offers import CONFIDENCES, PRICING_KINDS, OfferRecord, normalise_gpu_counts

from .base import PayloadError, as_list, checked_price, field

FORMAT = "gpufit-offers/1"


def is_curated(payload: Any) -> bool:
    return isinstance(payload, dict) and payload.get("format") == FORMAT


def _price(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise PayloadError(f"{where}: expected a decimal price, got {value!r}")
    try:
        price = float(value)
    except ValueError as exc:
        raise PayloadError(f"{where}: not a number: {value!r}") from exc
    return checked_price(price, where)


def _day(value: Any, where: str) -> datetime:
    try:
        day = date.fromisoformat(str(value))
    except ValueError as exc:
        raise PayloadError(f"{where}: expected an ISO date, got {value!r}") from exc
    return datetime.combine(day, time(), tzinfo=UTC)


def provider_of(payload: Any) -> dict[str, str]:
    provider = field(payload, "provider", "file")
    return {
        "slug": str(field(provider, "slug", "provider")),
        "name": str(field(provider, "name", "provider")),
        "website": str(provider.get("website", "")),
    }


def parse(payload: Any, captured_at: datetime, skipped: list[str] | None = None) -> list[OfferRecord]:
    if not is_curated(payload):
        raise PayloadError(f"not a {FORMAT} document")
    provider = provider_of(payload)
    default_day = payload.get("captured")
    offers = []
    for index, row in enumerate(as_list(field(payload, "offers", "file"), "offers")):
        where = f"offers[{index}]"
        kind = row.get("pricing_kind", "on-demand")
        if kind not in PRICING_KINDS:
            raise PayloadError(f"{where}.pricing_kind: unknown {kind!r}")
        confidence = row.get("confidence", "medium")
        if confidence not in CONFIDENCES:
            raise PayloadError(f"{where}.confidence: unknown {confidence!r}")
        try:
            counts = normalise_gpu_counts(row.get("gpu_counts"))
        except ValueError as exc:
            raise PayloadError(f"{where}.gpu_counts: {exc}") from exc
        instance_prices = tuple(
            (int(count), _price(price, f"{where}.instance_price_usd"))
            for count, price in row.get("instance_price_usd") or ()
        )
        seen = row.get("captured_on") or default_day
        offers.append(
            OfferRecord(
                provider_slug=provider["slug"],
                provider_name=provider["name"],
                gpu_slug=str(field(row, "gpu_slug", where)),
                instance_name=str(field(row, "instance_name", where)),
                gpu_counts=counts,
                price_per_gpu_hour_usd=_price(field(row, "price_per_gpu_hour_usd", where), where),
                pricing_kind=kind,
                term=str(row.get("term", "")),
                region=str(row.get("region") or ""),
                captured_at=_day(seen, f"{where}.captured_on") if seen else captured_at,
                url=str(row.get("url") or provider["website"]),
                confidence=confidence,
                source=str(row.get("source", "")),
                notes=str(row.get("notes", "")),
                instance_price_usd=instance_prices,
            )
        )
    return offers
