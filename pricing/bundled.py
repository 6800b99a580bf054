"""What pricing ships in the repository: the GPU table (``data/gpus.json``) and the dated offer files.

``gpus_sync`` upserts the ``Gpu`` table from the same file the pure loader (``pricing.gpus``) reads. The dated
folders under ``data/snapshot/`` hold one curated file per provider without an API (and the shipped snapshot of
every provider); ``services.offers_refresh`` reads a curated provider's newest file.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from django.db import transaction

from .gpus import load_gpus
from .models import Gpu
from .providers import API_PROVIDERS

SNAPSHOT_DIR = Path(__file__).resolve().parent / "data" / "snapshot"


def gpus_sync() -> int:
    """Upsert the ``Gpu`` table from ``pricing/data/gpus.json`` (the same file the pure loader reads)."""
    count = 0
    with transaction.atomic():
        for spec in load_gpus():
            Gpu.objects.update_or_create(
                slug=spec.slug,
                defaults={
                    "name": spec.name,
                    "short_name": spec.short_name,
                    "family": spec.family,
                    "vendor": spec.vendor,
                    "architecture": spec.architecture,
                    "segment": spec.segment,
                    "memory_gb": Decimal(repr(spec.memory_gb)),
                    "memory_bandwidth_gbps": spec.memory_bandwidth_gbps,
                    "bf16_dense_tflops": spec.bf16_dense_tflops,
                    "fp8_dense_tflops": spec.fp8_dense_tflops,
                    "int8_tops": spec.int8_tops,
                    "sources": list(spec.sources),
                    "notes": spec.notes or "",
                },
            )
            count += 1
    return count


def snapshot_dirs() -> list[Path]:
    """Dated folders of shipped offer files, newest first (``pricing/data/snapshot/2026-08-08/``)."""
    if not SNAPSHOT_DIR.is_dir():
        return []
    return sorted((p for p in SNAPSHOT_DIR.iterdir() if p.is_dir()), reverse=True)


def curated_file(provider_slug: str) -> Path | None:
    for folder in snapshot_dirs():
        path = folder / f"{provider_slug}.json"
        if path.is_file():
            return path
    return None


def curated_provider_slugs() -> list[str]:
    """Providers whose offers come only from curated files (no API module)."""
    slugs = {p.stem for folder in snapshot_dirs() for p in folder.glob("*.json")}
    return sorted(slugs - set(API_PROVIDERS))
