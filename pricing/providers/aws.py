"""AWS: Price List Query API ``GetProducts`` (``AWSPriceListService``, SigV4-signed).

Each ``PriceList`` item is a JSON-encoded string. ``pricePerUnit.USD`` is a string, USD per instance-hour; the
per-GPU price is that over the GPUs in the instance type. On-demand terms and 1-/3-year No-Upfront standard
reserved terms are read.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from datetime import UTC, datetime
from typing import Any

import httpx

from pricing.offers import OfferRecord, PricingKind

from .base import PayloadError, ProviderInfo, as_list, checked_price, field, numeric_string

INFO = ProviderInfo(
    slug="aws",
    name="AWS",
    website="https://aws.amazon.com/ec2/pricing/on-demand/",
    endpoint="https://api.pricing.us-east-1.amazonaws.com",
    schedule_seconds=24 * 60 * 60,
    api_key_setting="PRICING_AWS_CREDENTIALS",
    api_key_required=True,
    docs="botocore pricing/2017-10-15 service-2.json (GetProducts)",
)

# EC2 GPU instance types → (GPU slug, GPUs per instance); counts as published with each instance type.
INSTANCE_TYPES: dict[str, tuple[str, int]] = {
    "p4d.24xlarge": ("a100-40gb-sxm", 8),
    "p4de.24xlarge": ("a100-80gb-sxm", 8),
    "p5.48xlarge": ("h100-sxm", 8),
    "p5en.48xlarge": ("h200-sxm", 8),
    "p6-b200.48xlarge": ("b200", 8),
    "g6.xlarge": ("l4", 1),
    "g6.4xlarge": ("l4", 1),
    "g6.12xlarge": ("l4", 4),
    "g6.48xlarge": ("l4", 8),
    "g6e.xlarge": ("l40s", 1),
    "g6e.4xlarge": ("l40s", 1),
    "g6e.12xlarge": ("l40s", 4),
    "g6e.48xlarge": ("l40s", 8),
}


REGION = "us-east-1"
SERVICE = "pricing"
TARGET = "AWSPriceListService.GetProducts"


def _hmac(key: bytes, message: str) -> bytes:
    return hmac.new(key, message.encode(), hashlib.sha256).digest()


def signed_headers(
    body: bytes, access_key: str, secret_key: str, now: datetime, endpoint: str = INFO.endpoint
) -> dict[str, str]:
    """AWS Signature Version 4 headers for one GetProducts POST (docs.aws.amazon.com, "Signing AWS API
    requests"): canonical request → string to sign → HMAC chain date/region/service → signature."""
    host = endpoint.removeprefix("https://").removeprefix("http://").rstrip("/")
    amz_date = now.strftime("%Y%m%dT%H%M%SZ")
    day = now.strftime("%Y%m%d")
    canonical_headers = f"host:{host}\nx-amz-date:{amz_date}\nx-amz-target:{TARGET}\n"
    header_names = "host;x-amz-date;x-amz-target"
    canonical_request = "\n".join(["POST", "/", "", canonical_headers, header_names, hashlib.sha256(body).hexdigest()])
    scope = f"{day}/{REGION}/{SERVICE}/aws4_request"
    to_sign = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope, hashlib.sha256(canonical_request.encode()).hexdigest()])
    key = _hmac(_hmac(_hmac(_hmac(f"AWS4{secret_key}".encode(), day), REGION), SERVICE), "aws4_request")
    signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    return {
        "X-Amz-Date": amz_date,
        "X-Amz-Target": TARGET,
        "Content-Type": "application/x-amz-json-1.1",
        "Authorization": (
            f"AWS4-HMAC-SHA256 Credential={access_key}/{scope}, SignedHeaders={header_names}, Signature={signature}"
        ),
    }


def fetch(client: httpx.Client, api_key: str | None, endpoint: str = INFO.endpoint) -> bytes:
    """``api_key`` is ``ACCESS_KEY_ID:SECRET_ACCESS_KEY`` of an IAM user allowed ``pricing:GetProducts``."""
    if not api_key or ":" not in api_key:
        raise PermissionError("AWS price refresh needs PRICING_AWS_CREDENTIALS as ACCESS_KEY_ID:SECRET_ACCESS_KEY")
    access_key, secret_key = api_key.split(":", 1)
    items: list[str] = []
    token = None
    while True:
        request: dict[str, Any] = {
            "ServiceCode": "AmazonEC2",
            "FormatVersion": "aws_v1",
            "MaxResults": 100,
            "Filters": [
                {"Type": "ANY_OF", "Field": "instanceType", "Value": ",".join(INSTANCE_TYPES)},
                {"Type": "TERM_MATCH", "Field": "regionCode", "Value": REGION},
                {"Type": "TERM_MATCH", "Field": "operatingSystem", "Value": "Linux"},
                {"Type": "TERM_MATCH", "Field": "tenancy", "Value": "Shared"},
                {"Type": "TERM_MATCH", "Field": "preInstalledSw", "Value": "NA"},
                {"Type": "TERM_MATCH", "Field": "capacitystatus", "Value": "Used"},
            ],
        }
        if token:
            request["NextToken"] = token
        body = json.dumps(request).encode()
        headers = signed_headers(body, access_key, secret_key, datetime.now(UTC), endpoint)
        response = client.post(endpoint.rstrip("/") + "/", content=body, headers=headers)
        response.raise_for_status()
        page = response.json()
        items.extend(page.get("PriceList") or [])
        token = page.get("NextToken")
        if not token:
            break
    return json.dumps({"FormatVersion": "aws_v1", "PriceList": items}).encode()


def _hourly_usd(dimensions: Any, where: str) -> float | None:
    if not isinstance(dimensions, dict):
        raise PayloadError(f"{where}: expected priceDimensions object")
    for key, dimension in dimensions.items():
        if field(dimension, "unit", f"{where}[{key}]") == "Hrs":
            usd = field(field(dimension, "pricePerUnit", f"{where}[{key}]"), "USD", f"{where}[{key}]")
            return numeric_string(usd, f"{where}[{key}].pricePerUnit.USD")
    return None


def parse(payload: Any, captured_at: datetime, skipped: list[str] | None = None) -> list[OfferRecord]:
    items = as_list(field(payload, "PriceList", "response"), "PriceList")
    offers = []
    for index, raw in enumerate(items):
        where = f"PriceList[{index}]"
        try:
            item = json.loads(raw) if isinstance(raw, str) else raw
        except json.JSONDecodeError as exc:
            raise PayloadError(f"{where}: not a JSON document") from exc
        product = field(item, "product", where)
        attributes = field(product, "attributes", f"{where}.product")
        instance_type = attributes.get("instanceType")
        if instance_type is None:
            continue  # storage, data transfer and other non-instance products
        known = INSTANCE_TYPES.get(instance_type)
        if known is None:
            if skipped is not None:
                skipped.append(str(instance_type))
            continue
        slug, gpus = known
        region = str(attributes.get("regionCode") or attributes.get("location") or "")
        terms = field(item, "terms", where)
        priced: list[tuple[float, PricingKind, str]] = []
        for term in (terms.get("OnDemand") or {}).values():
            hourly = _hourly_usd(field(term, "priceDimensions", where), f"{where}.OnDemand")
            if hourly is not None:
                priced.append((hourly, "on-demand", ""))
        for term in (terms.get("Reserved") or {}).values():
            attrs = term.get("termAttributes") or {}
            if attrs.get("PurchaseOption") != "No Upfront" or attrs.get("OfferingClass") != "standard":
                continue
            hourly = _hourly_usd(field(term, "priceDimensions", where), f"{where}.Reserved")
            length = str(attrs.get("LeaseContractLength", ""))
            if hourly is not None:
                priced.append((hourly, "reserved", length.replace("yr", "y")))
        for hourly, kind, term_name in priced:
            offers.append(
                OfferRecord(
                    provider_slug=INFO.slug,
                    provider_name=INFO.name,
                    gpu_slug=slug,
                    instance_name=instance_type,
                    gpu_counts=(gpus,),
                    price_per_gpu_hour_usd=checked_price(hourly / gpus, f"{where}.pricePerUnit.USD"),
                    instance_price_usd=((gpus, hourly),),
                    pricing_kind=kind,
                    term=term_name,
                    region=region,
                    captured_at=captured_at,
                    url=INFO.website,
                    confidence="high",
                    source="AWS Price List API GetProducts (Linux, shared tenancy)",
                )
            )
    return offers
