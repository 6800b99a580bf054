"""Services that write the catalog: import one model from the Hub, the recorded folder, on-demand requests.

Each write happens in one transaction: a failed import never leaves a half-written model.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext
from kombu.exceptions import OperationalError as BrokerUnavailable
from redis.exceptions import RedisError

from models_catalog import hub
from models_catalog.hub_ids import HubId, InvalidHubId, parse_hub_id
from models_catalog.models import ImportRequest, Model, ModelFact, ModelRevision, QuantizedBuild
from models_catalog.records import (
    RECORDED_AT,
    Figure,
    ModelRecord,
    RecordError,
    builds_from_hub,
    load_reference_facts,
    record_from_folder,
    record_from_hub,
    recorded_model_dirs,
    with_reference_facts,
)
from models_catalog.summary import ArchitectureSummary, summarise
from web.generations import CATALOG_GENERATION

logger = logging.getLogger(__name__)


class NotSizable(hub.HubError):
    """The repo is on the Hub but is not a transformer whose memory we can compute; `missing` says why."""

    state = "not_sizable"

    def __init__(self, hub_id: str, missing: str) -> None:
        super().__init__(hub_id, f"not a transformer we can size: {missing}")


class ImportsThrottled(Exception):
    """This client started too many imports in the last hour."""


class ImportsPaused(Exception):
    """An import could not be queued: Redis (the per-client count, the task queue) is down or not answering."""


# What a Redis that is down or hung raises: redis-py in the cache, kombu around a task publish.
QUEUE_ERRORS = (RedisError, BrokerUnavailable)


# --- writing one model -----
def model_record_save(record: ModelRecord, summary: ArchitectureSummary | None = None) -> tuple[Model, str]:
    """Upsert one model with its facts and builds. Returns (model, "created" | "updated" | "unchanged")."""
    if summary is None:
        summary = summarise(record)
    config_sha = _config_sha(record.config)
    with transaction.atomic():
        model = Model.objects.select_for_update().filter(hub_id__iexact=record.hub_id.value).first()
        outcome = "created" if model is None else "unchanged"
        if model is not None and _differs(model, record, config_sha, summary):
            ModelRevision.objects.create(
                model=model,
                config=model.config,
                config_sha256=model.config_sha256,
                params_total=model.params_total,
                params_active=model.params_active,
                hub_sha=model.hub_sha,
                replaced_at=timezone.now(),
                reason=_change_reason(model, record, config_sha, summary),
            )
            outcome = "updated"
        if model is None:
            model = Model(hub_id=record.hub_id.value)
        if outcome != "unchanged" or _facts_differ(model, record, summary):
            if outcome == "unchanged":
                outcome = "updated"
            _apply(model, record, summary, config_sha)
            model.save()
            _replace_facts(model, record, summary)
            _replace_builds(model, record)
    CATALOG_GENERATION.bump()
    return model, outcome


def _apply(model: Model, record: ModelRecord, summary: ArchitectureSummary, config_sha: str) -> None:
    hub_id = record.hub_id
    model.hub_id = hub_id.value
    model.slug = hub_id.slug
    model.display_name = hub_id.name
    model.organisation = hub_id.org
    model.config = record.config
    model.config_status = record.config_status
    model.config_sha256 = config_sha
    total, total_source = record.params_total, record.params_total_source
    if total is None and summary.params_computed is not None:
        total, total_source = summary.params_computed, "computed"
    active, active_source = record.params_active, record.params_active_source
    if active is None and summary.params_active_computed is not None:
        active, active_source = summary.params_active_computed, "computed"
    model.params_total, model.params_total_source = total, total_source
    model.params_active, model.params_active_source = active, active_source
    model.params_by_dtype = dict(record.params_by_dtype) if record.params_by_dtype else None
    model.params_computed = summary.params_computed
    model.params_active_computed = summary.params_active_computed
    model.family = summary.family
    model.model_type = summary.model_type
    model.attention_kind = summary.attention_kind
    model.is_moe = summary.experts_routed > 0
    model.experts_routed = summary.experts_routed
    model.experts_per_token = summary.experts_per_token
    model.experts_shared = summary.experts_shared
    model.num_layers = summary.num_layers
    model.native_dtype = record.native_dtype or summary.native_dtype
    model.max_context = record.max_context or summary.max_context
    modalities = list(record.modalities) or ["text"]
    if summary.has_vision and "image" not in modalities:
        modalities.append("image")
    model.modalities = modalities
    model.modality = "vision" if "image" in modalities or "video" in modalities else "text"
    model.task = record.task
    model.licence = record.licence
    model.release_date = record.release_date
    model.downloads = record.downloads
    model.likes = record.likes
    model.gated = record.gated
    model.hub_sha = record.hub_sha
    model.sources = list(record.sources)
    model.notes = "\n".join(n for n in (record.notes, *summary.notes) if n)
    model.origin = record.origin
    model.fetched_at = record.fetched_at


def _all_figures(record: ModelRecord, summary: ArchitectureSummary) -> list[Figure]:
    figures = list(record.figures)
    detail = "counted layer by layer from the model's config.json"
    if record.config_status == "partial":
        detail += " (partial config: some tensors may be missing)"
    if summary.params_computed is not None:
        figures.append(Figure("params_total", "computed", summary.params_computed, "", detail))
    if summary.params_active_computed is not None and summary.experts_routed:
        figures.append(Figure("params_active", "computed", summary.params_active_computed, "", detail))
    return figures


def _primary_key(model: Model, figure: Figure) -> bool:
    chosen = {
        "params_total": (model.params_total, model.params_total_source),
        "params_active": (model.params_active, model.params_active_source),
    }.get(figure.kind)
    if chosen is None:
        return figure.primary
    return figure.value_int == chosen[0] and figure.source == chosen[1]


def _replace_facts(model: Model, record: ModelRecord, summary: ArchitectureSummary) -> None:
    model.facts.all().delete()
    seen: set[tuple[str, str, str]] = set()
    rows = []
    marked: set[str] = set()
    for figure in _all_figures(record, summary):
        key = (figure.kind, figure.source, figure.source_detail)
        if key in seen:
            continue
        seen.add(key)
        primary = _primary_key(model, figure) and figure.kind not in marked
        if primary:
            marked.add(figure.kind)
        rows.append(
            ModelFact(
                model=model,
                kind=figure.kind,
                value_int=figure.value_int,
                value_text=figure.value_text[:200],
                source=figure.source,
                source_detail=figure.source_detail,
                is_primary=primary,
                captured_at=record.fetched_at,
            )
        )
    ModelFact.objects.bulk_create(rows)


def _replace_builds(model: Model, record: ModelRecord) -> None:
    model.builds.all().delete()
    QuantizedBuild.objects.bulk_create(
        [
            QuantizedBuild(
                model=model,
                format=b.format,
                label=b.label,
                bits_per_weight=b.bits_per_weight,
                bits_source=b.bits_source,
                repo_id=b.repo_id,
                file_size_bytes=b.file_size_bytes,
                size_source=b.size_source[:200],
                size_is_approximate=b.size_is_approximate,
                min_ram_bytes=b.min_ram_bytes,
                quality_note=b.quality_note[:200],
                quality_source=b.quality_source[:200],
                source=b.source[:300],
                sort_order=b.sort_order,
                fetched_at=record.fetched_at,
            )
            for b in record.builds
        ]
    )


def _config_sha(config: Any) -> str:
    if config is None:
        return ""
    return hashlib.sha256(json.dumps(config, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _differs(model: Model, record: ModelRecord, config_sha: str, summary: ArchitectureSummary) -> bool:
    return (
        model.config_sha256 != config_sha
        or model.params_total != _chosen_total(record, summary)
        or (bool(record.hub_sha) and model.hub_sha != record.hub_sha)
    )


def _chosen_total(record: ModelRecord, summary: ArchitectureSummary) -> int | None:
    return record.params_total if record.params_total is not None else summary.params_computed


def _change_reason(model: Model, record: ModelRecord, config_sha: str, summary: ArchitectureSummary) -> str:
    reasons = []
    if model.config_sha256 != config_sha:
        reasons.append("config.json changed")
    if model.params_total != _chosen_total(record, summary):
        reasons.append("parameter count changed")
    if record.hub_sha and model.hub_sha != record.hub_sha:
        reasons.append(f"Hub revision {model.hub_sha[:12] or '–'} → {record.hub_sha[:12]}")
    return "; ".join(reasons)[:200]


def _facts_differ(model: Model, record: ModelRecord, summary: ArchitectureSummary) -> bool:
    """Anything else an import may bring (downloads, licence, builds, reference figures)."""
    if model.pk is None:
        return True
    current = sorted((f.kind, f.source, f.source_detail, f.value_int, f.value_text) for f in model.facts.all())
    wanted = sorted(
        {
            (f.kind, f.source, f.source_detail): (
                f.kind,
                f.source,
                f.source_detail,
                f.value_int,
                f.value_text[:200],
            )
            for f in _all_figures(record, summary)
        }.values()
    )
    builds_now = sorted((b.repo_id, b.label, b.file_size_bytes) for b in model.builds.all())
    builds_wanted = sorted((b.repo_id, b.label, b.file_size_bytes) for b in record.builds)
    return (
        current != wanted
        or builds_now != builds_wanted
        or model.downloads != record.downloads
        or model.likes != record.likes
        or model.licence != record.licence
        or model.task != record.task
        or model.family != summary.family
        or model.attention_kind != summary.attention_kind
    )


# --- importing from the recorded folder -----
@dataclass
class OfflineImportResult:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return len(self.created) + len(self.updated) + len(self.unchanged)


def model_import_offline(root: Path | str, only: Iterable[str] = ()) -> OfflineImportResult:
    """Import every `<org>/<name>/` of a recorded Hub folder (or only the ids given). Idempotent."""
    wanted = {i.lower() for i in only}
    reference = load_reference_facts()
    result = OfflineImportResult()
    for folder in recorded_model_dirs(Path(root)):
        label = f"{folder.parent.name}/{folder.name}"
        if wanted and label.lower() not in wanted:
            continue
        try:
            record = with_reference_facts(record_from_folder(folder, RECORDED_AT), reference)
            _, outcome = model_record_save(record)
        except (RecordError, InvalidHubId) as exc:
            result.failed[label] = str(exc)
            continue
        getattr(result, outcome).append(record.hub_id.value)
    return result


# --- importing from the Hub -----
def hub_client() -> hub.HubClient:
    return hub.HubClient(
        hub.HubSettings(
            endpoint=settings.HUB_ENDPOINT,
            token=settings.HUB_TOKEN or None,
            timeout_s=settings.HUB_TIMEOUT_S,
            max_retries=settings.HUB_MAX_RETRIES,
            max_retry_after_s=settings.HUB_MAX_RETRY_AFTER_S,
        )
    )


def model_import(hub_id: str | HubId, client: hub.HubClient | None = None) -> Model:
    """Fetch one model from the Hub (info, config.json, quantized sibling repos) and save it.

    Raises InvalidHubId before any request, hub.HubError subclasses for Hub failures, among them NotSizable
    when the config is not one we can compute memory for. Nothing is written unless everything was fetched.
    """
    parsed = hub_id if isinstance(hub_id, HubId) else parse_hub_id(hub_id)
    client = client or hub_client()
    endpoint = client.settings.endpoint
    info = client.model_info(parsed.value)
    if info.gated:
        try:
            config = client.config(parsed.value, revision=info.sha)
        except hub.HubGated as exc:
            raise hub.HubGated(
                parsed.value,
                f"the repo is gated ({info.gated} approval): config.json needs an accepted licence",
            ) from exc
    else:
        config = client.config(parsed.value, revision=info.sha)
    record = record_from_hub(info, config, (), timezone.now(), endpoint)
    summary = summarise(record)
    if summary.missing:
        raise NotSizable(parsed.value, summary.missing)
    builds = []
    total = record.params_total or summary.params_computed
    for repo_id in client.quantized_repo_ids(parsed.value, limit=settings.HUB_QUANT_REPOS_MAX):
        try:
            repo = client.model_info(repo_id)
        except (hub.HubGated, hub.HubNotFound):
            continue
        builds.extend(builds_from_hub(repo, total, endpoint))
    for order, build in enumerate(builds):
        builds[order] = replace(build, sort_order=order)
    record = with_reference_facts(replace(record, builds=tuple(builds)), load_reference_facts())
    model, _ = model_record_save(record, summary=None)
    return model


# --- on-demand imports -----
# An import run inside a web request (Celery eager, no worker) makes one attempt with this timeout per Hub
# request: no worker will retry later, and a reader is waiting.
IN_REQUEST_HUB_TIMEOUT_S = 5.0
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
    except QUEUE_ERRORS as exc:
        logger.warning("import of %s not queued, imports paused: %s", hub_id, exc)
        ImportRequest.objects.filter(pk=request_pk, state=ImportRequest.State.QUEUED).update(
            state=ImportRequest.State.FAILED,
            failure=ImportRequest.PAUSED,
            reason=PAUSED_REASON,
            updated_at=timezone.now(),
        )
        raise ImportsPaused(str(exc)) from exc


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
