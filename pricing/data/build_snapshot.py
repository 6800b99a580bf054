"""Build the shipped dated offer files from the offline price data set (``prices-snapshot.json``).

Usage: ``python pricing/data/build_snapshot.py PATH/TO/prices-snapshot.json``. Writes one ``gpufit-offers/1``
file per provider into ``pricing/data/snapshot/<captured>/``. Rows are copied as they are: each keeps its own
``seen_on`` date, confidence, source and note; nothing is estimated. Whole-instance prices the source quotes in
the instance name ("instance $63.296/h", "VM $84.8/h") are kept exactly next to the per-GPU price.
"""

from __future__ import annotations

import json
import re
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent

PROVIDER_SLUGS = {
    "RunPod": "runpod",
    "Vast.ai": "vastai",
    "AWS": "aws",
    "Google Cloud": "gcp",
    "Azure": "azure",
    "CoreWeave": "coreweave",
    "Lambda": "lambda",
    "TensorDock": "tensordock",
    "Oracle Cloud (OCI)": "oci",
    "Hyperstack": "hyperstack",
    "Crusoe": "crusoe",
    "Vultr": "vultr",
    "DigitalOcean": "digitalocean",
    "Jarvislabs": "jarvislabs",
    "Together AI": "together",
    "Hot Aisle": "hotaisle",
    "Nebius": "nebius",
    "Paperspace (DigitalOcean)": "paperspace",
    "Verda (ex-DataCrunch)": "verda",
    "Fluidstack": "fluidstack",
    "SF Compute": "sfcompute",
}
KINDS = {
    "on-demand": ("on-demand", ""),
    "spot": ("spot", ""),
    "community": ("community", ""),
    "reserved-1y": ("reserved", "1y"),
    "reserved-3y": ("reserved", "3y"),
    "savings-plan-1y": ("reserved", "savings-plan-1y"),
    "savings-plan-3y": ("reserved", "savings-plan-3y"),
}
INSTANCE_PRICE = re.compile(r"\((?:instance|VM) \$([0-9.]+)/h\)")
URL = re.compile(r"https?://\S+")


def convert(row: dict) -> dict:
    kind, term = KINDS[row["pricing"]]
    counts = row["gpus_per_instance"] or []
    instance_prices = []
    match = INSTANCE_PRICE.search(row["instance_name"])
    if match and len(counts) == 1:
        instance_prices = [[counts[0], match.group(1)]]
    notes = row.get("note") or ""
    stats = row.get("price_stats")
    if stats:
        notes = (
            f"{notes} Marketplace: {stats['n_offers']} offers, median {stats['median']}, "
            f"range {stats['min']}–{stats['max']} USD per GPU-hour."
        ).strip()
    url = URL.search(row.get("source") or "")
    return {
        "gpu_slug": row["gpu_slug"],
        "instance_name": row["instance_name"],
        "gpu_counts": counts,
        "price_per_gpu_hour_usd": repr(row["price_per_gpu_hour_usd"]),
        "instance_price_usd": instance_prices,
        "pricing_kind": kind,
        "term": term,
        "region": row.get("region") or "",
        "captured_on": row["seen_on"],
        "confidence": row["confidence"],
        "source": row["source"],
        "notes": notes,
        "url": url.group(0).rstrip(").,;") if url else "",
    }


def main(source: Path) -> None:
    data = json.loads(source.read_text(encoding="utf-8"))
    captured = data["captured"]
    by_provider: dict[str, list[dict]] = defaultdict(list)
    names = {}
    for row in data["offers"]:
        slug = PROVIDER_SLUGS[row["provider"]]
        names[slug] = row["provider"]
        by_provider[slug].append(convert(row))
    folder = HERE / "snapshot" / captured
    folder.mkdir(parents=True, exist_ok=True)
    for slug, rows in sorted(by_provider.items()):
        document = {
            "format": "gpufit-offers/1",
            "provider": {"slug": slug, "name": names[slug], "website": ""},
            "captured": captured,
            "source": f"offline price data set, assembled 2026-11-29; rows seen {min(r['captured_on'] for r in rows)}"
            f"..{max(r['captured_on'] for r in rows)}",
            "offers": rows,
        }
        (folder / f"{slug}.json").write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n")
    print(f"{sum(len(r) for r in by_provider.values())} offers from {len(by_provider)} providers → {folder}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
