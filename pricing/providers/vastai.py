"""Vast.ai: marketplace offer search (``POST https://console.vast.ai/api/v0/bundles/``).

Each offer is one host's machine: ``dph_total`` is USD per hour for all its ``num_gpus`` GPUs. A marketplace has
many prices for one GPU type, so offers are grouped per GPU type and rental type, and the group's **median**
per-GPU price becomes the offer (the seed page shows "the middle offer" for marketplaces); the GPU counts are
those the marketplace had on offer.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from statistics import median
from typing import Any

import httpx

from pricing.offers import OfferRecord

from .base import PayloadError, ProviderInfo, as_list, checked_price, field, number, positive_int

INFO = ProviderInfo(
    slug="vastai",
    name="Vast.ai",
    website="https://vast.ai/pricing",
    endpoint="https://console.vast.ai/api/v0/bundles/",
    schedule_seconds=60 * 60,
    api_key_setting="PRICING_VASTAI_API_KEY",
    docs="vast-ai/docs api-reference/openapi/yaml/search_offers.yaml",
)

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

PAGE_SIZE = 64


def fetch(client: httpx.Client, api_key: str | None, endpoint: str = INFO.endpoint) -> bytes:
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    query = {
        "verified": {"eq": True},
        "rentable": {"eq": True},
        "rented": {"eq": False},
        "type": "ondemand",
        "limit": PAGE_SIZE,
        "order": [["dph_total", "asc"]],
    }
    response = client.post(endpoint, json=query, headers=headers)
    response.raise_for_status()
    return response.content


def _slug(gpu_name: str, gpu_ram_mb: Any) -> str | None:
    if gpu_name in _A100_40GB and isinstance(gpu_ram_mb, int | float) and gpu_ram_mb < 60_000:
        return _A100_40GB[gpu_name]
    return GPU_NAMES.get(gpu_name)


def _kind(row: Any) -> str:
    rental = row.get("rental_type")
    if rental == "bid" or row.get("is_bid") is True:
        return "spot"
    return "on-demand"


def parse(payload: Any, captured_at: datetime, skipped: list[str] | None = None) -> list[OfferRecord]:
    rows = as_list(field(payload, "offers", "response"), "offers")
    groups: dict[tuple[str, str, str], list[tuple[float, int]]] = defaultdict(list)
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
                pricing_kind=kind,  # type: ignore[arg-type]
                region="global marketplace",
                captured_at=captured_at,
                url=INFO.website,
                confidence="high",
                source="Vast.ai offer search (dph_total / num_gpus, median per GPU type)",
                notes=f"{len(prices)} offers, {min(prices):.4f}–{max(prices):.4f} USD per GPU-hour",
            )
        )
    return offers
