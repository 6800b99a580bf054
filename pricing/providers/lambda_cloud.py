"""Lambda Cloud: ``GET https://cloud.lambda.ai/api/v1/instance-types``.

``price_cents_per_hour`` is US cents per hour for the whole instance (``specs.gpus`` GPUs); the exact instance
price is kept so totals come out as Lambda quotes them. An empty ``regions_with_capacity_available`` means sold
out right now; the price is still the list price.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

import httpx

from pricing.offers import OfferRecord

from .base import PayloadError, ProviderInfo, checked_price, field, positive_int

INFO = ProviderInfo(
    slug="lambda",
    name="Lambda",
    website="https://lambda.ai/pricing",
    endpoint="https://cloud.lambda.ai/api/v1/instance-types",
    schedule_seconds=6 * 60 * 60,
    api_key_setting="PRICING_LAMBDA_API_KEY",
    api_key_required=True,
    docs="Lambda Cloud API OpenAPI 1.10.0, operationId listInstanceTypes",
)

# ``gpu_description`` as Lambda writes it, e.g. "H100 (80 GB SXM5)" → our slug. First match wins.
GPU_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), slug)
    for pattern, slug in (
        (r"^GH200\b", "gh200-96gb"),
        (r"^B200\b", "b200"),
        (r"^B300\b", "b300"),
        (r"^H200\b", "h200-sxm"),
        (r"^H100\b.*PCIe", "h100-pcie"),
        (r"^H100\b", "h100-sxm"),
        (r"^A100\b.*80 ?GB.*PCIe", "a100-80gb-pcie"),
        (r"^A100\b.*80 ?GB", "a100-80gb-sxm"),
        (r"^A100\b.*PCIe", "a100-40gb-pcie"),
        (r"^A100\b", "a100-40gb-sxm"),
        (r"^A10\b", "a10"),
        (r"^(RTX )?A6000\b", "rtx-a6000"),
        (r"^(Quadro )?RTX 6000\b", "rtx-6000-ada"),
        (r"^V100\b", "v100-sxm2-16gb"),
    )
)


def gpu_slug(description: str) -> str | None:
    for pattern, slug in GPU_PATTERNS:
        if pattern.search(description):
            return slug
    return None


def fetch(client: httpx.Client, api_key: str | None, endpoint: str = INFO.endpoint) -> bytes:
    response = client.get(endpoint, headers={"Authorization": f"Bearer {api_key}"} if api_key else {})
    response.raise_for_status()
    return response.content


def parse(payload: Any, captured_at: datetime, skipped: list[str] | None = None) -> list[OfferRecord]:
    data = field(payload, "data", "response")
    if not isinstance(data, dict):
        raise PayloadError("data: expected an object keyed by instance type")
    offers = []
    for key, entry in sorted(data.items()):
        where = f"data[{key!r}]"
        instance = field(entry, "instance_type", where)
        name = field(instance, "name", f"{where}.instance_type")
        description = field(instance, "gpu_description", f"{where}.instance_type")
        cents = field(instance, "price_cents_per_hour", f"{where}.instance_type")
        if isinstance(cents, bool) or not isinstance(cents, int):
            raise PayloadError(f"{where}.price_cents_per_hour: expected integer cents, got {cents!r}")
        gpus = positive_int(field(field(instance, "specs", where), "gpus", f"{where}.specs"), f"{where}.gpus")
        instance_usd = cents / 100
        per_gpu = checked_price(instance_usd / gpus, f"{where}.price_cents_per_hour")
        slug = gpu_slug(str(description))
        if slug is None:
            if skipped is not None:
                skipped.append(str(description))
            continue
        regions = [r.get("name", "") for r in entry.get("regions_with_capacity_available") or []]
        offers.append(
            OfferRecord(
                provider_slug=INFO.slug,
                provider_name=INFO.name,
                gpu_slug=slug,
                instance_name=str(name),
                gpu_counts=(gpus,),
                price_per_gpu_hour_usd=per_gpu,
                instance_price_usd=((gpus, instance_usd),),
                region="us",
                captured_at=captured_at,
                url=INFO.website,
                confidence="high",
                source=f"Lambda Cloud API instance-types ({instance.get('description') or name})",
                notes=("capacity in " + ", ".join(regions)) if regions else "sold out at capture time",
            )
        )
    return offers
