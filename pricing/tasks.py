"""Celery tasks: one refresh per provider, each its own task, so one provider's failure never blocks another."""

from __future__ import annotations

import httpx
from celery import shared_task

from .providers import API_PROVIDERS
from .services import RefreshTemporarilyFailed, curated_provider_slugs, offers_refresh


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
