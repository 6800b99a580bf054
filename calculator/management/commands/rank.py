"""Print the GPU ranking for a memory need from the current offers, so it can be checked from the shell."""

from __future__ import annotations

import json
from decimal import Decimal

from django.core.management.base import BaseCommand, CommandError

from calculator.estimation.ranking import RankedOffer, Ranking, rank
from pricing.gpus import BYTES_PER_GB, load_gpus
from pricing.offers import PRICING_KINDS, as_pricing_kind
from pricing.selectors import current_offers


def _row_json(row: RankedOffer) -> dict:
    offer = row.offer
    return {
        "gpu": row.gpu_name,
        "gpu_family": row.gpu_family,
        "gpu_slug": offer.gpu_slug,
        "gpus_needed": row.gpus_needed,
        "instance_gpus": row.instance_gpus,
        "pays_for_unused_gpus": row.pays_for_unused_gpus,
        "provider": offer.provider_name,
        "provider_slug": offer.provider_slug,
        "instance": offer.instance_name,
        "region": offer.region,
        "pricing_kind": offer.pricing_kind,
        "price_per_gpu_hour_usd": str(row.price_per_gpu_hour_usd),
        "per_hour_usd": str(row.per_hour_usd),
        "per_month_usd": str(row.per_month_usd),
        "captured_at": offer.captured_at.isoformat() if offer.captured_at else None,
        "stale": offer.stale,
        "confidence": offer.confidence,
    }


def ranking_json(ranking: Ranking) -> dict:
    return {
        "need_gb": str(Decimal(ranking.need_bytes) / BYTES_PER_GB),
        "hours_per_month": ranking.hours_per_month,
        "by_gpu": [_row_json(row) for row in ranking.by_gpu],
        "by_provider": [_row_json(row) for row in ranking.by_provider],
        "several_nodes": [
            {"gpu": c.gpu_name, "gpu_family": c.gpu_family, "gpus_needed": c.gpus_needed, "nodes": c.nodes}
            for c in ranking.several_nodes
        ],
        "no_large_instance": [
            {"gpu": c.gpu_name, "gpu_family": c.gpu_family, "gpus_needed": c.gpus_needed}
            for c in ranking.no_large_instance
        ],
    }


def _line(row: RankedOffer) -> str:
    offer = row.offer
    sold = f" (only sold with {row.instance_gpus})" if row.pays_for_unused_gpus else ""
    date = f"{offer.captured_at:%Y-%m-%d}" if offer.captured_at else "?"
    stale = " STALE" if offer.stale else ""
    # Low-confidence rows (aggregators, fragile scrapes) are shown, never as plain fact.
    confidence = f" {offer.confidence.upper()} CONFIDENCE" if offer.confidence != "high" else ""
    sizes = "" if offer.sizes_known else " (instance sizes unknown)"
    return (
        f"{row.gpus_needed:>2} × {row.gpu_name:<18} {offer.provider_name:<12} {offer.instance_name[:40]:<40} "
        f"${row.price_per_gpu_hour_rounded:>7}/GPU-h  ${row.per_hour_rounded:>8}/h  "
        f"${row.per_month_rounded:>8,}/month{sold}{sizes}  [{date}{stale}{confidence}]"
    )


class Command(BaseCommand):
    help = "Rank the current offers for a workload needing --memory-gb decimal GB of GPU memory."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--memory-gb", type=Decimal, required=True, help="Memory need in GB (10^9 bytes).")
        parser.add_argument("--json", action="store_true", help="Print JSON instead of text.")
        parser.add_argument(
            "--kind",
            action="append",
            choices=PRICING_KINDS,
            help="Pricing kinds to include (repeatable; default on-demand).",
        )

    def handle(self, *args, memory_gb: Decimal, json: bool = False, kind: list[str] | None = None, **options):
        if memory_gb <= 0:
            raise CommandError("--memory-gb must be positive")
        need_bytes = int(memory_gb * BYTES_PER_GB)
        kinds = tuple(as_pricing_kind(k) for k in kind or ("on-demand",))
        offers = current_offers(pricing_kinds=kinds)
        ranking = rank(need_bytes, offers, load_gpus(), pricing_kinds=kinds)
        if json:
            self.stdout.write(_dumps(ranking_json(ranking)))
            return
        self.stdout.write(f"Need {memory_gb} GB; {len(offers)} current offers ({', '.join(kinds)})")
        self.stdout.write("\nGPU types that fit one node, cheapest first:")
        for row in ranking.by_gpu:
            self.stdout.write("  " + _line(row))
        self.stdout.write("\nCheapest matching offer per provider:")
        for row in ranking.by_provider:
            self.stdout.write("  " + _line(row))
        if ranking.several_nodes:
            names = ", ".join(f"{c.gpu_name} ({c.gpus_needed})" for c in ranking.several_nodes)
            self.stdout.write(f"\nMore than 8: several nodes needed: {names}")
        if ranking.no_large_instance:
            names = ", ".join(f"{c.gpu_name} ({c.gpus_needed})" for c in ranking.no_large_instance)
            self.stdout.write(f"No instance large enough on sale: {names}")


def _dumps(data: dict) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False)
