"""Discovery: the catalog keeps itself current from the Hub, one step per beat task.

- ``discovery_models_run``: the Hub's listing for the pipeline tags the reader sizes, sorted by trending, downloads
  and creation date; a model above the floor (downloads, likes, or an organisation the catalog lists) and new to the
  catalog is imported through ``hub_import.model_import``; one it cannot import is recorded as skipped with the reason
  (``HubSkip``) and looked at again after ``DISCOVERY_SKIP_RECHECK_DAYS``.
- ``discovery_builds_run``: the repos naming a listed model as ``base_model`` with relation ``quantized`` (GGUF, AWQ,
  GPTQ, FP8, W8A8, MLX); a new one's builds, sized from its file listing, join the model's builds.
- ``discovery_facts_run``: downloads, likes, gated state, licence and the latest commit of listed models.

Each run is recorded as a ``DiscoveryRun`` with its report, holds a lock so that two workers never run the same
step at once, and changes only what the Hub answered for: a Hub that fails, times out or asks us to wait leaves
everything listed as it was (the run stops, reports why, and the next run carries on).
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.core.cache import cache
from django.db.models import F
from django.utils import timezone
from redis.exceptions import RedisError

from models_catalog import hub
from models_catalog.hub_facts import model_builds_add, model_hub_facts_save
from models_catalog.hub_import import NotSizable, hub_client, model_import
from models_catalog.models import DiscoveryRun, HubSkip, Model
from models_catalog.records import builds_from_hub
from web.generations import CATALOG_GENERATION

logger = logging.getLogger(__name__)

SORTS: tuple[hub.ListingSort, ...] = ("trending_score", "downloads", "created_at")
NO_BUILD = "no_build"  # a quantized child repo whose files hold no build we can size


class RunStopped(Exception):
    """The Hub asked us to wait (429 past the longest wait we honour): the rest waits for the next run."""


def discovery_client() -> hub.HubClient:
    """The importer's client, paced below the Hub's documented API limit (``HUB_MIN_INTERVAL_S``)."""
    client = hub_client()
    client.settings.min_interval_s = float(settings.HUB_MIN_INTERVAL_S)
    return client


@contextmanager
def _step_lock(step: str) -> Iterator[bool]:
    """True when this run holds the step's lock; False when another worker's run holds it (or the cache is down)."""
    key, token = f"catalog:discovery:{step}:lock", secrets.token_hex(8)
    try:
        held = bool(cache.add(key, token, timeout=settings.DISCOVERY_TIME_LIMIT_S))
    except RedisError:
        held = False
    try:
        yield held
    finally:
        if held:
            try:
                if cache.get(key) == token:
                    cache.delete(key)
            except RedisError:
                pass  # the lock expires with the run's time limit


def _run(step: str, now: datetime | None, body: Callable[[dict[str, Any], datetime], None]) -> DiscoveryRun:
    now = now or timezone.now()
    with _step_lock(step) as held:
        run = DiscoveryRun.objects.create(step=step, started_at=now)
        report: dict[str, Any] = {}
        if not held:
            run.outcome = DiscoveryRun.Outcome.LOCKED
        else:
            try:
                body(report, now)
                run.outcome = DiscoveryRun.Outcome.DONE
            except RunStopped as stopped:
                report["stopped"] = str(stopped)
                run.outcome = DiscoveryRun.Outcome.PARTIAL
            except SoftTimeLimitExceeded:
                report["stopped"] = "the run reached its time limit; the rest waits for the next run"
                run.outcome = DiscoveryRun.Outcome.PARTIAL
            except hub.HubError as exc:
                report["stopped"] = f"{exc.state}: {exc.detail}"
                run.outcome = DiscoveryRun.Outcome.FAILED
            except Exception as exc:
                logger.exception("discovery step %s failed", step)
                report["stopped"] = f"the run failed unexpectedly ({type(exc).__name__})"
                run.outcome = DiscoveryRun.Outcome.FAILED
        run.report, run.finished_at = report, timezone.now()
        run.save(update_fields=["report", "outcome", "finished_at"])
    return run


# --- new models -----
def _above_floor(row: hub.HubListing, organisations: set[str]) -> bool:
    return (
        (row.downloads or 0) >= settings.DISCOVERY_MIN_DOWNLOADS
        or (row.likes or 0) >= settings.DISCOVERY_MIN_LIKES
        or row.organisation.lower() in organisations
    )


def _is_build(row: hub.HubListing) -> bool:
    """A quantized child (found by the builds step under its base model), not a model of its own."""
    return any(t.startswith("base_model:quantized:") for t in row.tags) or row.library_name in ("gguf", "mlx")


def _listing(client: hub.HubClient, report: dict[str, Any]) -> list[hub.HubListing]:
    rows: dict[str, hub.HubListing] = {}
    for tag in settings.DISCOVERY_PIPELINE_TAGS:
        for sort in SORTS:
            try:
                found = client.listed_models(tag, sort, settings.DISCOVERY_LISTING_LIMIT)
            except hub.HubRateLimited as exc:
                raise RunStopped(exc.detail) from exc
            except hub.HubError as exc:
                report.setdefault("failures", {})[f"listing {tag} by {sort}"] = exc.detail
                continue
            for row in found:
                rows.setdefault(row.hub_id.lower(), row)
    if not rows and report.get("failures"):
        raise hub.HubUnavailable("listing", "no listing answered")
    return list(rows.values())


def _candidates(rows: list[hub.HubListing], now: datetime) -> list[hub.HubListing]:
    listed = {h.lower() for h in Model.objects.values_list("hub_id", flat=True)}
    organisations = {h.split("/", 1)[0] for h in listed}
    recheck = now - timedelta(days=settings.DISCOVERY_SKIP_RECHECK_DAYS)
    skipped = {h.lower() for h in HubSkip.objects.filter(checked_at__gte=recheck).values_list("hub_id", flat=True)}
    return [
        row
        for row in rows
        if row.hub_id.lower() not in listed
        and row.hub_id.lower() not in skipped
        and not _is_build(row)
        and _above_floor(row, organisations)
    ]


def _skip_record(hub_id: str, failure: str, reason: str, now: datetime) -> None:
    skip = HubSkip.objects.filter(hub_id__iexact=hub_id).first()
    if skip is None:
        HubSkip.objects.create(hub_id=hub_id, failure=failure, reason=reason, first_seen_at=now, checked_at=now)
    else:
        HubSkip.objects.filter(pk=skip.pk).update(failure=failure, reason=reason, checked_at=now)


def discovery_models_run(client: hub.HubClient | None = None, now: datetime | None = None) -> DiscoveryRun:
    """Import the new models above the floor from the Hub's listings. Idempotent: a listed or skipped model is
    left alone."""

    def body(report: dict[str, Any], now: datetime) -> None:
        hub_client = client or discovery_client()
        candidates = _candidates(_listing(hub_client, report), now)
        report.update(imported=[], skipped={}, listed=len(candidates))
        for row in candidates[: settings.DISCOVERY_IMPORTS_PER_RUN]:
            try:
                model = model_import(row.hub_id, client=hub_client)
            except hub.HubRateLimited as exc:
                raise RunStopped(exc.detail) from exc
            except hub.HubUnavailable as exc:
                report.setdefault("failures", {})[row.hub_id] = exc.detail
                continue
            except (NotSizable, hub.HubError) as exc:
                _skip_record(row.hub_id, exc.state, exc.detail, now)
                report["skipped"][row.hub_id] = f"{exc.state}: {exc.detail}"
                continue
            report["imported"].append(model.hub_id)

    return _run(DiscoveryRun.Step.MODELS, now, body)


# --- builds of listed models -----
def _due(checked_field: str, limit: int) -> list[Model]:
    return list(Model.objects.order_by(F(checked_field).asc(nulls_first=True), "id")[:limit])


def _new_children(client: hub.HubClient, model: Model, now: datetime) -> list[str]:
    known = {r.lower() for r in model.builds.values_list("repo_id", flat=True)}
    recheck = now - timedelta(days=settings.DISCOVERY_SKIP_RECHECK_DAYS)
    empty_repos = HubSkip.objects.filter(failure=NO_BUILD, checked_at__gte=recheck).values_list("hub_id", flat=True)
    empty = {h.lower() for h in empty_repos}
    children = client.quantized_children(model.hub_id, limit=settings.DISCOVERY_CHILDREN_LIMIT)
    return [c.hub_id for c in children if c.hub_id.lower() not in known and c.hub_id.lower() not in empty]


def _model_builds_found(client: hub.HubClient, model: Model, now: datetime, report: dict[str, Any]) -> None:
    endpoint = client.settings.endpoint
    for repo_id in _new_children(client, model, now)[: settings.HUB_QUANT_REPOS_MAX]:
        try:
            repo = client.model_info(repo_id)
        except (hub.HubGated, hub.HubNotFound) as exc:
            _skip_record(repo_id, NO_BUILD, exc.detail, now)
            continue
        builds = builds_from_hub(repo, model.params_total, endpoint)
        if not builds:
            _skip_record(repo_id, NO_BUILD, "no weights file of a known quantized format", now)
            continue
        for build in model_builds_add(model, builds, now):
            report["builds"].append(
                {
                    "model": model.hub_id,
                    "repo_id": build.repo_id,
                    "format": build.format,
                    "label": build.label,
                    "size_bytes": build.file_size_bytes,
                }
            )


def _builds_checked(client: hub.HubClient, model: Model, now: datetime, report: dict[str, Any]) -> None:
    try:
        _model_builds_found(client, model, now, report)
    except hub.HubRateLimited as exc:
        raise RunStopped(exc.detail) from exc
    except hub.HubError as exc:
        report.setdefault("failures", {})[model.hub_id] = f"{exc.state}: {exc.detail}"
        return
    Model.objects.filter(pk=model.pk).update(builds_checked_at=now)
    report["checked"] += 1


def discovery_builds_run(client: hub.HubClient | None = None, now: datetime | None = None) -> DiscoveryRun:
    """Find the quantized builds published for listed models (those checked longest ago first)."""

    def body(report: dict[str, Any], now: datetime) -> None:
        hub_client = client or discovery_client()
        report.update(builds=[], checked=0)
        try:
            for model in _due("builds_checked_at", settings.DISCOVERY_MODELS_PER_RUN):
                _builds_checked(hub_client, model, now, report)
        finally:
            if report["builds"]:  # also when the run stops early: what it added shows at once
                CATALOG_GENERATION.bump()

    return _run(DiscoveryRun.Step.BUILDS, now, body)


# --- facts that move -----
def discovery_facts_run(client: hub.HubClient | None = None, now: datetime | None = None) -> DiscoveryRun:
    """Refresh the Hub facts of listed models (those checked longest ago first). A model the Hub no longer has, or
    has moved, is reported and kept as it is."""

    def body(report: dict[str, Any], now: datetime) -> None:
        hub_client = client or discovery_client()
        report.update(changed={}, checked=0)
        try:
            for model in _due("hub_checked_at", settings.DISCOVERY_MODELS_PER_RUN):
                _model_facts_refreshed(hub_client, model, now, report)
        finally:
            if report["changed"]:
                CATALOG_GENERATION.bump()

    return _run(DiscoveryRun.Step.FACTS, now, body)


def _model_facts_refreshed(client: hub.HubClient, model: Model, now: datetime, report: dict[str, Any]) -> None:
    try:
        info = client.model_facts(model.hub_id)
    except hub.HubRateLimited as exc:
        raise RunStopped(exc.detail) from exc
    except hub.HubNotFound as exc:
        report.setdefault("missing", {})[model.hub_id] = f"{exc.detail}; kept as listed"
        return
    except hub.HubError as exc:
        report.setdefault("failures", {})[model.hub_id] = f"{exc.state}: {exc.detail}"
        return
    report["checked"] += 1
    if info.hub_id.lower() != model.hub_id.lower():
        # the Hub redirects a renamed repo: its page keeps its address, and the operator sees the new name
        report.setdefault("renamed", {})[model.hub_id] = info.hub_id
        Model.objects.filter(pk=model.pk).update(hub_checked_at=now)
        return
    changes = model_hub_facts_save(model, info, now, client.settings.endpoint)
    if changes:
        report["changed"][model.hub_id] = [f"{c.field}: {c.before or '–'} → {c.after or '–'}" for c in changes]
