"""Hosted per-token API prices: the shipped ``api-prices.json`` loaded, OpenRouter's list prices appended daily.

Rows are appended, never rewritten (natural key: route, provider, capture date); the file and the OpenRouter
answer are read by the pure ``pricing.api_prices``. OpenRouter is reached through the price refresh's HTTP client
(``services.http_client``, with its endpoint overrides).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import httpx
from django.db import transaction

from web.generations import PRICES_GENERATION

from .api_prices import (
    API_PRICES_FILE,
    OPENROUTER_MODELS_URL,
    ApiPriceFileError,
    ApiPriceRecord,
    load_api_prices,
    parse_openrouter_models,
)
from .models import ApiPrice
from .services import RefreshTemporarilyFailed, endpoint_overrides, http_client

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ApiPricesLoadResult:
    added: int
    already_present: int
    mapped: int  # rows (added or present) whose route serves a catalog model


def api_prices_load(path: Path = API_PRICES_FILE) -> ApiPricesLoadResult:
    """Append the prices of ``api-prices.json`` that are not stored yet (natural key: route, provider, capture date).

    A row already stored is never rewritten, so loading the same file twice changes nothing.
    """
    added = present = mapped = 0
    with transaction.atomic():
        for record in load_api_prices(path):
            mapped += bool(record.hub_id)
            if ApiPrice.objects.filter(
                route=record.route, provider=record.provider, captured_on=record.captured_on
            ).exists():
                present += 1
                continue
            _api_price_row(record)
            added += 1
    PRICES_GENERATION.bump()  # the model pages show hosted API prices
    return ApiPricesLoadResult(added=added, already_present=present, mapped=mapped)


def _api_price_row(record: ApiPriceRecord) -> ApiPrice:
    return ApiPrice.objects.create(
        hub_id=record.hub_id,
        route=record.route,
        provider=record.provider,
        input_per_million_usd=record.input_per_million_usd,
        cached_input_per_million_usd=record.cached_input_per_million_usd,
        output_per_million_usd=record.output_per_million_usd,
        intro_input_per_million_usd=record.intro_input_per_million_usd,
        intro_cached_input_per_million_usd=record.intro_cached_input_per_million_usd,
        intro_output_per_million_usd=record.intro_output_per_million_usd,
        intro_ends_on=record.intro_ends_on,
        captured_on=record.captured_on,
        context_length=record.context_length,
        source_publisher=record.source_publisher,
        source_title=record.source_title,
        source_url=record.source_url,
        source_detail=record.source_detail,
        confidence=record.confidence,
        notes=record.notes,
    )


@dataclass(frozen=True, slots=True)
class ApiPricesRefreshResult:
    added: int
    already_present: int  # a capture of that day is stored already (rows are never rewritten)
    left_out: int  # routes serving no catalog model
    error: str = ""


def api_prices_refresh(
    *, raw: bytes | None = None, client: httpx.Client | None = None, now: datetime | None = None
) -> ApiPricesRefreshResult:
    """Append today's OpenRouter list prices of the routes that serve catalog models (one row per route per day).

    ``raw`` is a recorded response; without it OpenRouter's public models endpoint is read (no key), or the URL
    ``PRICING_ENDPOINT_OVERRIDES`` gives for ``openrouter``. Network trouble and 5xx/429 raise
    ``RefreshTemporarilyFailed`` for the task to retry; a malformed answer stores nothing and says why.
    """
    captured_on = (now or datetime.now(UTC)).astimezone(UTC).date()
    if raw is None:
        own_client = client is None
        http = client or http_client()
        url = endpoint_overrides().get("openrouter", OPENROUTER_MODELS_URL)
        try:
            response = http.get(url)
            if response.status_code >= 500 or response.status_code == 429:
                raise RefreshTemporarilyFailed(f"HTTP {response.status_code} from {url}")
            response.raise_for_status()
            raw = response.content
        except httpx.TransportError as exc:
            raise RefreshTemporarilyFailed(f"{type(exc).__name__}: {exc}") from exc
        except httpx.HTTPStatusError as exc:
            return ApiPricesRefreshResult(0, 0, 0, error=str(exc))
        finally:
            if own_client:
                http.close()
    try:
        records, left_out = parse_openrouter_models(json.loads(raw), captured_on)
    except (json.JSONDecodeError, UnicodeDecodeError, ApiPriceFileError) as exc:
        logger.warning("hosted API price refresh: %s", exc)
        return ApiPricesRefreshResult(0, 0, 0, error=f"{type(exc).__name__}: {exc}")
    added = present = 0
    with transaction.atomic():
        for record in records:
            if ApiPrice.objects.filter(route=record.route, provider=record.provider, captured_on=captured_on).exists():
                present += 1
                continue
            _api_price_row(record)
            added += 1
    PRICES_GENERATION.bump()  # the model pages show hosted API prices
    return ApiPricesRefreshResult(added=added, already_present=present, left_out=len(left_out))
