"""Celery tasks: one refresh per provider, each its own task, so one provider's failure never blocks another."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
from celery import shared_task

from .price_index import price_index_compute
from .providers import API_PROVIDERS
from .services import RefreshTemporarilyFailed, api_prices_refresh, curated_provider_slugs, offers_refresh


@shared_task(
    name="pricing.refresh_provider",
    autoretry_for=(httpx.TransportError, RefreshTemporarilyFailed),
    retry_backoff=30,
    retry_backoff_max=30 * 60,
    retry_jitter=True,
    max_retries=5,
)
def refresh_provider(provider_slug: str) -> dict:
    """Refresh one provider. Network trouble and 5xx/429 answers are retried with backoff; the failure is
    recorded as a snapshot each time, and the provider keeps its last good offers meanwhile."""
    result = offers_refresh(provider_slug)
    if result.retryable:
        raise RefreshTemporarilyFailed(f"{provider_slug}: {result.error}")
    return {"provider": provider_slug, "outcome": result.outcome, "offers": result.offer_count}


@shared_task(name="pricing.refresh_curated")
def refresh_curated() -> list[str]:
    """Re-read the curated offer files, one task per provider."""
    slugs = curated_provider_slugs()
    for slug in slugs:
        refresh_provider.delay(slug)
    return slugs


@shared_task(name="pricing.refresh_all")
def refresh_all() -> list[str]:
    slugs = [*API_PROVIDERS, *curated_provider_slugs()]
    for slug in slugs:
        refresh_provider.delay(slug)
    return slugs


@shared_task(
    name="pricing.refresh_api_prices",
    autoretry_for=(httpx.TransportError, RefreshTemporarilyFailed),
    retry_backoff=60,
    retry_backoff_max=60 * 60,
    retry_jitter=True,
    max_retries=5,
)
def refresh_api_prices() -> dict:
    """Append today's hosted per-token prices from OpenRouter's public models endpoint (idempotent per day)."""
    result = api_prices_refresh()
    return {"added": result.added, "already_present": result.already_present, "error": result.error}


@shared_task(name="pricing.compute_price_index")
def compute_price_index(day: str | None = None) -> dict:
    """The daily price index of ``day`` (ISO date), or of yesterday and today: yesterday's row settles then."""
    today = datetime.now(UTC).date()
    days = [datetime.fromisoformat(day).date()] if day else [today - timedelta(days=1), today]
    return {d.isoformat(): price_index_compute(d) for d in days}
