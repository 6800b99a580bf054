"""dstack's gpuhunt: published offer catalogs per cloud, and its live queries of marketplaces that have no catalog.

The one module that imports ``gpuhunt`` (PyPI, MPL-2.0, pinned in pyproject.toml).

**Catalogs** (gpuhunt's ``OFFLINE_PROVIDERS``): gpuhunt's CI collects each provider's offers and publishes them
per provider (``src/gpuhunt/_internal/catalog.py`` and ``.github/scripts/publish_catalog.sh``, dstackai/gpuhunt
commit 3584151, 2026-08-19)::

    {CATALOG_URL}/{provider}/version                 -> "20260819-1234" (written last, after the upload)
    {CATALOG_URL}/{provider}/{version}/catalog.zip   -> zip holding {provider}.csv

``fetch`` reads the version, then downloads exactly that version (never ``latest``), so the rows stored and the
version written on the snapshot agree. Each refresh reads one provider, so one provider's missing catalog never
holds back another. No credentials are needed to read catalogs.

**Online** (gpuhunt's ``ONLINE_PROVIDERS`` that need no key): ``fetch`` runs gpuhunt's provider query and keeps
its items in the catalog's own CSV layout, so both kinds parse the same way.

The payload handed to ``parse`` is JSON: ``{"format": "gpuhunt-catalog/1", "provider", "catalog_version",
"source", "csv"}``. ``parse`` maps each ``CatalogItem`` to an offer: the GPU through ``GPU_NAMES`` (one table;
``GPUS_NOT_IN_CATALOG`` says why other accelerators are left out, and a name in neither table fails a test), the
instance price per hour divided over its GPUs, spot items as ``spot`` (never on-demand), the location as region.
"""

from __future__ import annotations

import csv
import io
import json
import zipfile
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import httpx
import requests
from gpuhunt import (  # type: ignore[import-untyped]
    KNOWN_AMD_GPUS,
    KNOWN_NVIDIA_GPUS,
    AcceleratorVendor,
    CatalogItem,
    GPUHuntError,
)
from gpuhunt._internal import catalog as gpuhunt_catalog  # type: ignore[import-untyped]
from gpuhunt._internal import storage as gpuhunt_storage

from pricing.gpus import FORM_FACTOR_BY_INSTANCE
from pricing.offers import OfferRecord, PricingKind

from .base import PayloadError, ProviderInfo, checked_price, field

FORMAT = "gpuhunt-catalog/1"
CATALOG_URL = gpuhunt_catalog.CATALOG_URL
# Columns a catalog row must have (gpuhunt's storage.CATALOG_V2_FIELDS less the optional trailing ones).
REQUIRED_COLUMNS = ("instance_name", "location", "price", "cpu", "memory", "gpu_count", "gpu_name", "spot")

# gpuhunt GPU name (+ per-GPU memory in GB where one name covers two sizes) -> our GPU slug. Names as gpuhunt's
# KNOWN_NVIDIA_GPUS / KNOWN_AMD_GPUS spell them (gpuhunt 0.1.34 src/gpuhunt/_internal/constraints.py). gpuhunt names
# the chip, not the form factor: SXM is the default (what 8-GPU cloud servers carry) and FORM_FACTOR_BY_INSTANCE
# (pricing/gpus.py, which also tells pages whether an offer names its form factor) names the instance types that carry
# the PCIe card instead.
GPU_NAMES: dict[tuple[str, int | None], str] = {
    ("A10", None): "a10",
    ("A10G", None): "a10g",
    ("A40", None): "a40",
    ("A100", 40): "a100-40gb-sxm",
    ("A100", 80): "a100-80gb-sxm",
    ("A6000", None): "rtx-a6000",
    ("H100", None): "h100-sxm",
    ("H100NVL", None): "h100-nvl",
    ("H200", None): "h200-sxm",
    ("H200NVL", None): "h200-nvl",
    ("B200", None): "b200",
    ("B300", None): "b300",
    ("GB200", None): "gb200",
    ("GH200", None): "gh200-96gb",
    ("L4", None): "l4",
    ("L40", None): "l40",
    ("L40S", None): "l40s",
    ("T4", None): "t4",
    ("V100", 16): "v100-sxm2-16gb",
    ("V100", 32): "v100-sxm2-32gb",
    ("RTX3090", None): "rtx-3090",
    ("RTX3090Ti", None): "rtx-3090-ti",
    ("RTX4060Ti", 16): "rtx-4060-ti-16gb",
    ("RTX4080", None): "rtx-4080",
    ("RTX4090", None): "rtx-4090",
    ("RTX5080", None): "rtx-5080",
    ("RTX5090", None): "rtx-5090",
    ("RTX6000Ada", None): "rtx-6000-ada",
    ("RTXPRO6000", None): "rtx-pro-6000-blackwell",
    ("MI300X", None): "mi300x",
    # gpuhunt 0.1.34 lists the MI325X with 288 GB; AMD's datasheet says 256 GB (our row cites it).
    ("MI325X", None): "mi325x",
    ("MI355X", None): "mi355x",
}

# gpuhunt GPU names we leave out, and why. Each is a chip our GPU catalog (pricing/data/gpus.json) has no row for,
# so there is no memory or bandwidth to size a model against.
GPUS_NOT_IN_CATALOG: dict[str, str] = {
    **{
        name: "workstation or consumer card not in the GPU catalog"
        for name in (
            "A16",
            "A4000",
            "A4500",
            "A5000",
            "RTX6000",
            "RTX2000Ada",
            "RTX4000Ada",
            "RTXPRO4500",
            "RTX2060",
            "RTX2060SUPER",
            "RTX2070",
            "RTX2070SUPER",
            "RTX2080",
            "RTX2080SUPER",
            "RTX2080Ti",
            "RTX3050",
            "RTX3060",
            "RTX3060Ti",
            "RTX3070",
            "RTX3070Ti",
            "RTX3080",
            "RTX3080Ti",
            "RTX4060",
            "RTX4070",
            "RTX4070SUPER",
            "RTX4070Ti",
            "RTX4070TiSUPER",
            "RTX4080SUPER",
            "RTX5060",
            "RTX5060Ti",
            "RTX5070",
            "RTX5070Ti",
        )
    },
    "P100": "Pascal datacenter GPU not in the GPU catalog",
    "GB300": "GB300 is not in the GPU catalog",
    "MI100": "MI100 is not in the GPU catalog",
    "MI210": "MI210 is not in the GPU catalog",
    "MI250": "MI250 is not in the GPU catalog",
    "MI250X": "MI250X is not in the GPU catalog",
    "MI300A": "MI300A (an APU) is not in the GPU catalog",
    "MI308X": "MI308X is not in the GPU catalog",
    "MI350X": "MI350X is not in the GPU catalog",
}

# Memory-split names whose other sizes are not in the catalog (RTX 4060 Ti 8 GB; the catalog has the 16 GB card).
_SIZES_NOT_IN_CATALOG = {("RTX4060Ti", 8), ("GH200", 144)}

# Accelerators that are not GPUs (TPUs, Gaudi, Tenstorrent): the catalog sizes GPUs only.
NON_GPU_VENDORS = {AcceleratorVendor.GOOGLE, AcceleratorVendor.INTEL, AcceleratorVendor.TENSTORRENT}


def gpu_slug_for(name: str, memory_gb: float | None, instance_name: str = "") -> str | None:
    """Our GPU slug for a gpuhunt GPU name, or None when the GPU is not in the catalog (or not known at all)."""
    size = round(memory_gb) if memory_gb else None
    slug = GPU_NAMES.get((name, size)) or GPU_NAMES.get((name, None))
    if slug is None:
        return None
    for pattern, swaps in FORM_FACTOR_BY_INSTANCE:
        if slug in swaps and pattern.search(instance_name):
            return swaps[slug]
    return slug


def is_known_gpu_name(name: str, memory_gb: float | None = None) -> bool:
    """The name is decided: mapped to a catalog GPU or listed as not in the catalog."""
    size = round(memory_gb) if memory_gb else None
    if (name, size) in _SIZES_NOT_IN_CATALOG or name in GPUS_NOT_IN_CATALOG:
        return True
    return (name, size) in GPU_NAMES or (name, None) in GPU_NAMES


# Not frozen: ``ProviderModule`` declares ``INFO`` a plain attribute, as a module's is.
@dataclass(slots=True)
class GpuhuntSource:
    """One provider read through gpuhunt; satisfies ``ProviderModule`` (``INFO``, ``fetch``, ``parse``)."""

    INFO: ProviderInfo
    gpuhunt_name: str
    online: bool = False
    confidence: str = "high"

    def fetch(self, client: httpx.Client, api_key: str | None, endpoint: str = "", /) -> bytes:
        if self.online:
            return self._fetch_online()
        base = (endpoint or self.INFO.endpoint).rstrip("/")
        version_response = client.get(f"{base}/version")
        version_response.raise_for_status()
        version = version_response.text.strip()
        if not version or "/" in version:
            raise PayloadError(f"{base}/version: not a catalog version: {version[:80]!r}")
        url = f"{base}/{version}/catalog.zip"
        response = client.get(url)
        response.raise_for_status()
        try:
            with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
                text = archive.read(f"{self.gpuhunt_name}.csv").decode("utf-8")
        except (zipfile.BadZipFile, KeyError, UnicodeDecodeError) as exc:
            raise PayloadError(f"{url}: not a gpuhunt catalog archive: {exc}") from exc
        return payload_bytes(self.gpuhunt_name, version, url, text)

    def _fetch_online(self) -> bytes:
        from gpuhunt._internal.default import ONLINE_PROVIDER_MODULES  # type: ignore[import-untyped]

        module_name, class_name = next(
            (m, c) for m, c in ONLINE_PROVIDER_MODULES if m.rsplit(".", 1)[-1] == self.gpuhunt_name
        )
        try:
            module = __import__(module_name, fromlist=[class_name])
            provider = getattr(module, class_name).from_env()
            items = provider.get(query_filter=None, balance_resources=False)
        except requests.RequestException as exc:
            # Network trouble is worth a retry, as for every httpx-based provider.
            raise httpx.TransportError(f"gpuhunt {self.gpuhunt_name}: {exc}") from exc
        except (GPUHuntError, ValueError, KeyError, TypeError) as exc:
            raise PayloadError(f"gpuhunt {self.gpuhunt_name} query failed: {type(exc).__name__}: {exc}") from exc
        return payload_bytes(self.gpuhunt_name, f"online gpuhunt {_gpuhunt_version()}", self.INFO.endpoint, items)

    def parse(self, payload: Any, captured_at: datetime, skipped: list[str] | None = None) -> list[OfferRecord]:
        if field(payload, "format", "payload") != FORMAT:
            raise PayloadError(f"payload: not a {FORMAT} payload")
        if field(payload, "provider", "payload") != self.gpuhunt_name:
            raise PayloadError(f"payload is gpuhunt's {payload['provider']!r} catalog, not {self.gpuhunt_name!r}")
        version = str(field(payload, "catalog_version", "payload"))
        offers = []
        for item in catalog_items(field(payload, "csv", "payload"), self.gpuhunt_name):
            offer = self._offer(item, version, captured_at, skipped)
            if offer is not None:
                offers.append(offer)
        return offers

    def _offer(
        self, item: CatalogItem, version: str, captured_at: datetime, skipped: list[str] | None
    ) -> OfferRecord | None:
        if not item.gpu_count or not item.gpu_name:
            return None  # a CPU-only instance
        if item.gpu_vendor in NON_GPU_VENDORS:
            if skipped is not None:
                skipped.append(f"{item.gpu_name} ({item.gpu_vendor.value if item.gpu_vendor else ''})")
            return None
        slug = gpu_slug_for(item.gpu_name, item.gpu_memory, item.instance_name)
        if slug is None:
            if skipped is not None:
                skipped.append(item.gpu_name)
            return None
        where = f"{self.gpuhunt_name} {item.instance_name} {item.location}"
        price_per_gpu = checked_price(item.price / item.gpu_count, where)
        kind: PricingKind = "spot" if item.spot else "on-demand"
        return OfferRecord(
            provider_slug=self.INFO.slug,
            provider_name=self.INFO.name,
            gpu_slug=slug,
            instance_name=item.instance_name,
            gpu_counts=(item.gpu_count,),
            price_per_gpu_hour_usd=price_per_gpu,
            instance_price_usd=((item.gpu_count, item.price),),
            pricing_kind=kind,
            region=item.location,
            captured_at=captured_at,
            url=self.INFO.website,
            confidence="high" if self.confidence == "high" else "medium",
            source=f"gpuhunt {'online query' if self.online else 'catalog'} {self.gpuhunt_name} {version}",
            notes=f"{item.cpu} vCPU, {item.memory:g} GB RAM"
            + (f", flags: {' '.join(item.flags)}" if item.flags else ""),
        )


def catalog_version(payload: Any) -> str:
    """The catalog version a payload was read from (stored on its snapshot)."""
    if isinstance(payload, dict) and payload.get("format") == FORMAT:
        return str(payload.get("catalog_version", ""))[:64]
    return ""


def catalog_items(text: Any, provider: str) -> list[CatalogItem]:
    """Rows of a gpuhunt catalog CSV as ``CatalogItem`` objects, read by gpuhunt's own row loader.

    gpuhunt skips a malformed row with a warning; a price source must not, so any bad row refuses the catalog.
    """
    if not isinstance(text, str):
        raise PayloadError(f"payload.csv: expected text, got {type(text).__name__}")
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in REQUIRED_COLUMNS if c not in (reader.fieldnames or ())]
    if missing:
        raise PayloadError(f"{provider} catalog: columns missing: {', '.join(missing)}")
    items = []
    for row in reader:
        try:
            items.append(gpuhunt_storage.item_from_row(row, provider=provider))
        except (ValueError, json.JSONDecodeError) as exc:
            raise PayloadError(f"{provider} catalog line {reader.line_num}: {exc}") from exc
    return items


def payload_bytes(provider: str, version: str, source: str, rows: str | list[CatalogItem]) -> bytes:
    if not isinstance(rows, str):
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=gpuhunt_storage.CATALOG_V2_FIELDS)
        writer.writeheader()
        for item in rows:
            writer.writerow(gpuhunt_storage.item_to_row(item))
        rows = out.getvalue()
    payload = {"format": FORMAT, "provider": provider, "catalog_version": version, "source": source, "csv": rows}
    return json.dumps(payload, sort_keys=True).encode("utf-8")


def _gpuhunt_version() -> str:
    from importlib.metadata import version

    return version("gpuhunt")


def _catalog(slug: str, gpuhunt_name: str, name: str, website: str) -> GpuhuntSource:
    return GpuhuntSource(
        INFO=ProviderInfo(
            slug=slug,
            name=name,
            website=website,
            endpoint=f"{CATALOG_URL}/{gpuhunt_name}",
            docs="dstackai/gpuhunt src/gpuhunt/_internal/catalog.py (per-provider v3 catalogs)",
        ),
        gpuhunt_name=gpuhunt_name,
    )


def _online(slug: str, gpuhunt_name: str, name: str, website: str, endpoint: str) -> GpuhuntSource:
    return GpuhuntSource(
        INFO=ProviderInfo(
            slug=slug,
            name=name,
            website=website,
            endpoint=endpoint,
            docs=f"dstackai/gpuhunt src/gpuhunt/providers/{gpuhunt_name}.py",
        ),
        gpuhunt_name=gpuhunt_name,
        online=True,
    )


# Our provider slug -> its gpuhunt source. gpuhunt's runpod catalog and vastai query are not used: our own
# parsers give more (README "Providers"). gpuhunt's online providers that need keys (Crusoe, DigitalOcean,
# Hot Aisle, JarvisLabs, Seeweb) stay curated until keys are configured.
SOURCES: tuple[GpuhuntSource, ...] = (
    _catalog("aws", "aws", "AWS", "https://aws.amazon.com/ec2/pricing/on-demand/"),
    _catalog("azure", "azure", "Microsoft Azure", "https://azure.microsoft.com/pricing/details/virtual-machines/"),
    _catalog("gcp", "gcp", "Google Cloud", "https://cloud.google.com/compute/gpus-pricing"),
    _catalog("oci", "oci", "Oracle Cloud (OCI)", "https://www.oracle.com/cloud/compute/pricing/"),
    _catalog("nebius", "nebius", "Nebius", "https://nebius.com/prices"),
    _catalog("lambda", "lambdalabs", "Lambda", "https://lambda.ai/pricing"),
    _catalog("verda", "verda", "Verda (ex-DataCrunch)", "https://verda.com/pricing"),
    _catalog("cloudrift", "cloudrift", "CloudRift", "https://www.cloudrift.ai/pricing"),
    _online("lium", "lium", "Lium", "https://lium.io", "https://lium.io/api/public/v1/nodes"),
)

CATALOG_PROVIDERS = tuple(gpuhunt_catalog.OFFLINE_PROVIDERS)
ONLINE_PROVIDERS = tuple(gpuhunt_catalog.ONLINE_PROVIDERS)


def known_gpu_names() -> list[tuple[str, float]]:
    """Every NVIDIA and AMD GPU gpuhunt knows (name, GB per GPU): what its catalogs can contain."""
    return [(gpu.name, gpu.memory) for gpu in (*KNOWN_NVIDIA_GPUS, *KNOWN_AMD_GPUS)]
