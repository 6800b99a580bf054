"""The provider refresh: a provider's offers fetched (or read from a file) into a new snapshot, under a lock.

``offers_refresh`` is the one way prices enter the database. It never overwrites: every call appends one
``PriceSnapshot`` (success, unchanged, empty or failed). A failed, empty or garbled refresh leaves the provider's
last good offers current (pages mark them stale with their capture date). Two refreshes of one provider never
overlap: a cache lock (Redis in production) guards each provider. The lock lasts as long as the refresh task may
run (its hard time limit, ``PRICING_REFRESH_TIME_LIMIT_SECONDS``), so a worker killed mid-refresh frees the
provider within that time; a refresh that finds the lock held stores nothing and says so (``skipped``). A
snapshot and its offers are written in one transaction: a refresh killed while writing leaves nothing behind.
The GPU table and the shipped offer files are ``bundled``'s; the hosted per-token prices ``api_price_services``'.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
from django.conf import settings
from django.core.cache import cache
from django.db import transaction

from web.generations import PRICES_GENERATION

from .bundled import curated_file
from .models import Gpu, Offer, PriceSnapshot, Provider
from .offers import OfferRecord
from .providers import API_PROVIDERS, PayloadError, ProviderModule, curated, gpuhunt_source

logger = logging.getLogger(__name__)

SKIPPED = "skipped"  # the outcome of a refresh that found another refresh of the provider running
SKIPPED_ERROR = "skipped: another refresh is running"


class RefreshTemporarilyFailed(Exception):
    """A refresh failed in a way worth retrying (network trouble, 5xx, 429)."""


@dataclass(frozen=True, slots=True)
class RefreshResult:
    provider_slug: str
    outcome: str  # a PriceSnapshot.Outcome value, or SKIPPED when another refresh of the provider was running
    offer_count: int = 0
    error: str = ""
    retryable: bool = False
    snapshot_id: int | None = None
    retry_after_seconds: int = 0  # SKIPPED: when the running refresh's lock expires at the latest


# --- refresh lock ---------------------------------------------------------------------------------------------


def refresh_lock_seconds() -> int:
    """How long a provider's refresh lock lasts: the refresh task's hard time limit (``pricing.tasks``), so the
    lock of a refresh that was killed (by the limit, OOM, a lost worker) frees itself by the time the refresh
    could no longer be running."""
    return int(settings.PRICING_REFRESH_TIME_LIMIT_SECONDS)


def _lock_key(provider_slug: str) -> str:
    return f"pricing:refresh-lock:{provider_slug}"


@contextmanager
def refresh_lock(provider_slug: str, timeout: int | None = None) -> Iterator[bool]:
    """``cache.add`` is atomic in Redis (SET NX): only one holder per provider; the timeout frees a dead one.

    The value records when the lock expires, so a refresh that finds it held can say when to try again.
    """
    key = _lock_key(provider_slug)
    seconds = refresh_lock_seconds() if timeout is None else timeout
    token = f"{uuid.uuid4().hex} {time.time() + seconds:.0f}"
    acquired = cache.add(key, token, seconds)
    try:
        yield acquired
    finally:
        if acquired and cache.get(key) == token:
            cache.delete(key)


def refresh_lock_expires_in(provider_slug: str) -> int:
    """Seconds until the provider's refresh lock expires at the latest (0: not held)."""
    value = cache.get(_lock_key(provider_slug))
    if not isinstance(value, str) or " " not in value:
        return 0
    try:
        expires_at = float(value.rpartition(" ")[2])
    except ValueError:
        return refresh_lock_seconds()
    return max(0, min(refresh_lock_seconds(), int(expires_at - time.time()) + 1))


# --- refresh --------------------------------------------------------------------------------------------------


def _now() -> datetime:
    return datetime.now(UTC)


def _provider_row(slug: str, name: str, website: str, has_api: bool) -> Provider:
    provider, created = Provider.objects.get_or_create(
        slug=slug, defaults={"name": name, "website": website, "has_api": has_api}
    )
    if not created and (provider.name, provider.website, provider.has_api) != (name, website, has_api):
        provider.name, provider.website, provider.has_api = name, website, has_api
        provider.save(update_fields=["name", "website", "has_api"])
    return provider


def _record_failure(
    provider: Provider,
    captured_at: datetime,
    outcome: str,
    error: str,
    source: str,
    digest: str = "",
    catalog_version: str = "",
) -> PriceSnapshot:
    logger.warning("price refresh of %s: %s: %s", provider.slug, outcome, error)
    snapshot = PriceSnapshot.objects.create(
        provider=provider,
        captured_at=captured_at,
        outcome=outcome,
        error=error[:2000],
        source=source,
        payload_sha256=digest,
        catalog_version=catalog_version,
    )
    PRICES_GENERATION.bump()  # a failing provider's offers are shown as stale from now on
    return snapshot


def _offer_rows(snapshot: PriceSnapshot, provider: Provider, records: list[OfferRecord]) -> list[Offer]:
    gpus = {gpu.slug: gpu for gpu in Gpu.objects.all()}
    rows: dict[tuple, Offer] = {}
    for record in records:
        gpu = gpus.get(record.gpu_slug)
        if gpu is None:
            raise PayloadError(f"offer for unknown GPU {record.gpu_slug!r}")
        captured_at = record.captured_at
        if not isinstance(captured_at, datetime):
            captured_at = snapshot.captured_at
        row = Offer(
            snapshot=snapshot,
            provider=provider,
            gpu=gpu,
            instance_name=record.instance_name[:300],
            gpu_counts=list(record.gpu_counts),
            price_per_gpu_hour_usd=Decimal(repr(record.price_per_gpu_hour_usd)).quantize(Decimal("0.000001")),
            instance_prices_usd=[[count, repr(price)] for count, price in record.instance_price_usd],
            pricing_kind=record.pricing_kind,
            term=record.term,
            region=record.region[:100],
            captured_at=captured_at,
            url=record.url[:500],
            confidence=record.confidence,
            source=record.source,
            notes=record.notes,
            availability=record.availability[:100],
        )
        # A payload that lists one offer twice stores it once (the natural key of a snapshot's offer).
        rows[(gpu.slug, row.instance_name, row.pricing_kind, row.term, row.region)] = row
    return list(rows.values())


def offers_refresh(
    provider_slug: str,
    *,
    raw: bytes | None = None,
    source: str = "",
    client: httpx.Client | None = None,
    now: datetime | None = None,
) -> RefreshResult:
    """Fetch (or take ``raw``), parse and store one provider's offers as a new snapshot.

    ``raw`` is a recorded payload (``refresh_prices --offline``); without it the provider's API is called, or,
    for a curated provider, its newest dated file is read.
    """
    module = API_PROVIDERS.get(provider_slug)
    with refresh_lock(provider_slug) as acquired:
        if not acquired:
            wait = refresh_lock_expires_in(provider_slug)
            logger.info("price refresh of %s %s (lock expires within %d s)", provider_slug, SKIPPED_ERROR, wait)
            return RefreshResult(provider_slug, SKIPPED, error=SKIPPED_ERROR, retry_after_seconds=wait)
        captured_at = now or _now()

        if raw is None:
            if module is None:
                path = curated_file(provider_slug)
                if path is None:
                    raise LookupError(f"unknown provider {provider_slug!r}")
                raw, source = path.read_bytes(), _display_path(path)
            else:
                info = module.INFO
                provider = _provider_row(info.slug, info.name, info.website, True)
                source = info.endpoint
                try:
                    raw = _fetch(module, client)
                except (httpx.TransportError, RefreshTemporarilyFailed) as exc:
                    snapshot = _record_failure(provider, captured_at, "failed", f"{type(exc).__name__}: {exc}", source)
                    return RefreshResult(
                        provider_slug, "failed", error=str(exc), retryable=True, snapshot_id=snapshot.pk
                    )
                except (httpx.HTTPStatusError, PermissionError, PayloadError) as exc:
                    snapshot = _record_failure(provider, captured_at, "failed", f"{type(exc).__name__}: {exc}", source)
                    return RefreshResult(provider_slug, "failed", error=str(exc), snapshot_id=snapshot.pk)
        return _store(provider_slug, module, raw, source, captured_at)


def _fetch(module: ProviderModule, client: httpx.Client | None) -> bytes:
    api_key = getattr(settings, module.INFO.api_key_setting) if module.INFO.api_key_setting else ""
    if module.INFO.api_key_required and not api_key:
        raise PermissionError(f"{module.INFO.name} needs {module.INFO.api_key_setting}")
    own_client = client is None
    http = client or http_client()
    endpoint = endpoint_overrides().get(module.INFO.slug, module.INFO.endpoint)
    try:
        try:
            return module.fetch(http, api_key or None, endpoint, **_fetch_options(module.INFO.slug))
        except httpx.HTTPStatusError as exc:
            if exc.response.status_code >= 500 or exc.response.status_code == 429:
                raise RefreshTemporarilyFailed(f"HTTP {exc.response.status_code} from {exc.request.url}") from exc
            raise
    finally:
        if own_client:
            http.close()


def _fetch_options(slug: str) -> dict[str, Any]:
    """Provider-specific arguments from settings: providers read no settings themselves (one seam, no Django)."""
    if slug == "vastai":
        return {"max_pages": settings.PRICING_VASTAI_MAX_PAGES}
    return {}


def endpoint_overrides() -> dict[str, str]:
    """``PRICING_ENDPOINT_OVERRIDES`` ("runpod=https://proxy/graphql,..."): point a provider at a proxy or a
    replay server (staging, the end-to-end worker test) without touching code."""
    overrides = {}
    for item in settings.PRICING_ENDPOINT_OVERRIDES:
        slug, _, url = item.partition("=")
        if slug and url:
            overrides[slug.strip()] = url.strip()
    return overrides


def http_client() -> httpx.Client:
    """The one outbound HTTP client for price APIs: explicit timeouts, an honest user agent."""
    timeout = settings.PRICING_HTTP_TIMEOUT_SECONDS
    return httpx.Client(
        timeout=httpx.Timeout(timeout, connect=min(timeout, 5.0)),
        headers={"User-Agent": "gpufit-price-refresh/0.1"},
        follow_redirects=True,
    )


def _store(
    provider_slug: str, module: ProviderModule | None, raw: bytes, source: str, captured_at: datetime
) -> RefreshResult:
    digest = hashlib.sha256(raw).hexdigest()
    try:
        payload = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        payload, decode_error = None, f"malformed JSON: {exc}"
    else:
        decode_error = ""

    if module is not None and not curated.is_curated(payload):
        info = module.INFO
        provider = _provider_row(info.slug, info.name, info.website, True)
        parse = module.parse
    else:
        if payload is not None and not curated.is_curated(payload):
            decode_error = "not a provider payload nor a curated offer file"
        try:
            meta = curated.provider_of(payload) if payload is not None else None
        except PayloadError as exc:
            meta, decode_error = None, str(exc)
        if meta is not None and meta["slug"] != provider_slug:
            decode_error = f"file is for provider {meta['slug']!r}, not {provider_slug!r}"
        name = meta["name"] if meta else provider_slug
        provider = _provider_row(provider_slug, name, meta["website"] if meta else "", module is not None)
        parse = curated.parse

    version = gpuhunt_source.catalog_version(payload)
    if decode_error:
        snapshot = _record_failure(provider, captured_at, "failed", decode_error, source, digest, version)
        return RefreshResult(provider_slug, "failed", error=decode_error, snapshot_id=snapshot.pk)

    last_good = (
        PriceSnapshot.objects.filter(provider=provider, outcome=PriceSnapshot.Outcome.SUCCESS)
        .order_by("-captured_at", "-id")
        .first()
    )
    if last_good is not None and last_good.payload_sha256 == digest:
        snapshot = PriceSnapshot.objects.create(
            provider=provider,
            captured_at=captured_at,
            outcome=PriceSnapshot.Outcome.UNCHANGED,
            offer_count=last_good.offer_count,
            payload_sha256=digest,
            source=source,
            same_as=last_good,
            catalog_version=version,
        )
        PRICES_GENERATION.bump()
        return RefreshResult(provider_slug, "unchanged", last_good.offer_count, snapshot_id=snapshot.pk)

    skipped: list[str] = []
    try:
        records = parse(payload, captured_at, skipped)
        term_limit = Offer._meta.get_field("term").max_length or 0
        for record in records:
            # a commitment term is a key of the offer: cut short it would name another term, so the payload fails
            if len(record.term) > term_limit:
                raise PayloadError(f"commitment term longer than {term_limit} characters: {record.term[:60]!r}")
        if records and module is None:
            gpus = set(Gpu.objects.values_list("slug", flat=True))
            unknown = sorted({r.gpu_slug for r in records} - gpus)
            if unknown:
                raise PayloadError(f"offers for GPUs not in the catalog: {', '.join(unknown)}")
    except (PayloadError, KeyError, TypeError, ValueError, AttributeError) as exc:
        error = f"{type(exc).__name__}: {exc}"
        snapshot = _record_failure(provider, captured_at, "failed", error, source, digest, version)
        return RefreshResult(provider_slug, "failed", error=error, snapshot_id=snapshot.pk)

    if not records:
        error = "no offers in the payload" + (f" (skipped: {', '.join(sorted(set(skipped))[:20])})" if skipped else "")
        snapshot = _record_failure(provider, captured_at, "empty", error, source, digest, version)
        return RefreshResult(provider_slug, "empty", error=error, snapshot_id=snapshot.pk)

    notes = f"skipped {len(skipped)} rows for GPUs not in the catalog: {', '.join(sorted(set(skipped))[:20])}"
    with transaction.atomic():
        snapshot = PriceSnapshot.objects.create(
            provider=provider,
            captured_at=captured_at,
            outcome=PriceSnapshot.Outcome.SUCCESS,
            payload_sha256=digest,
            source=source,
            notes=notes if skipped else "",
            catalog_version=version,
        )
        rows = _offer_rows(snapshot, provider, records)
        Offer.objects.bulk_create(rows)
        PriceSnapshot.objects.filter(pk=snapshot.pk).update(offer_count=len(rows))
    PRICES_GENERATION.bump()
    return RefreshResult(provider_slug, "success", len(rows), snapshot_id=snapshot.pk)


# --- recorded files -------------------------------------------------------------------------------------------


def _display_path(path: Path) -> str:
    try:
        return str(path.relative_to(Path(settings.BASE_DIR)))
    except ValueError:
        return path.name


def offline_refresh(
    directory: Path, provider_slug: str | None = None, now: datetime | None = None
) -> list[RefreshResult]:
    """Refresh from recorded files: ``<provider-slug>.json`` per provider, an API payload or a curated file."""
    results = []
    for path in sorted(directory.glob("*.json")):
        slug = path.stem
        if provider_slug and slug != provider_slug:
            continue
        results.append(offers_refresh(slug, raw=path.read_bytes(), source=_display_path(path), now=now))
    return results
