"""Vultr: cloud GPU plans (``GET https://api.vultr.com/v2/plans?type=vcg``).

A plan carries ``monthly_cost`` (USD per month) and, where the API returns it, ``hourly_cost``. Without an
hourly field the hourly price is ``monthly_cost / 672``: Vultr bills a month as at most 672 hours (its pricing
page showed $1.671/GPU-h for the L40S plan whose monthly cost is 1.671 × 672, 2026-05-24); such offers are
marked medium confidence. The GPU count is the plan's VRAM over one GPU's memory; fractional-GPU plans are
skipped (they cannot be combined into multi-GPU nodes).
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

import httpx

from pricing.gpus import gpu_by_slug
from pricing.offers import Confidence, OfferRecord

from .base import PayloadError, ProviderInfo, as_list, checked_price, field, number

INFO = ProviderInfo(
    slug="vultr",
    name="Vultr",
    website="https://www.vultr.com/pricing/#cloud-gpu",
    endpoint="https://api.vultr.com/v2/plans",
    api_key_setting="PRICING_VULTR_API_KEY",
    docs="vultr/govultr plans.go; docs.vultr.com vultr-cli plans list",
)

GPU_TYPES: dict[str, str] = {
    "NVIDIA_L40S": "l40s",
    "NVIDIA_A40": "a40",
    "NVIDIA_A100": "a100-80gb-pcie",
    "NVIDIA_A16": "",
    "NVIDIA_GH200": "gh200-96gb",
    "NVIDIA_H100": "h100-sxm",
    "AMD_MI300X": "mi300x",
}
HOURS_BILLED_PER_MONTH = 672
_VRAM_IN_ID = re.compile(r"(\d+)vram$")


def fetch(client: httpx.Client, api_key: str | None, endpoint: str = INFO.endpoint) -> bytes:
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    response = client.get(endpoint, params={"type": "vcg", "per_page": "500"}, headers=headers)
    response.raise_for_status()
    return response.content


def _plan_vram_gb(plan: Any) -> float | None:
    vram = plan.get("gpu_vram_gb")
    if isinstance(vram, int | float) and not isinstance(vram, bool):
        return float(vram)
    match = _VRAM_IN_ID.search(str(plan.get("id", "")))
    return float(match.group(1)) if match else None


def parse(payload: Any, captured_at: datetime, skipped: list[str] | None = None) -> list[OfferRecord]:
    plans = as_list(field(payload, "plans", "response"), "plans")
    offers = []
    for index, plan in enumerate(plans):
        where = f"plans[{index}]"
        plan_id = field(plan, "id", where)
        monthly = number(field(plan, "monthly_cost", where), f"{where}.monthly_cost")
        gpu_type = plan.get("gpu_type")
        if not gpu_type:
            continue  # a CPU plan
        slug = GPU_TYPES.get(str(gpu_type)) or None
        gpu = gpu_by_slug(slug) if slug else None
        vram = _plan_vram_gb(plan)
        if gpu is None or vram is None:
            if skipped is not None:
                skipped.append(f"{plan_id} ({gpu_type})")
            continue
        gpus = round(vram / gpu.memory_gb)
        if gpus < 1 or abs(gpus * gpu.memory_gb - vram) > 0.5:
            if skipped is not None:
                skipped.append(f"{plan_id} (fractional GPU)")
            continue
        hourly_field = plan.get("hourly_cost")
        confidence: Confidence
        if hourly_field is not None:
            instance_hourly = number(hourly_field, f"{where}.hourly_cost")
            confidence, note = "high", ""
        else:
            if monthly <= 0:
                raise PayloadError(f"{where}.monthly_cost: expected a positive price, got {monthly!r}")
            instance_hourly = round(monthly / HOURS_BILLED_PER_MONTH, 4)
            confidence = "medium"
            note = f"hourly = monthly_cost {monthly} / {HOURS_BILLED_PER_MONTH} h (Vultr's monthly billing cap)"
        offers.append(
            OfferRecord(
                provider_slug=INFO.slug,
                provider_name=INFO.name,
                gpu_slug=gpu.slug,
                instance_name=str(plan_id),
                gpu_counts=(gpus,),
                price_per_gpu_hour_usd=checked_price(instance_hourly / gpus, f"{where}.monthly_cost"),
                instance_price_usd=((gpus, instance_hourly),),
                region=", ".join(str(loc) for loc in (plan.get("locations") or [])[:5]),
                captured_at=captured_at,
                url=INFO.website,
                confidence=confidence,
                source="Vultr API v2 plans (type=vcg)",
                notes=note,
            )
        )
    return offers
