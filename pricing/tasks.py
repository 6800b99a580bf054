"""Celery tasks: one refresh per provider, each its own task, so one provider's failure never blocks another."""

from __future__ import annotations

from datetime import UTC, datetime

import httpx
from celery import Task, shared_task
from django.conf import settings

from .api_price_services import api_prices_refresh
from .bundled import curated_provider_slugs
from .price_index import price_history_settle, price_index_compute
from .retention import offers_prune
from .services import SKIPPED, RefreshTemporarilyFailed, offers_refresh

# The refresh's hard limit, and the soft one that lets it end cleanly (release its lock, record the failure) first.
REFRESH_TIME_LIMIT_SECONDS = settings.PRICING_REFRESH_TIME_LIMIT_SECONDS
REFRESH_SOFT_TIME_LIMIT_SECONDS = max(1, REFRESH_TIME_LIMIT_SECONDS * 4 // 5)


class RefreshSkipped(Exception):
    """Another refresh of the provider held its lock (running, or killed and its lock not yet expired)."""


@shared_task(
    bind=True,
    name="pricing.refresh_provider",
    autoretry_for=(httpx.TransportError, RefreshTemporarilyFailed),
    retry_backoff=30,
    retry_backoff_max=30 * 60,
    retry_jitter=True,
    max_retries=5,
    # The provider's refresh lock lasts exactly this long (services.refresh_lock_seconds): a worker killed
    # mid-refresh frees the provider by the time the refresh could no longer be running.
    time_limit=REFRESH_TIME_LIMIT_SECONDS,
    soft_time_limit=REFRESH_SOFT_TIME_LIMIT_SECONDS,
)
def refresh_provider(self: Task, provider_slug: str) -> dict:
    """Refresh one provider. Network trouble and 5xx/429 answers are retried with backoff; the failure is
    recorded as a snapshot each time, and the provider keeps its last good offers meanwhile. A refresh that finds
    another one running is retried once that one's lock has expired (a redelivered task after a killed worker
    lands here too); after ``max_retries`` the task fails with ``RefreshSkipped``, never reports success."""
    result = offers_refresh(provider_slug)
    if result.outcome == SKIPPED:
        raise self.retry(
            countdown=max(1, result.retry_after_seconds),
            exc=RefreshSkipped(f"{provider_slug}: {result.error}"),
        )
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
    """The daily price history of ``day`` (ISO date); without one, every finished day not yet settled (normally
    yesterday, once), then today so far. Values: GPUs with an on-demand price that day."""
    if day:
        one = datetime.fromisoformat(day).date()
        return {one.isoformat(): price_index_compute(one)}
    now = datetime.now(UTC)
    computed = price_history_settle(now)
    computed[now.date().isoformat()] = price_index_compute(now.date(), now)
    return computed


@shared_task(name="pricing.prune_offers")
def prune_offers() -> dict:
    """Fold every finished day into the daily price history, then delete raw offers past the retention window."""
    result = offers_prune()
    return {
        "settled_days": result.settled_days,
        "snapshots_deleted": result.snapshots_deleted,
        "offers_deleted": result.offers_deleted,
    }
