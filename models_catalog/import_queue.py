"""Whether a queued import's message is still on the broker: a marker beside it in the broker's Redis.

The marker is set when the import's task is published and lasts its time limit. It shares the message's fate: a
broker restarted with its append-only file keeps both; one restarted without persistence, or emptied, loses both.
A request still queued whose marker is gone has lost its message, and is queued again at the next request for it
(``import_requests.import_request_requeue_lost``) instead of waiting for the expiry task. With no Redis broker (the
embedded default runs tasks in the request) there is nothing to lose, and nothing is marked.
"""

from __future__ import annotations

import logging
from typing import Any

import redis
from django.conf import settings

logger = logging.getLogger(__name__)

MARKER_PREFIX = "gpufit:import-queued:"
REDIS_SCHEMES = ("redis://", "rediss://", "unix://")

# One client (and its connection pool) per broker URL in this process.
_CLIENTS: dict[str, Any] = {}


def _broker() -> Any | None:
    url = str(settings.CELERY_BROKER_URL)
    if not url.startswith(REDIS_SCHEMES):
        return None
    client = _CLIENTS.get(url)
    if client is None:
        client = _CLIENTS[url] = redis.Redis.from_url(url, socket_connect_timeout=1.0, socket_timeout=1.0)
    return client


def _marker(hub_id: str) -> str:
    return MARKER_PREFIX + hub_id.lower()


def mark_queued(hub_id: str) -> None:
    """Record that the import of ``hub_id`` was just published (after the publish, on the same broker)."""
    broker = _broker()
    if broker is None:
        return
    try:
        broker.set(_marker(hub_id), 1, ex=int(settings.CATALOG_IMPORT_TIME_LIMIT_S))
    except redis.RedisError as exc:  # the message went out; without its marker a later request queues it again
        logger.warning("queued import of %s not marked: %s", hub_id, exc)


def message_lost(hub_id: str) -> bool:
    """Whether the broker answers and no longer holds the import of ``hub_id`` (a restart without persistence). A
    broker that does not answer cannot tell: False."""
    broker = _broker()
    if broker is None:
        return False
    try:
        return not broker.exists(_marker(hub_id))
    except redis.RedisError:
        return False
