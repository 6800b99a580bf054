"""Print the GPU ranking from the current offers, for a model and the calculator's options or a memory need.

manage.py rank --memory-gb 708
manage.py rank zai-org/GLM-5.3-Flash --precision int4 --context 32K --json
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DatabaseError

from calculator.estimation import estimate
from calculator.estimation.engines.kernels import startable_gpus
from calculator.estimation.memory.fit import per_gpu_overhead_bytes
from calculator.estimation.plan.cost import cost_per_million_tokens
from calculator.estimation.plan.ranking import RankedOffer, Ranking, rank
from calculator.management.options import (
    Request,
    add_workload_arguments,
    mode_change_json,
    mode_change_note,
    one_line_errors,
    parse_decimal,
    read_request,
    usage_error,
)
from calculator.page.gpus import instance_plan
from pricing.gpus import BYTES_PER_GB, gpu_by_slug, load_gpus
from pricing.offers import PRICING_KINDS, PricingKind, as_pricing_kind
from pricing.selectors import current_offers

# 100 TB: more than any model needs at FP32 with a long context; larger values are typos
MAX_MEMORY_GB = Decimal(100_000)


def _row_json(row: RankedOffer, speeds: dict | None = None) -> dict:
    offer = row.offer
    found = (speeds or {}).get(_key(row))
    speed_fields = {} if found is None else dict(found)
    return {
        **speed_fields,
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


def ranking_json(ranking: Ranking, speeds: dict | None = None) -> dict:
    return {
        "need_gb": str(Decimal(ranking.need_bytes) / BYTES_PER_GB),
        "hours_per_month": ranking.hours_per_month,
        "by_gpu": [_row_json(row, speeds) for row in ranking.by_gpu],
        "by_provider": [_row_json(row, speeds) for row in ranking.by_provider],
        "several_nodes": [
            {
                "gpu": c.gpu_name,
                "gpu_family": c.gpu_family,
                "gpus_needed": c.gpus_needed,
                "nodes": c.nodes,
                "gpus_run": c.gpus_run,
            }
            for c in ranking.several_nodes
        ],
        "no_large_instance": [
            {"gpu": c.gpu_name, "gpu_family": c.gpu_family, "gpus_needed": c.gpus_needed}
            for c in ranking.no_large_instance
        ],
    }


def _line(row: RankedOffer) -> str:
    offer = row.offer
    sold = f" (the memory needs {row.gpus_needed})" if row.pays_for_unused_gpus else ""
    date = f"{offer.captured_at:%Y-%m-%d}" if offer.captured_at else "?"
    stale = " STALE" if offer.stale else ""
    # Low-confidence rows (aggregators, fragile scrapes) are shown, never as plain fact.
    confidence = f" {offer.confidence.upper()} CONFIDENCE" if offer.confidence != "high" else ""
    sizes = "" if offer.sizes_known else " (instance sizes unknown)"
    return (
        f"{row.instance_gpus:>2} × {row.gpu_name:<18} {offer.provider_name:<12} {offer.instance_name[:40]:<40} "
        f"${row.price_per_gpu_hour_rounded:>7}/GPU-h  ${row.per_hour_rounded:>8}/h  "
        f"${row.per_month_rounded:>8,}/month{sold}{sizes}  [{date}{stale}{confidence}]"
    )


class Command(BaseCommand):
    help = (
        "Rank the current offers for a model (catalog id or config.json, with the calculator's options) "
        "or for --memory-gb decimal GB of GPU memory."
    )

    def create_parser(self, prog_name: str, subcommand: str, **kwargs: Any) -> CommandParser:
        return one_line_errors(super().create_parser(prog_name, subcommand, **kwargs))

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("model", nargs="?", help="catalog model id (org/name, any case) or a path to a config.json")
        parser.add_argument("--memory-gb", help="memory need in GB (10^9 bytes), instead of a model")
        add_workload_arguments(parser)
        parser.add_argument("--json", action="store_true", help="Print JSON instead of text.")
        parser.add_argument(
            "--kind",
            action="append",
            help=f"Pricing kinds to include (repeatable; default on-demand): {', '.join(PRICING_KINDS)}.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if (options["model"] is None) == (options["memory_gb"] is None):
            raise usage_error("model", "give a model id or --memory-gb, not both and not neither")
        kinds = _pricing_kinds(options["kind"])
        request: Request | None = None
        per_gpu = 0
        if options["memory_gb"] is not None:
            memory_gb = parse_decimal("--memory-gb", options["memory_gb"], MAX_MEMORY_GB)
            need_bytes = int(memory_gb * BYTES_PER_GB)
        else:
            request = read_request(options)
            breakdown = estimate(request.spec, request.workload)
            need_bytes, per_gpu = breakdown.total_bytes, per_gpu_overhead_bytes(breakdown)
            memory_gb = Decimal(need_bytes) / BYTES_PER_GB
        try:
            offers = current_offers(pricing_kinds=kinds)
        except DatabaseError:
            # an unmigrated database has no price tables; a traceback would hide the one step that helps
            raise CommandError(
                "the database has no price tables yet: run `manage.py migrate`, then `manage.py load_prices`"
            ) from None
        engine = request.workload.engine if request is not None else "vllm"
        # the model page's ranking: only GPUs the model starts on, each holding the engine's budget for itself
        gpus = startable_gpus(request.spec, engine, load_gpus()) if request is not None else list(load_gpus())
        ranking = rank(need_bytes, offers, gpus, pricing_kinds=kinds, engine=engine, per_gpu_bytes=per_gpu)
        speeds = _speeds(request, ranking) if request is not None else {}
        if options["json"]:
            data = ranking_json(ranking, speeds)
            if request is not None:
                data = {"model": request.model, **_workload_json(request), **data}
            self.stdout.write(_dumps(data))
            return
        if request is not None:
            w = request.workload
            self.stdout.write(
                f"{request.model}: {w.mode} · {request.precision_label} · {request.engine_name} · "
                f"{w.context:,} tokens × {w.concurrency} · KV {w.kv_dtype}"
            )
            note = mode_change_note(request)
            if note:
                self.stdout.write(f"note: {note}")
            memory_gb = memory_gb.quantize(Decimal("0.01"))
        self.stdout.write(f"Need {memory_gb} GB; {len(offers)} current offers ({', '.join(kinds)})")
        if not offers:
            self.stdout.write("No current offers: run `manage.py load_prices` to load the shipped snapshot.")
        self.stdout.write("\nGPU types that fit one node, cheapest first:")
        for row in ranking.by_gpu:
            self.stdout.write("  " + _line(row) + _speed_text(speeds.get(_key(row))))
        self.stdout.write("\nCheapest matching offer per provider:")
        for row in ranking.by_provider:
            self.stdout.write("  " + _line(row) + _speed_text(speeds.get(_key(row))))
        if ranking.several_nodes:
            names = ", ".join(f"{c.gpu_name} ({c.gpus_run} on {c.nodes} nodes)" for c in ranking.several_nodes)
            self.stdout.write(f"\nMore than 8: several nodes needed: {names}")
        if ranking.no_large_instance:
            names = ", ".join(f"{c.gpu_name} ({c.gpus_needed})" for c in ranking.no_large_instance)
            self.stdout.write(f"No instance large enough on sale: {names}")


Speed = dict[str, Any]


Key = tuple[str, str, str, str, str]


def _key(row: RankedOffer) -> Key:
    offer = row.offer
    return (offer.gpu_slug, offer.provider_slug, offer.instance_name, offer.region or "", offer.pricing_kind)


def _speeds(request: Request, ranking: Ranking) -> dict[Key, Speed]:
    """Per shown offer: the GPUs the engine runs, decode tokens/s (low end, as the page) and USD per M tokens."""
    spec, workload = request.spec, request.workload
    found: dict[Key, Speed] = {}
    for row in (*ranking.by_gpu, *ranking.by_provider):
        gpu = gpu_by_slug(row.offer.gpu_slug)
        assert gpu is not None  # the ranking ranks only offers of catalog GPUs
        # the page's plan of the priced instance: the engine's split, and what all requests generate at it
        plan = instance_plan(row, ranking.need_bytes, spec, workload, gpu)
        tokens = plan.throughput_low
        found[_key(row)] = {
            "tensor_parallel": plan.tensor_parallel,
            "pipeline_parallel": plan.pipeline_stages,
            "attention_data_parallel": plan.attention_data_parallel,
            "tokens_per_s": tokens,
            "per_million_tokens_usd": cost_per_million_tokens(float(row.per_hour_usd), tokens),
        }
    return found


def _speed_text(found: Speed | None) -> str:
    if not found or found["per_million_tokens_usd"] is None:
        return ""
    return f"  ~{found['tokens_per_s']:,.0f} tokens/s, ${found['per_million_tokens_usd']:,.2f}/M tokens"


def _workload_json(request: Request) -> dict[str, Any]:
    w = request.workload
    return {
        "workload": {
            "mode": str(w.mode),
            "precision": w.precision,
            "context": w.context,
            "concurrency": w.concurrency,
            "engine": w.engine,
            "kv_dtype": w.kv_dtype,
        },
        "mode_change": mode_change_json(request),
    }


def _dumps(data: dict) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False)


def _pricing_kinds(names: list[str] | None) -> list[PricingKind]:
    """The pricing kinds ``--kind`` names (on-demand when none), or a usage error."""
    kinds = []
    for name in names or ("on-demand",):
        if name.strip().lower() not in PRICING_KINDS:
            raise usage_error("--kind", f"expected one of {', '.join(PRICING_KINDS)}, got {name!r}")
        kinds.append(as_pricing_kind(name.strip().lower()))
    return kinds
