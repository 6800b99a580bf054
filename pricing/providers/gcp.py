"""Google Cloud: Cloud Billing Catalog API, Compute Engine SKUs (``services/6F81-5844-456A/skus``).

GPU SKUs are **GPU component prices** in USD per GPU-hour (``units + nanos / 1e9``): A2/A3/A4/G2 machine types
also bill vCPU and memory, so these offers carry that note. On-demand, Spot (preemptible) and 1-/3-year
commitment SKUs are told apart by ``category.usageType``.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any

import httpx

from pricing.offers import OfferRecord, PricingKind

from .base import PayloadError, ProviderInfo, as_list, checked_price, field, numeric_string

INFO = ProviderInfo(
    slug="gcp",
    name="Google Cloud",
    website="https://cloud.google.com/compute/gpus-pricing",
    endpoint="https://cloudbilling.googleapis.com/v1/services/6F81-5844-456A/skus",
    schedule_seconds=24 * 60 * 60,
    api_key_setting="PRICING_GCP_API_KEY",
    api_key_required=True,
    docs="cloudbilling.v1 discovery document, cloudbilling.services.skus.list",
)

# SKU descriptions → our slugs. First match wins (80GB before the plain A100, which is the 40 GB part).
GPU_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), slug)
    for pattern, slug in (
        (r"\bB200\b", "b200"),
        (r"\bH200 141GB\b", "h200-sxm"),
        (r"\bH100 80GB\b", "h100-sxm"),
        (r"\bA100 80GB\b", "a100-80gb-sxm"),
        (r"\bTesla A100\b", "a100-40gb-sxm"),
        (r"\bL4\b", "l4"),
        (r"\bTesla T4\b", "t4"),
    )
)
USAGE_KINDS: dict[str, tuple[PricingKind, str]] = {
    "OnDemand": ("on-demand", ""),
    "Preemptible": ("spot", ""),
    "Commit1Yr": ("reserved", "1y"),
    "Commit3Yr": ("reserved", "3y"),
}

MAX_PAGES = 20


def fetch(client: httpx.Client, api_key: str | None, endpoint: str = INFO.endpoint) -> bytes:
    if not api_key:
        raise PermissionError("Google Cloud price refresh needs PRICING_GCP_API_KEY")
    skus: list[Any] = []
    token = ""
    for _ in range(MAX_PAGES):
        params = {"key": api_key, "pageSize": "5000", "currencyCode": "USD"}
        if token:
            params["pageToken"] = token
        response = client.get(endpoint, params=params)
        response.raise_for_status()
        page = response.json()
        skus.extend(sku for sku in page.get("skus") or [] if (sku.get("category") or {}).get("resourceGroup") == "GPU")
        token = page.get("nextPageToken") or ""
        if not token:
            break
    return json.dumps({"skus": skus, "nextPageToken": ""}).encode()


def _price(pricing_info: Any, where: str) -> float:
    infos = as_list(pricing_info, where)
    if not infos:
        raise PayloadError(f"{where}: no pricing info")
    expression = field(infos[0], "pricingExpression", f"{where}[0]")
    rates = as_list(field(expression, "tieredRates", f"{where}[0].pricingExpression"), f"{where}.tieredRates")
    if not rates:
        raise PayloadError(f"{where}: no tiered rates")
    unit_price = field(rates[-1], "unitPrice", f"{where}.tieredRates")
    units = numeric_string(field(unit_price, "units", f"{where}.unitPrice"), f"{where}.unitPrice.units")
    nanos = field(unit_price, "nanos", f"{where}.unitPrice")
    if isinstance(nanos, int) and not isinstance(nanos, bool):
        return units + nanos / 1e9
    raise PayloadError(f"{where}.unitPrice.nanos: expected an integer, got {nanos!r}")


def parse(payload: Any, captured_at: datetime, skipped: list[str] | None = None) -> list[OfferRecord]:
    skus = as_list(field(payload, "skus", "response"), "skus")
    offers = []
    for index, sku in enumerate(skus):
        where = f"skus[{index}]"
        description = str(field(sku, "description", where))
        category = field(sku, "category", where)
        if category.get("resourceGroup") != "GPU":
            continue
        price = checked_price(_price(field(sku, "pricingInfo", where), f"{where}.pricingInfo"), where)
        usage = USAGE_KINDS.get(str(category.get("usageType")))
        slug = next((slug for pattern, slug in GPU_PATTERNS if pattern.search(description)), None)
        if slug is None or usage is None:
            if skipped is not None:
                skipped.append(description)
            continue
        kind, term = usage
        regions = sku.get("serviceRegions") or []
        offers.append(
            OfferRecord(
                provider_slug=INFO.slug,
                provider_name=INFO.name,
                gpu_slug=slug,
                instance_name=description,
                gpu_counts=(),
                price_per_gpu_hour_usd=round(price, 6),
                pricing_kind=kind,
                term=term,
                region=", ".join(str(r) for r in regions[:3]) + (" …" if len(regions) > 3 else ""),
                captured_at=captured_at,
                url=INFO.website,
                confidence="high",
                source=f"Google Cloud Billing Catalog API SKU {sku.get('skuId', '')}".strip(),
                notes="GPU component price only: the machine type's vCPU and memory are billed on top.",
            )
        )
    return offers
