"""Celery tasks of the catalog: take an id, call one service, return."""

from __future__ import annotations

from celery import shared_task

from models_catalog import hub, services


@shared_task(
    bind=True,
    autoretry_for=(hub.HubUnavailable, hub.HubRateLimited),
    retry_backoff=True,
    retry_backoff_max=120,
    max_retries=3,
)
def model_import_task(self, hub_id: str) -> str:
    """Import one Hub model for an ImportRequest. Idempotent: a model already imported is left as it is.

    The Hub client retries within one attempt; the transient failures it gives up on (timeouts, 5xx, a long
    Retry-After) are retried here with backoff, and the last attempt records the failure on the request.
    """
    return services.import_request_run(hub_id, final_attempt=self.request.retries >= self.max_retries)
