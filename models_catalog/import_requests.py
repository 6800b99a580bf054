"""On-demand imports: a Hub id a reader asked for, queued under a per-client hourly limit, run and recorded.

``import_request_start`` (the view) counts the client against the limit and queues the task once per id;
``import_request_run`` (the task) runs ``hub_import.model_import`` and records the outcome on the ImportRequest row;
``import_requests_expire`` (beat) ends the ones whose worker died; ``import_request_requeue_lost`` (the next request
for an id) queues again one whose message a broker restart lost. Redis being down pauses imports, never errors.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from datetime import datetime
from functools import partial

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext
from kombu.exceptions import OperationalError as BrokerUnavailable
from redis.exceptions import RedisError

from models_catalog import hub, import_queue
from models_catalog.hub_ids import HubId, parse_hub_id
from models_catalog.hub_import import model_import
from models_catalog.models import ImportRequest, Model

logger = logging.getLogger(__name__)


class ImportsThrottled(Exception):
    """This client started too many imports in the last hour."""


class ImportsPaused(Exception):
    """An import could not be queued: Redis (the per-client count, the task queue) is down or not answering."""


# What a Redis that is down or hung raises: redis-py in the cache, kombu around a task publish.
QUEUE_ERRORS = (RedisError, BrokerUnavailable)


# An import run inside a web request (Celery eager, no worker) makes one attempt with this timeout per Hub
# request: no worker will retry later, and a reader is waiting.
IN_REQUEST_HUB_TIMEOUT_S = 5.0
# A request queued this recently may not have its broker marker yet (it is set right after the commit).
LOST_AFTER_S = 5
PAUSED_REASON = "the import could not be queued; try again in a few minutes"


def hub_client_in_request() -> hub.HubClient:
    """A Hub client for an import that runs in the web request: short timeouts, no retries of its own."""
    return hub.HubClient(
        hub.HubSettings(
            endpoint=settings.HUB_ENDPOINT,
            token=settings.HUB_TOKEN or None,
            timeout_s=min(float(settings.HUB_TIMEOUT_S), IN_REQUEST_HUB_TIMEOUT_S),
            max_retries=0,
            max_retry_after_s=0,
        )
    )


def _throttle_key(client_key: str) -> str:
    digest = hashlib.sha256(client_key.encode()).hexdigest()[:32]
    return f"catalog:imports:{digest}:{timezone.now():%Y%m%d%H}"


def _in_hand(request: ImportRequest, now: datetime) -> bool:
    """Done, or queued/running within its time limit: posting the id again changes nothing."""
    if request.state == ImportRequest.State.DONE:
        return request.model_id is not None
    return request.is_pending and not request.is_stale(now)


def import_request_start(
    hub_id: HubId,
    client_key: str,
    now: datetime | None = None,
    enqueue: Callable[[str], object] | None = None,
) -> ImportRequest:
    """Queue an import of a Hub id a reader asked for (at most N new imports per client per hour).

    A request done, or queued or running within its time limit, is returned as it is; a failed one, or one pending
    past its time limit, is queued again. One row per lower-cased id, and one task per queuing even when first
    posts race. Raises ImportsThrottled, or ImportsPaused when Redis is down or hung; a request whose task could
    not be queued is recorded as failed, never left pending. `enqueue` sends the task (default: the worker queue).
    """
    now = now or timezone.now()
    existing = ImportRequest.objects.filter(hub_id__iexact=hub_id.value).first()
    if existing is not None and _in_hand(existing, now):
        import_request_requeue_lost(hub_id, now, enqueue)
        return existing
    _count_import_against_limit(client_key)
    with transaction.atomic():
        request, queued = _import_request_queue(hub_id, now)
        if queued:
            transaction.on_commit(partial(_import_request_enqueue, request.pk, hub_id.value, enqueue))
    return request


def _count_import_against_limit(client_key: str) -> None:
    limit = settings.CATALOG_IMPORTS_PER_CLIENT_PER_HOUR
    key = _throttle_key(client_key)
    try:
        cache.add(key, 0, timeout=3600)
        # the key was just added: a missing key here means the cache is unreachable (web.cache fails soft so)
        count = cache.incr(key)
    except (*QUEUE_ERRORS, ValueError) as exc:
        logger.warning("import limit not counted, imports paused: %s", exc)
        raise ImportsPaused(str(exc)) from exc
    if count > limit:
        raise ImportsThrottled(gettext("at most %(limit)s imports per hour") % {"limit": limit})


def _import_request_queue(hub_id: HubId, now: datetime) -> tuple[ImportRequest, bool]:
    """The request row for this id, queued now unless another post queued it first. Inside a transaction.

    Two first posts of one id (in any case) race on the unique Lower(hub_id): the loser's insert fails, and it
    reads the winner's row under a row lock instead of raising.
    """
    try:
        with transaction.atomic():
            return ImportRequest.objects.create(hub_id=hub_id.value, queued_at=now), True
    except IntegrityError:
        request = ImportRequest.objects.select_for_update().get(hub_id__iexact=hub_id.value)
    if _in_hand(request, now):
        return request, False
    request.state = ImportRequest.State.QUEUED
    request.failure, request.reason, request.attempts, request.queued_at = "", "", 0, now
    request.save(update_fields=["state", "failure", "reason", "attempts", "queued_at", "updated_at"])
    return request, True


def _import_request_enqueue(request_pk: int, hub_id: str, enqueue: Callable[[str], object] | None) -> None:
    """Send the import task (after the request row is committed). A broker that is down or hung is recorded on
    the request, which is left failed rather than pending, and raised as ImportsPaused."""
    from models_catalog.tasks import model_import_task

    try:
        (enqueue or model_import_task.delay)(hub_id)
        import_queue.mark_queued(hub_id)
    except QUEUE_ERRORS as exc:
        logger.warning("import of %s not queued, imports paused: %s", hub_id, exc)
        ImportRequest.objects.filter(pk=request_pk, state=ImportRequest.State.QUEUED).update(
            state=ImportRequest.State.FAILED,
            failure=ImportRequest.PAUSED,
            reason=PAUSED_REASON,
            updated_at=timezone.now(),
        )
        raise ImportsPaused(str(exc)) from exc


def import_request_requeue_lost(
    hub_id: HubId, now: datetime | None = None, enqueue: Callable[[str], object] | None = None
) -> bool:
    """Queue again the import of ``hub_id`` if it is still queued but the broker lost its message (restarted
    without persistence): at the next request for it, not after its time limit. Whether it was queued again; one
    request wins when several ask at once. Raises ImportsPaused when the broker does not take it."""
    now = now or timezone.now()
    request = ImportRequest.objects.filter(hub_id__iexact=hub_id.value, state=ImportRequest.State.QUEUED).first()
    if request is None or request.is_stale(now) or (now - request.queued_at).total_seconds() < LOST_AFTER_S:
        return False
    if not import_queue.message_lost(request.hub_id):
        return False
    with transaction.atomic():
        won = ImportRequest.objects.filter(
            pk=request.pk, state=ImportRequest.State.QUEUED, queued_at=request.queued_at
        ).update(queued_at=now, updated_at=now)
        if won:
            logger.warning("import of %s lost by the broker, queued again", request.hub_id)
            transaction.on_commit(partial(_import_request_enqueue, request.pk, request.hub_id, enqueue))
    return bool(won)


def import_requests_expire(now: datetime | None = None) -> int:
    """Record every import still queued or running past its time limit as failed (timed out): its worker died or
    its message was lost, and nothing else would end it. Returns how many. Posting the id again queues it anew."""
    now = now or timezone.now()
    stale = ImportRequest.objects.filter(
        state__in=ImportRequest.PENDING_STATES, queued_at__lt=ImportRequest.stale_before(now)
    )
    expired = stale.update(
        state=ImportRequest.State.FAILED,
        failure=ImportRequest.TIMED_OUT,
        reason=ImportRequest.TIMED_OUT_REASON,
        updated_at=now,
    )
    if expired:
        logger.warning("%d on-demand imports did not finish in time", expired)
    return expired


def _attempts_max() -> int:
    """Runs of one queued import: every retry, and two deliveries more (a worker killed mid-task redelivers it)."""
    return int(settings.CATALOG_IMPORT_MAX_RETRIES) + 1 + 2


def import_request_run(hub_id: str, final_attempt: bool = True, client: hub.HubClient | None = None) -> str:
    """Run the import behind an ImportRequest, recording its state. Returns the final state.

    hub.HubUnavailable / HubRateLimited are re-raised when another attempt will follow (the task retries).
    A request whose earlier runs all ended with their worker (out of memory, killed) is recorded as failed
    instead of being run again, so one such message cannot take workers down forever.
    """
    parsed = parse_hub_id(hub_id)
    request, _ = ImportRequest.objects.get_or_create(hub_id__iexact=parsed.value, defaults={"hub_id": parsed.value})
    if request.state == ImportRequest.State.DONE and Model.objects.filter(hub_id__iexact=parsed.value).exists():
        return request.state
    if request.attempts >= _attempts_max():
        return _import_failed(request, ImportRequest.WORKER_LOST, "the import stopped its worker on every try")
    now = timezone.now()
    # A message that arrives for a request no longer pending (expired, or its publish timed out after Redis took
    # it) starts that request's time limit anew.
    queued_at = request.queued_at if request.is_pending else now
    ImportRequest.objects.filter(pk=request.pk).update(
        state=ImportRequest.State.RUNNING, attempts=request.attempts + 1, queued_at=queued_at, updated_at=now
    )
    try:
        model = model_import(parsed, client=client)
    except (hub.HubUnavailable, hub.HubRateLimited) as exc:
        if not final_attempt:
            ImportRequest.objects.filter(pk=request.pk).update(reason=f"{exc.detail}; trying again")
            raise
        return _import_failed(request, exc.state, exc.detail)
    except hub.HubError as exc:
        return _import_failed(request, exc.state, exc.detail)
    except SoftTimeLimitExceeded:
        return _import_failed(request, ImportRequest.TIMED_OUT, ImportRequest.TIMED_OUT_REASON)
    except Exception as exc:  # a bug or an unexpected payload: record it so the page does not poll forever
        logger.exception("import of %s failed", parsed.value)
        return _import_failed(request, "error", f"the import failed unexpectedly ({type(exc).__name__})")
    ImportRequest.objects.filter(pk=request.pk).update(
        state=ImportRequest.State.DONE, failure="", reason="", model=model, updated_at=timezone.now()
    )
    return ImportRequest.State.DONE


def _import_failed(request: ImportRequest, failure: str, reason: str) -> str:
    ImportRequest.objects.filter(pk=request.pk).update(
        state=ImportRequest.State.FAILED, failure=failure, reason=reason, updated_at=timezone.now()
    )
    return ImportRequest.State.FAILED
