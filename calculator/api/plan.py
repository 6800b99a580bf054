"""The planner's answer as JSON: the API's ``/plan`` body, and what ``manage.py plan --json`` prints."""

from __future__ import annotations

from typing import Any

from calculator.estimation.plan.planner import ReplicaCapacity, Served
from calculator.page.gpus import OfferRow
from calculator.page.inputs import HostedPrice
from calculator.page.plan_bands import RowBand, plan_bands
from calculator.page.planner import OwnedRow, PlanAnswer, PlanRow
from calculator.plan_state import PlanState, plan_query
from pricing.owned import OwnedServer


def _row(row: PlanRow, band: RowBand | None) -> dict[str, Any]:
    served = row.served
    data: dict[str, Any] = {
        "kind": row.kind,
        "monthly_usd": round(served.monthly_usd, 2),
        "per_million_output_usd": round(served.per_million_output_usd, 4),
        "band": _band_fields(band),
    }
    if row.command:
        data["command"] = row.command
    if row.hosted is not None:
        data |= _hosted_fields(row.hosted)
    if row.owned is not None and served.capacity is not None:
        data |= _owned_fields(row.owned, served, served.capacity)
    if row.offer is not None and served.capacity is not None:
        data |= _rented_fields(row.offer, served, served.capacity)
    return data


def _band_fields(found: RowBand | None) -> dict[str, Any] | None:
    """How far the row's speed may be off (nine in ten published runs of its engine within ± percent) and the
    monthly cost that spans; null for an API's price or where no published run compares."""
    if found is None or found.band is None:
        return None
    band = found.band
    return {
        "within_percent": band.within_percent,
        "error_percent_range": [round(band.low_error * 100, 1), round(band.high_error * 100, 1)],
        "published_runs": band.runs,
        "engine": band.engine,
        "gpu_family": band.gpu_family or None,
        "model_family": band.family or None,
        "monthly_usd_low": round(found.low_usd, 2),
        "monthly_usd_high": round(found.high_usd, 2),
        "within_band_of_cheapest": found.near_cheapest,
    }


def _hosted_fields(hosted: HostedPrice) -> dict[str, Any]:
    return {
        "provider": hosted.provider,
        "route": hosted.route,
        "source_url": hosted.source_url,
        "captured_on": hosted.captured_on.isoformat() if hosted.captured_on else None,
        "confidence": hosted.confidence,
    }


def _owned_fields(owned: OwnedRow, served: Served, capacity: ReplicaCapacity) -> dict[str, Any]:
    return {
        "server": owned.server.name,
        "server_slug": owned.server.slug,
        "gpu_slug": owned.server.gpu_slug,
        "server_gpus": owned.server.gpus if isinstance(owned.server, OwnedServer) else 1,
        "purchase_price_usd": owned.price_usd,
        "purchase_price_estimated": owned.estimated,
        "purchase_price_basis": owned.price_basis,
        "purchase_price_source": owned.server.price_source if owned.price_basis != "yours" else None,
        "power_kw": owned.server.power_kw,
        "per_month_per_server_usd": round(owned.month.total_usd, 2),
        "depreciation_per_month_usd": round(owned.month.depreciation_usd, 2),
        "energy_per_month_usd": round(owned.month.energy_usd, 2),
        "hosting_per_month_usd": round(owned.month.hosting_usd, 2),
        "replicas_per_server": owned.replicas_per_server,
        "engine": "llama.cpp" if owned.plan is None else None,
        "precision": owned.precision or None,
        "wired_limit_mb": owned.wired_limit_mb,
        "tensor_parallel": owned.plan.tensor_parallel if owned.plan is not None else None,
        "pipeline_stages": owned.plan.pipeline_stages if owned.plan is not None else None,
        "servers": served.replicas,
        "utilisation": round(served.utilisation, 3),
        "requests_per_server": capacity.concurrency,
        "output_tokens_per_s_per_server": round(capacity.output_tokens_per_s, 1),
        "tpot_ms": round(capacity.tpot_s * 1000, 1),
        "ttft_s": round(capacity.ttft_s, 3),
        "limit": capacity.limit,
    }


def _rented_fields(offer: OfferRow, served: Served, capacity: ReplicaCapacity) -> dict[str, Any]:
    ranked = offer.ranked
    return {
        "provider": ranked.provider_name,
        "gpu": ranked.gpu_name,
        "gpu_slug": ranked.offer.gpu_slug,
        "instance": ranked.offer.instance_name,
        "instance_gpus": ranked.instance_gpus,
        "pricing_kind": ranked.offer.pricing_kind,
        "per_month_per_replica_usd": str(ranked.per_month_usd),
        "tensor_parallel": offer.plan.tensor_parallel,
        "pipeline_stages": offer.plan.pipeline_stages,
        "replicas": served.replicas,
        "utilisation": round(served.utilisation, 3),
        "requests_per_replica": capacity.concurrency,
        "output_tokens_per_s_per_replica": round(capacity.output_tokens_per_s, 1),
        "tpot_ms": round(capacity.tpot_s * 1000, 1),
        "ttft_s": round(capacity.ttft_s, 3),
        "limit": capacity.limit,
    }


def plan_json(model_id: str, state: PlanState, answer: PlanAnswer, family: str = "") -> dict[str, Any]:
    """The plan as JSON; ``family``, the model's validation family, picks each row's error band."""
    bands = plan_bands(answer, answer.rows, family)
    return {
        "model": model_id,
        "parameters": {
            "out": state.out,
            "ratio": state.ratio,
            "cached": state.cached,
            "olen": state.olen,
            "peak": state.peak,
            "ttft": state.ttft,
            "tpot": state.tpot,
            "pct": state.pct,
            "engine": state.engine,
            "spot": bool(state.spot),
            "x": list(state.x),
            "years": state.years,
            "kwh": state.kwh,
            "pue": state.pue,
            "colo": state.colo,
            "server_prices": dict(state.prices),
        },
        "permalink_query": plan_query(state),
        "engine": answer.engine,
        "precision": answer.precision,
        "replica_need_bytes": answer.need_bytes,
        "options": [_row(row, band) for row, band in zip(answer.rows, bands, strict=True)],
        "no_replica_meets_targets": list(answer.unmet),
        "crossovers": [
            {
                "output_tokens_per_month": round(c.output_tokens_per_month),
                "cheaper_below": c.below,
                "cheaper_above": c.above,
            }
            for c in answer.crossovers
        ],
        "assumptions": {
            "latency": (
                "median time to first token and per output token under steady load"
                if state.pct == 50
                else "95th-percentile time to first token and per output token under steady load (estimated)"
            ),
            "rented": (
                "replicas sized for the peak rate, each rented all month as sold (730 hours); "
                + ("spot (interruptible) offers included and marked" if state.spot else "on-demand offers only")
            ),
            "owned": (
                "servers sized for the peak rate; purchase price written off evenly over `years`, energy at the "
                "rated power around the clock times `pue` at `kwh` USD per kWh, colocation at `colo` USD per kW a month"
            ),
            "excluded_providers": list(state.x),
            "prompt_tokens_per_request": answer.demand.prompt,
            "output_tokens_per_request": answer.demand.output_tokens,
        },
    }
