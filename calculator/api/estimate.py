"""The estimate as JSON: the model page's own sections (``calculator.page.model_page``), written out field by field.

The numbers are the page's numbers because they come from the same call with the same inputs; this module only
names them (bytes as integers of bytes, money as USD beside its capture date) and adds each term's label and
formula from ``calculator.term_text``. Every section of the page (``calculator.page.SECTIONS``) is a member named as
the section is, but for those ``JSON_MEMBER`` names otherwise (tests/calculator/test_page_sections.py).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from calculator.estimation import RankedOffer
from calculator.estimation.engines.releases import release_label, vllm_release
from calculator.estimation.engines.sourcing import WeightsSource
from calculator.page import ModelPage, OfferRow, Rig
from calculator.state import CalculatorState
from calculator.term_text import term_formula, term_label


def _source(source: WeightsSource | None) -> dict[str, Any] | None:
    if source is None:
        return None
    keys = ("kind", "model", "repo", "quantization", "precision", "released")
    return {key: str(getattr(source, key)) for key in keys} | {"missing": source.missing and source.missing.value}


def _offer(ranked: RankedOffer, row: OfferRow | None = None) -> dict[str, Any]:
    offer = ranked.offer
    return {
        "provider": offer.provider_slug,
        "provider_name": offer.provider_name,
        "gpu": offer.gpu_slug,
        "gpu_name": ranked.gpu_name,
        "instance_name": offer.instance_name,
        "region": offer.region,
        "pricing_kind": offer.pricing_kind,
        "gpus_needed": ranked.gpus_needed,
        "engine_gpus": row.plan.gpus_run if row else None,
        "tensor_parallel": row.tensor_parallel if row else None,
        "pipeline_parallel": row.pipeline_stages if row else None,
        "attention_data_parallel": row.attention_data_parallel if row else None,
        "instance_gpus": ranked.instance_gpus,
        "idle_gpus": row.idle_gpus if row else None,
        "price_per_gpu_hour_usd": float(ranked.price_per_gpu_hour_usd),
        "per_hour_usd": float(ranked.per_hour_usd),
        "per_month_usd": float(ranked.per_month_usd),
        "captured_at": offer.captured_at,
        "stale": offer.stale,
        "confidence": offer.confidence,
        "url": offer.url,
        "tokens_per_s_low": row.tokens_per_s_low if row else None,
        "tokens_per_s_high": row.tokens_per_s_high if row else None,
    }


def _maybe_offer(ranked: RankedOffer | None) -> dict[str, Any] | None:
    return _offer(ranked) if ranked is not None else None


# The sections whose JSON member has another name: the breakdown rows are the breakdown's terms, with their shares.
JSON_MEMBER = {"rows": "breakdown"}


def _rig(rig: Rig | None, state: CalculatorState) -> dict[str, Any] | None:
    if rig is None:
        return None
    return {
        "gpu": rig.gpu.slug,
        "gpu_name": rig.gpu.short_name,
        "gpus": rig.gpus,
        "ram_gib": rig.ram_gib,
        "context": state.context,
        "rows": [asdict(row) for row in rig.rows],
        "best_file_type": rig.best.file_type if rig.best else None,
        "command": rig.command or None,
        "source": _source(rig.source),
    }


def estimate_json(page: ModelPage, state: CalculatorState, model_id: str | None) -> dict[str, Any]:
    setting, breakdown = page.setting, page.breakdown
    shares = {id(row.term): row.share for row in page.rows}
    inverse = page.inverse
    api = page.api
    return {
        "model": model_id,
        "parameters": asdict(state),
        "setting": {
            **asdict(setting),
            "mode": setting.mode.value,
            "vllm_version": vllm_release(state.release).label if setting.engine == "vllm" else None,
            "engine_version": release_label(setting.engine, state.release_for(setting.engine)) or None,
        },
        "accuracy": [
            {
                "checks": note.what,
                "kind": note.band.kind,
                "engine": note.band.engine,
                "family": note.band.family or None,
                "published_runs": note.band.runs,
                "within_percent": note.percent,
                "within_tolerance": note.band.within_tolerance,
            }
            for note in page.summary.accuracy
        ],
        "breakdown": {
            "total_bytes": breakdown.total_bytes,
            "host_bytes": breakdown.host_bytes,
            "per_gpu_bytes": breakdown.per_gpu_bytes,
            "precision_used": breakdown.precision_used,
            "params_total": breakdown.params_total,
            "params_active": breakdown.params_active,
            "params_source": breakdown.params_source,
            "params_active_source": breakdown.params_active_source,
            "estimated_fields": list(breakdown.estimated_fields),
            "warnings": list(breakdown.warnings),
            "terms": [
                {
                    "key": term.key,
                    "label": term_label(term),
                    "formula": term_formula(term),
                    "bytes": term.bytes,
                    "estimated": term.estimated,
                    "on_gpu": term.on_gpu,
                    "share": shares.get(id(term), 0.0),
                    "inputs": dict(term.inputs),
                }
                for term in breakdown.terms
                if term.bytes > 0
            ],
        },
        "summary": {
            "need_bytes": page.summary.need_bytes,
            "smallest_need_bytes": page.summary.smallest_need_bytes,
            "smallest_label": page.summary.smallest_label,
            "smallest_mode": page.summary.smallest_mode.value,
            # the ranking's first row, with the split it runs (the same object the summary card reads)
            "cheapest": _offer(page.gpus.by_gpu[0].ranked, page.gpus.by_gpu[0]) if page.gpus.by_gpu else None,
            "fits_one_gpu": page.summary.fits_one_gpu,
            "largest_gpu_name": page.summary.largest_gpu_name,
            "smallest_gpu_name": page.summary.smallest_gpu_name,
        },
        "gpus": {
            "need_bytes": page.gpus.need_bytes,
            "by_gpu": [_offer(row.ranked, row) for row in page.gpus.by_gpu],
            "by_provider": [_offer(row.ranked, row) for row in page.gpus.by_provider],
            "several_nodes": [asdict(count) for count in page.gpus.several_nodes],
            "newest_capture": page.gpus.newest_capture,
            "any_stale": page.gpus.any_stale,
            "any_low_confidence": page.gpus.any_low_confidence,
        },
        "commands": {
            "cloud_engine": page.commands.cloud_engine,
            "cloud": page.commands.cloud or None,
            "cloud_gpus": page.commands.cloud_gpus or None,
            "mac_gib": page.commands.mac_gib,
            "mac": page.commands.mac or None,
            "cloud_source": _source(page.commands.cloud_source),
            "mac_source": _source(page.commands.mac_source),
        },
        "matrix": [
            {"mode": cell.mode.value, "precision": cell.precision, "need_bytes": cell.need_bytes}
            for _, cells in page.matrix
            for cell in cells
        ],
        "precision_cards": [
            {
                "mode": "inference",
                "precision": card.precision,
                "label": card.label,
                "need_bytes": card.need_bytes,
                "ratio_to_fp16_inference": None,
                "cheapest": _maybe_offer(card.cheapest),
            }
            for card in page.precision_cards
        ],
        "mode_cards": [
            {
                "mode": card.mode.value,
                "precision": card.precision,
                "label": card.mode.value,
                "need_bytes": card.need_bytes,
                "ratio_to_fp16_inference": card.ratio,
                "cheapest": _maybe_offer(card.cheapest),
            }
            for card in page.mode_cards
        ],
        "builds": [
            {
                "key": row.build.key,
                "label": row.build.label,
                "format": row.build.format,
                "repo_id": row.build.repo_id,
                "bits_per_weight": row.build.bits_per_weight,
                "file_size_bytes": row.build.file_size_bytes,
                "need_bytes": row.need_bytes,
                "runtimes": list(row.runtimes),
                "smallest_mac_gib": row.smallest_mac_gib,
                "one_gpu": row.one_gpu,
                "gpu_count": row.gpu_count.count if row.gpu_count else None,
                "gpu_count_name": row.gpu_count.gpu_name if row.gpu_count else None,
            }
            for row in page.builds
        ],
        "context": {
            "precision_label": page.context.precision_label,
            "points": [asdict(point) for point in page.context.points],
            "budgets": [asdict(budget) for budget in page.context.budgets],
            "headroom": asdict(page.context.headroom) if page.context.headroom else None,
        },
        "inverse": None
        if inverse is None
        else {
            "hardware": inverse.label,
            "is_mac": inverse.is_mac,
            "budget_bytes": inverse.budget_bytes,
            "count": inverse.count,
            "context": inverse.context,
            "concurrency": inverse.concurrency,
            "rows": [asdict(row) for row in inverse.rows],
        },
        "local": {
            "gpus": [
                {
                    "gpu": verdict.gpu.slug,
                    "gpu_name": verdict.gpu.short_name,
                    "best": verdict.best,
                    "best_need_bytes": verdict.best_need_bytes,
                }
                for verdict in page.local.gpus
            ],
            "macs": [asdict(mac) for mac in page.local.macs],
        },
        "rig": _rig(page.rig, state),
        "api": {
            "self_host": _maybe_offer(api.self_host),
            "tokens_per_s": api.tokens_per_s,
            "sustained": asdict(api.sustained) if api.sustained is not None else None,
            "min_tokens_per_s": api.min_tokens_per_s,
            "self_host_per_million_output_usd": api.self_host_per_million_usd,
            "hosted": [
                {
                    "route": row.hosted.route,
                    "provider": row.hosted.provider,
                    "input_per_million_usd": row.input_usd,
                    "cached_input_per_million_usd": row.cached_usd,
                    "output_per_million_usd": row.output_usd,
                    "intro_in_force": row.intro_in_force,
                    "intro_expired": row.intro_expired,
                    "captured_on": row.hosted.captured_on,
                    "confidence": row.hosted.confidence,
                    "source_publisher": row.hosted.source_publisher,
                    "source_title": row.hosted.source_title,
                    "source_url": row.hosted.source_url,
                }
                for row in api.rows
            ],
            "input_tokens_per_output_token": api.mix.input_tokens_per_output_token,
            "cached_input_share": api.mix.cached_input_share,
            "api_per_million_output_usd": api.per_million_output_usd,
            "break_even_output_tokens_per_month": api.break_even_tokens,
            "self_host_capacity_tokens_per_month": api.capacity_tokens,
            "self_host_can_reach_break_even": api.reachable,
        },
        "faq": [item._asdict() for item in page.faq.items],
    }
