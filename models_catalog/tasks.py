"""Celery tasks of the catalog: take an id, call one service, return."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from models_catalog import hub, import_requests


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
