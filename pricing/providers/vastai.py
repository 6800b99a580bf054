"""Vast.ai: marketplace offer search (``POST https://console.vast.ai/api/v0/bundles/``).

Each offer is one host's machine: ``dph_total`` is USD per hour for all its ``num_gpus`` GPUs. A marketplace has
many prices for one GPU type, so offers are grouped per GPU type and rental type, and the group's **median**
per-GPU price becomes the offer (the seed page shows "the middle offer" for marketplaces); the GPU counts are
those the marketplace had on offer. ``fetch`` pages through the whole book (up to ``PRICING_VASTAI_MAX_PAGES``), so
the median is over every verified offer, not just the cheapest page.
"""

from __future__ import annotations

import json
import logging
import time
from collections import defaultdict
from collections.abc import Callable
from datetime import datetime
from statistics import median
from typing import Any

import httpx

from pricing.offers import OfferRecord, PricingKind

from .base import PayloadError, ProviderInfo, as_list, checked_price, field, number, positive_int

INFO = ProviderInfo(
    slug="vastai",
    name="Vast.ai",
    website="https://vast.ai/pricing",
    endpoint="https://console.vast.ai/api/v0/bundles/",
    api_key_setting="PRICING_VASTAI_API_KEY",
    docs="vast-ai/docs api-reference/openapi/yaml/search_offers.yaml",
)
logger = logging.getLogger(__name__)

GPU_NAMES: dict[str, str] = {
    "A100 PCIE": "a100-80gb-pcie",
    "A100 SXM4": "a100-80gb-sxm",
    "A40": "a40",
    "B200": "b200",
    "B300": "b300",
    "H100 NVL": "h100-nvl",
    "H100 PCIE": "h100-pcie",
    "H100 SXM": "h100-sxm",
    "H200 NVL": "h200-nvl",
    "H200": "h200-sxm",
    "L4": "l4",
    "L40": "l40",
    "L40S": "l40s",
    "RTX 3090": "rtx-3090",
    "RTX 4060 Ti": "rtx-4060-ti-16gb",
    "RTX 4080": "rtx-4080",
    "RTX 4090": "rtx-4090",
    "RTX 5080": "rtx-5080",
    "RTX 5090": "rtx-5090",
    "RTX 6000Ada": "rtx-6000-ada",
    "RTX A6000": "rtx-a6000",
    "RTX PRO 6000 S": "rtx-pro-6000-blackwell",
    "RTX PRO 6000 WS": "rtx-pro-6000-blackwell",
}
# Vast.ai names A100s the same at 40 and 80 GB; per-GPU RAM (MB) tells them apart.
_A100_40GB = {"A100 PCIE": "a100-40gb-pcie", "A100 SXM4": "a100-40gb-sxm"}

PAGE_SIZE = 64  # the most offers the search returned per call in 2026 (vastai.md)
DEFAULT_MAX_PAGES = 20  # a refresh passes settings.PRICING_VASTAI_MAX_PAGES instead
# search_offers.yaml declares "x-rate-limit: 10 requests per minute per IP", so page requests start 6 s apart.
PAGE_INTERVAL_SECONDS = 6.0
# The whole book is read within this time; it stays under CELERY_TASK_SOFT_TIME_LIMIT (240 s) even when the last
# request then runs to its own timeout, so a slow read is recorded as a failed snapshot instead of killing the task.
FETCH_BUDGET_SECONDS = 180.0

_QUERY = {
    "verified": {"eq": True},
    "rentable": {"eq": True},
    "rented": {"eq": False},
    "type": "ondemand",
    "order": [["dph_total", "asc"]],
}


def fetch(
    client: httpx.Client,
    api_key: str | None,
    endpoint: str = INFO.endpoint,
    *,
    max_pages: int = DEFAULT_MAX_PAGES,
    page_size: int | None = None,
    clock: Callable[[], float] = time.monotonic,
    pause: Callable[[float], None] = time.sleep,
) -> bytes:
    """Read the offer book cheapest first, one page per request, and return it as one ``{"offers": [...]}``.

    The search has no cursor, so each next page asks for ``dph_total >= `` the highest price seen (vastai.md) and
    offers already read are dropped by id: offers tied at a page boundary are then read once each instead of lost,
    as a strict ``>`` would lose them. The offers are sorted by price and id, so an unchanged book gives identical
    bytes (and an ``unchanged`` snapshot) whatever order the server returns ties in.

    Any failure on any page fails the whole refresh (the provider keeps its last good offers, as for every other
    failure): an HTTP error or timeout propagates, a page that is not a well-formed offer list is returned as the
    payload so ``parse`` refuses it, and running out of time raises ``httpx.TimeoutException``. A partial book
    would be its cheapest pages only, the low-biased median that paging exists to avoid, and a snapshot cannot
    say it is partial. Reaching ``max_pages`` is different: a fixed bound, the same every hour, so it stops the
    read, keeps what was read, and logs a warning.
    """
    page_size = page_size or PAGE_SIZE
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    book: dict[str, dict[str, Any]] = {}
    price_filter: dict[str, float] = {}
    started = last_request = clock()
    for page in range(max_pages):
        if page:
            wait = PAGE_INTERVAL_SECONDS - (clock() - last_request)
            if clock() - started + max(wait, 0.0) >= FETCH_BUDGET_SECONDS:
                raise httpx.TimeoutException(
                    f"Vast.ai offer search: {page} pages read, time budget of {FETCH_BUDGET_SECONDS:.0f} s spent"
                )
            if wait > 0:
                pause(wait)
        last_request = clock()
        query = {**_QUERY, "limit": page_size, **({"dph_total": price_filter} if price_filter else {})}
        response = client.post(endpoint, json=query, headers=headers)
        response.raise_for_status()
        rows = _page_rows(response.content)
        if rows is None:
            return response.content
        new = 0
        for row in rows:
            key = _offer_key(row)
            if key not in book:
                book[key] = row
                new += 1
        if len(rows) < page_size:
            break
        highest = max(row["dph_total"] for row in rows)
        if new:
            price_filter = {"gte": highest}
        elif price_filter != {"gt": highest}:
            # A whole page at one price: step past it (offers at that price beyond one page stay unread).
            logger.warning(
                "Vast.ai offer search: more than %d offers at %s USD/h; reading on above it", page_size, highest
            )
            price_filter = {"gt": highest}
        else:
            break  # the price filter no longer moves the book forward
    else:
        logger.warning(
            "Vast.ai offer search: stopped after %d pages (%d offers); offers above %s USD/h were not read",
            max_pages,
            len(book),
            max((row["dph_total"] for row in book.values()), default=None),
        )
    offers = sorted(book.values(), key=lambda row: (row["dph_total"], _offer_key(row)))
    return json.dumps({"offers": offers}, separators=(",", ":")).encode()


def _page_rows(raw: bytes) -> list[dict[str, Any]] | None:
    """The page's offers, or None when it is not an offer list with numeric prices (``parse`` refuses those)."""
    try:
        payload = json.loads(raw)
    except ValueError:
        return None
    rows = payload.get("offers") if isinstance(payload, dict) else None
    if not isinstance(rows, list):
        return None
    for row in rows:
        price = row.get("dph_total") if isinstance(row, dict) else None
        if isinstance(price, bool) or not isinstance(price, int | float):
            return None
    return rows


def _offer_key(row: dict[str, Any]) -> str:
    offer_id = row.get("id")
    return str(offer_id) if offer_id is not None else json.dumps(row, sort_keys=True)


def _slug(gpu_name: str, gpu_ram_mb: Any) -> str | None:
    if gpu_name in _A100_40GB and isinstance(gpu_ram_mb, int | float) and gpu_ram_mb < 60_000:
        return _A100_40GB[gpu_name]
    return GPU_NAMES.get(gpu_name)


def _kind(row: Any) -> PricingKind:
    rental = row.get("rental_type")
    if rental == "bid" or row.get("is_bid") is True:
        return "spot"
    return "on-demand"


def parse(payload: Any, captured_at: datetime, skipped: list[str] | None = None) -> list[OfferRecord]:
    rows = as_list(field(payload, "offers", "response"), "offers")
    groups: dict[tuple[str, str, PricingKind], list[tuple[float, int]]] = defaultdict(list)
    for index, row in enumerate(rows):
        where = f"offers[{index}]"
        gpu_name = field(row, "gpu_name", where)
        if not isinstance(gpu_name, str):
            raise PayloadError(f"{where}.gpu_name: expected a string, got {gpu_name!r}")
        num_gpus = positive_int(field(row, "num_gpus", where), f"{where}.num_gpus")
        total = number(field(row, "dph_total", where), f"{where}.dph_total")
        per_gpu = checked_price(total / num_gpus, f"{where}.dph_total")
        slug = _slug(gpu_name, row.get("gpu_ram"))
        if slug is None:
            if skipped is not None:
                skipped.append(gpu_name)
            continue
        groups[(slug, gpu_name, _kind(row))].append((per_gpu, num_gpus))

    offers = []
    for (slug, gpu_name, kind), entries in sorted(groups.items()):
        prices = [price for price, _ in entries]
        label = "interruptible/bid" if kind == "spot" else "on-demand"
        offers.append(
            OfferRecord(
                provider_slug=INFO.slug,
                provider_name=INFO.name,
                gpu_slug=slug,
                instance_name=f"marketplace {gpu_name} ({label}, median offer)",
                gpu_counts=tuple(sorted({count for _, count in entries})),
                price_per_gpu_hour_usd=round(median(prices), 4),
                pricing_kind=kind,
                region="global marketplace",
                captured_at=captured_at,
                url=INFO.website,
                confidence="high",
                source="Vast.ai offer search (dph_total / num_gpus, median per GPU type)",
                notes=f"{len(prices)} offers, {min(prices):.4f}–{max(prices):.4f} USD per GPU-hour",
            )
        )
    return offers
