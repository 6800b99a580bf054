"""RunPod: GraphQL ``gpuTypes`` (POST https://api.runpod.io/graphql).

Prices are USD per GPU per hour. ``securePrice`` is Secure Cloud on-demand, ``communityPrice`` Community Cloud
on-demand, ``lowestPrice.minimumBidPrice`` the cheapest interruptible bid; ``0`` means "not offered there". A
``communityPrice`` of exactly 0.5 with no ``lowestPrice`` data is a placeholder on GPUs without community supply
(seen on MI300X and H200 NVL in the 2026-08-08 recording), not a price.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import httpx

from pricing.offers import OfferRecord, PricingKind

from .base import PayloadError, ProviderInfo, as_list, checked_price, field, number

INFO = ProviderInfo(
    slug="runpod",
    name="RunPod",
    website="https://www.runpod.io/pricing",
    endpoint="https://api.runpod.io/graphql",
    api_key_setting="PRICING_RUNPOD_API_KEY",
    docs="runpod/docs sdks/graphql/manage-pods.mdx; runpod-python runpod/api/queries/gpus.py",
)

QUERY = (
    "query GpuTypes { gpuTypes { id displayName memoryInGb maxGpuCount securePrice communityPrice "
    "lowestPrice(input: {gpuCount: 1}) { minimumBidPrice uninterruptablePrice stockStatus } } }"
)

# RunPod's GPU type ids → our GPU slugs (ids as the API returns them).
GPU_IDS: dict[str, str] = {
    "AMD Instinct MI300X OAM": "mi300x",
    "NVIDIA A100-SXM4-40GB": "a100-40gb-sxm",
    "NVIDIA A100 80GB PCIe": "a100-80gb-pcie",
    "NVIDIA A100-SXM4-80GB": "a100-80gb-sxm",
    "NVIDIA A40": "a40",
    "NVIDIA B200": "b200",
    "NVIDIA B300 SXM6 AC": "b300",
    "NVIDIA H100 NVL": "h100-nvl",
    "NVIDIA H100 PCIe": "h100-pcie",
    "NVIDIA H100 80GB HBM3": "h100-sxm",
    "NVIDIA H200 NVL": "h200-nvl",
    "NVIDIA H200": "h200-sxm",
    "NVIDIA L4": "l4",
    "NVIDIA L40": "l40",
    "NVIDIA L40S": "l40s",
    "NVIDIA GeForce RTX 3090": "rtx-3090",
    "NVIDIA GeForce RTX 3090 Ti": "rtx-3090-ti",
    "NVIDIA GeForce RTX 4080": "rtx-4080",
    "NVIDIA GeForce RTX 4090": "rtx-4090",
    "NVIDIA GeForce RTX 5080": "rtx-5080",
    "NVIDIA GeForce RTX 5090": "rtx-5090",
    "NVIDIA RTX 6000 Ada Generation": "rtx-6000-ada",
    "NVIDIA RTX A6000": "rtx-a6000",
    "NVIDIA RTX PRO 6000 Blackwell Server Edition": "rtx-pro-6000-blackwell",
    "NVIDIA RTX PRO 6000 Blackwell Workstation Edition": "rtx-pro-6000-blackwell",
    "Tesla V100-PCIE-16GB": "v100-pcie-16gb",
    "Tesla V100-SXM2-16GB": "v100-sxm2-16gb",
}

COMMUNITY_PLACEHOLDER = 0.5


def fetch(client: httpx.Client, api_key: str | None, endpoint: str = INFO.endpoint) -> bytes:
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    response = client.post(endpoint, json={"query": QUERY}, headers=headers)
    response.raise_for_status()
    return response.content


def parse(payload: Any, captured_at: datetime, skipped: list[str] | None = None) -> list[OfferRecord]:
    data = field(payload, "data", "response")
    gpu_types = as_list(field(data, "gpuTypes", "data"), "data.gpuTypes")
    offers: list[OfferRecord] = []
    for index, row in enumerate(gpu_types):
        where = f"gpuTypes[{index}]"
        gpu_id = field(row, "id", where)
        if not isinstance(gpu_id, str):
            raise PayloadError(f"{where}.id: expected a string, got {gpu_id!r}")
        secure = number(field(row, "securePrice", where), f"{where}.securePrice", allow_none=True)
        community = number(field(row, "communityPrice", where), f"{where}.communityPrice", allow_none=True)
        lowest = row.get("lowestPrice") or {}
        bid = number(lowest.get("minimumBidPrice"), f"{where}.lowestPrice.minimumBidPrice", allow_none=True)
        for value, name in ((secure, "securePrice"), (community, "communityPrice"), (bid, "minimumBidPrice")):
            if value is not None:
                checked_price(value, f"{where}.{name}")
        slug = GPU_IDS.get(gpu_id)
        if slug is None:
            if skipped is not None:
                skipped.append(gpu_id)
            continue
        max_count = row.get("maxGpuCount")
        counts = tuple(range(1, max_count + 1)) if isinstance(max_count, int) and max_count > 0 else ()
        display = row.get("displayName") or gpu_id
        stock = str(lowest.get("stockStatus") or "") if isinstance(lowest, dict) else ""
        placeholder = community == COMMUNITY_PLACEHOLDER and not any(lowest.values() if lowest else ())

        kinds: tuple[tuple[float | None, PricingKind, str], ...] = (
            (secure, "on-demand", "Secure Cloud"),
            (None if placeholder else community, "community", "Community Cloud"),
            (bid, "spot", "interruptible"),
        )
        for price, kind, label in kinds:
            if price:
                offers.append(
                    OfferRecord(
                        provider_slug=INFO.slug,
                        provider_name=INFO.name,
                        gpu_slug=slug,
                        instance_name=f"{display} ({label})",
                        gpu_counts=counts,
                        price_per_gpu_hour_usd=price,
                        pricing_kind=kind,
                        region="global",
                        captured_at=captured_at,
                        url=INFO.website,
                        confidence="high",
                        source=f"RunPod GraphQL gpuTypes ({gpu_id})",
                        availability=stock,
                    )
                )
    return offers
