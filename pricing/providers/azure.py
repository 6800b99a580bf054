"""Azure: Retail Prices API (``GET https://prices.azure.com/api/retail/prices``), no authentication.

``retailPrice`` is USD per ``unitOfMeasure`` ("1 Hour" for VMs: the whole VM per hour). Windows items are
dropped; meters named "Spot" or "Low Priority" are spot prices. Reservation items are totals for a term and are
not hourly prices, so they are skipped.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import httpx

from pricing.offers import OfferRecord, PricingKind

from .base import PayloadError, ProviderInfo, as_list, checked_price, field, number

INFO = ProviderInfo(
    slug="azure",
    name="Azure",
    website="https://azure.microsoft.com/pricing/details/virtual-machines/linux/",
    endpoint="https://prices.azure.com/api/retail/prices",
    schedule_seconds=24 * 60 * 60,
    docs="learn.microsoft.com/rest/api/cost-management/retail-prices/azure-retail-prices",
)

# VM sizes → (GPU slug, GPUs per VM).
VM_SIZES: dict[str, tuple[str, int]] = {
    "Standard_NC24ads_A100_v4": ("a100-80gb-pcie", 1),
    "Standard_NC48ads_A100_v4": ("a100-80gb-pcie", 2),
    "Standard_NC96ads_A100_v4": ("a100-80gb-pcie", 4),
    "Standard_ND96amsr_A100_v4": ("a100-80gb-sxm", 8),
    "Standard_NC40ads_H100_v5": ("h100-nvl", 1),
    "Standard_NC80adis_H100_v5": ("h100-nvl", 2),
    "Standard_ND96isr_H100_v5": ("h100-sxm", 8),
    "Standard_ND96isr_H200_v5": ("h200-sxm", 8),
}

MAX_PAGES = 20


def fetch(client: httpx.Client, api_key: str | None, endpoint: str = INFO.endpoint) -> bytes:
    sizes = " or ".join(f"armSkuName eq '{size}'" for size in VM_SIZES)
    url: str | None = endpoint
    params: dict[str, str] | None = {
        "$filter": f"serviceName eq 'Virtual Machines' and armRegionName eq 'eastus' and ({sizes})"
    }
    items: list[Any] = []
    for _ in range(MAX_PAGES):
        if not url:
            break
        response = client.get(url, params=params)
        response.raise_for_status()
        page = response.json()
        items.extend(page.get("Items") or [])
        url, params = page.get("NextPageLink"), None
    return json.dumps({"BillingCurrency": "USD", "Items": items, "NextPageLink": None}).encode()


def parse(payload: Any, captured_at: datetime, skipped: list[str] | None = None) -> list[OfferRecord]:
    items = as_list(field(payload, "Items", "response"), "Items")
    offers = []
    for index, item in enumerate(items):
        where = f"Items[{index}]"
        size = field(item, "armSkuName", where)
        currency = field(item, "currencyCode", where)
        if currency != "USD":
            raise PayloadError(f"{where}.currencyCode: expected USD, got {currency!r}")
        price = number(field(item, "retailPrice", where), f"{where}.retailPrice")
        if field(item, "type", where) != "Consumption" or field(item, "unitOfMeasure", where) != "1 Hour":
            continue
        if "Windows" in str(item.get("productName", "")):
            continue
        known = VM_SIZES.get(str(size))
        if known is None:
            if skipped is not None:
                skipped.append(str(size))
            continue
        slug, gpus = known
        meter = str(item.get("meterName", ""))
        kind: PricingKind = "spot" if ("Spot" in meter or "Low Priority" in meter) else "on-demand"
        offers.append(
            OfferRecord(
                provider_slug=INFO.slug,
                provider_name=INFO.name,
                gpu_slug=slug,
                instance_name=str(size),
                gpu_counts=(gpus,),
                price_per_gpu_hour_usd=checked_price(price / gpus, f"{where}.retailPrice"),
                instance_price_usd=((gpus, price),),
                pricing_kind=kind,
                region=str(item.get("armRegionName", "")),
                captured_at=captured_at,
                url=INFO.website,
                confidence="high",
                source="Azure Retail Prices API (Consumption, Linux)",
            )
        )
    return offers
