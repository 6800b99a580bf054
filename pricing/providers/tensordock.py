"""TensorDock: v2 locations (``GET https://dashboard.tensordock.com/api/v2/locations``).

``price_per_hr`` is USD per GPU-hour; vCPU, RAM and storage are billed on top at the location's ``pricing``
rates, so these offers carry that note. ``max_count`` is the most GPUs deployable together at a location.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import httpx

from pricing.offers import OfferRecord

from .base import ProviderInfo, as_list, checked_price, field, number, positive_int

INFO = ProviderInfo(
    slug="tensordock",
    name="TensorDock",
    website="https://tensordock.com/cloud-gpus",
    endpoint="https://dashboard.tensordock.com/api/v2/locations",
    api_key_setting="PRICING_TENSORDOCK_API_KEY",
    api_key_required=True,
    docs="dashboard.tensordock.com/api/docs/fetch-hostnodes",
)

GPU_NAMES: dict[str, str] = {
    "h100-sxm5-80gb": "h100-sxm",
    "a100-sxm4-80gb": "a100-80gb-sxm",
    "a100-pcie-80gb": "a100-80gb-pcie",
    "l40s-pcie-48gb": "l40s",
    "l4-pcie-24gb": "l4",
    "rtxa6000-pcie-48gb": "rtx-a6000",
    "rtx6000ada-pcie-48gb": "rtx-6000-ada",
    "geforcertx4090-pcie-24gb": "rtx-4090",
    "geforcertx5090-pcie-32gb": "rtx-5090",
}


def fetch(client: httpx.Client, api_key: str | None, endpoint: str = INFO.endpoint) -> bytes:
    response = client.get(endpoint, headers={"Authorization": f"Bearer {api_key}"} if api_key else {})
    response.raise_for_status()
    return response.content


def parse(payload: Any, captured_at: datetime, skipped: list[str] | None = None) -> list[OfferRecord]:
    locations = as_list(field(field(payload, "data", "response"), "locations", "data"), "data.locations")
    offers = []
    for li, location in enumerate(locations):
        where = f"locations[{li}]"
        place = ", ".join(str(location.get(k)) for k in ("city", "country") if location.get(k))
        for gi, gpu in enumerate(as_list(field(location, "gpus", where), f"{where}.gpus")):
            gwhere = f"{where}.gpus[{gi}]"
            name = str(field(gpu, "v0Name", gwhere))
            price = checked_price(number(field(gpu, "price_per_hr", gwhere), f"{gwhere}.price_per_hr"), gwhere)
            max_count = positive_int(field(gpu, "max_count", gwhere), f"{gwhere}.max_count")
            slug = GPU_NAMES.get(name)
            if slug is None:
                if skipped is not None:
                    skipped.append(name)
                continue
            offers.append(
                OfferRecord(
                    provider_slug=INFO.slug,
                    provider_name=INFO.name,
                    gpu_slug=slug,
                    instance_name=f"{gpu.get('displayName') or name} ({location.get('id', place)})",
                    gpu_counts=tuple(range(1, max_count + 1)),
                    price_per_gpu_hour_usd=price,
                    region=place,
                    captured_at=captured_at,
                    url=INFO.website,
                    confidence="high",
                    source="TensorDock API v2 locations",
                    notes="GPU price only: vCPU, RAM and storage are billed on top.",
                )
            )
    return offers
