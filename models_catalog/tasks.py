"""Celery tasks of the catalog: take an id, call one service, return."""

from __future__ import annotations

from typing import Any

from celery import shared_task
from django.conf import settings

from models_catalog import discovery, hub, import_requests


@shared_task(
    bind=True,
    autoretry_for=(hub.HubUnavailable, hub.HubRateLimited),
    retry_backoff=True,
    retry_backoff_max=settings.CATALOG_IMPORT_RETRY_BACKOFF_MAX_S,
    max_retries=settings.CATALOG_IMPORT_MAX_RETRIES,
    # The request row holds the outcome; nothing reads the task result.
    ignore_result=True,
)
def model_import_task(self, hub_id: str) -> str:
    """Import one Hub model for an ImportRequest. Idempotent: a model already imported is left as it is.

    The Hub client retries within one attempt; the transient failures it gives up on (timeouts, 5xx, a long
    Retry-After) are retried here with backoff, and the last attempt records the failure on the request.
    Run eagerly inside a web request (no worker, the embedded default) there is no later: one short attempt,
    its failure recorded at once, so the reader gets the failure page instead of an error after the backoff.
    """
    if self.request.is_eager:
        return import_requests.import_request_run(
            hub_id, final_attempt=True, client=import_requests.hub_client_in_request()
        )
    return import_requests.import_request_run(hub_id, final_attempt=self.request.retries >= self.max_retries)


@shared_task(name="models_catalog.expire_import_requests", ignore_result=True)
def expire_import_requests() -> int:
    """Record on-demand imports stalled past their time limit as failed (beat, every five minutes)."""
    return import_requests.import_requests_expire()


# Discovery (models_catalog.discovery): one task per step on the beat schedule. Each run holds its step's lock and
# records its report; a Hub outage ends the run with nothing listed changed, and the next scheduled run carries on.
DISCOVERY_TIME_LIMIT_S = int(settings.DISCOVERY_TIME_LIMIT_S)
# a run queued while the broker was down is not worth running once the next one is due
DISCOVERY_EXPIRES_S = 6 * 3600.0
DISCOVERY_TASK: dict[str, Any] = {
    "ignore_result": True,
    "time_limit": DISCOVERY_TIME_LIMIT_S,
    "soft_time_limit": DISCOVERY_TIME_LIMIT_S - 60,
    "expires": DISCOVERY_EXPIRES_S,
}


@shared_task(
    name="models_catalog.discover_models",
    **DISCOVERY_TASK,
)
def discover_models() -> dict:
    """New models above the floor from the Hub's listings (beat, every 6 hours)."""
    return discovery.discovery_models_run().report


@shared_task(
    name="models_catalog.discover_builds",
    **DISCOVERY_TASK,
)
def discover_builds() -> dict:
    """New quantized builds of listed models (beat, every 6 hours)."""
    return discovery.discovery_builds_run().report


@shared_task(
    name="models_catalog.refresh_hub_facts",
    **DISCOVERY_TASK,
)
def refresh_hub_facts() -> dict:
    """Downloads, likes, gated state, licence and latest commit of listed models (beat, daily)."""
    return discovery.discovery_facts_run().report
