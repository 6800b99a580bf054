"""Each section's JSON form: its members of the API's estimate, from the section the page shows (``sections``).

The numbers are the page's numbers because they are the same objects; a form only names them (bytes as integers of
bytes, money as USD beside its capture date) and adds each term's label and formula from ``calculator.term_text``.
A form returns its members: most sections write one, named as the section is; the breakdown's rows write
``breakdown`` (the breakdown's terms with their shares) and the summary writes ``accuracy`` beside ``summary``.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from calculator.estimation import RankedOffer
from calculator.estimation.engines.sourcing import WeightsSource
from calculator.term_text import term_formula, term_label

from .builders import Matrix
from .commands import Commands
from .context import ContextSection
from .faq import Faq
from .glance import Glance
from .gpus import Gpus, OfferRow
from .hosted import HostedRow, SelfHostVsApi
from .inverse import Inverse
from .local import Local, Rig
from .sizes import BreakdownRow, BuildRow, ModeCards, PrecisionCards, Summary
from .work import PageWork

Members = dict[str, Any]


def source_json(source: WeightsSource | None) -> dict[str, Any] | None:
    if source is None:
        return None
    keys = ("kind", "model", "repo", "quantization", "precision", "released")
    return {key: str(getattr(source, key)) for key in keys} | {"missing": source.missing and source.missing.value}


def offer_json(ranked: RankedOffer, row: OfferRow | None = None) -> dict[str, Any]:
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


def maybe_offer_json(ranked: RankedOffer | None) -> dict[str, Any] | None:
    return offer_json(ranked) if ranked is not None else None


def summary_json(summary: Summary, work: PageWork) -> Members:
    by_gpu = work.gpus.by_gpu
    accuracy = [
        {
            "checks": note.what,
            "kind": note.band.kind,
            "engine": note.band.engine,
            "family": note.band.family or None,
            "published_runs": note.band.runs,
            "within_percent": note.percent,
            "within_tolerance": note.band.within_tolerance,
        }
        for note in summary.accuracy
    ]
    return {
        "accuracy": accuracy,
        "summary": {
            "need_bytes": summary.need_bytes,
            "smallest_need_bytes": summary.smallest_need_bytes,
            "smallest_label": summary.smallest_label,
            "smallest_mode": summary.smallest_mode.value,
            # the ranking's first row, with the split it runs (the same object the summary card reads)
            "cheapest": offer_json(by_gpu[0].ranked, by_gpu[0]) if by_gpu else None,
            "fits_one_gpu": summary.fits_one_gpu,
            "largest_gpu_name": summary.largest_gpu_name,
            "smallest_gpu_name": summary.smallest_gpu_name,
            "glance": glance_json(summary.glance) if summary.glance else None,
        },
    }


def glance_json(glance: Glance) -> dict[str, Any]:
    """The verdict and the need on common cards, as the page's summary shows them."""
    cards = [
        {
            "gpu": card.gpu.slug,
            "gpu_name": card.gpu.short_name,
            "memory_gb": card.memory_gb,
            "fit": card.fit.value,
            "cards": card.count,
            "own": card.own,
        }
        for card in glance.cards
    ]
    return {
        "verdict": glance.verdict.value,
        "verdict_gpu_name": glance.verdict_gpu,
        "verdict_gpus": glance.verdict_count,
        "cards": cards,
    }


def rows_json(rows: tuple[BreakdownRow, ...], work: PageWork) -> Members:
    """The breakdown with its terms, each with its share of the GPU memory (the rows' bars)."""
    breakdown, shares = work.breakdown, {id(row.term): row.share for row in rows}
    terms = [
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
    ]
    return {
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
            "terms": terms,
        }
    }


def gpus_json(gpus: Gpus, work: PageWork) -> Members:
    return {
        "gpus": {
            "need_bytes": gpus.need_bytes,
            "by_gpu": [offer_json(row.ranked, row) for row in gpus.by_gpu],
            "by_provider": [offer_json(row.ranked, row) for row in gpus.by_provider],
            "several_nodes": [asdict(count) for count in gpus.several_nodes],
            "newest_capture": gpus.newest_capture,
            "any_stale": gpus.any_stale,
            "any_low_confidence": gpus.any_low_confidence,
            "kernels": _kernels_json(gpus),
        }
    }


def _kernels_json(gpus: Gpus) -> dict[str, object] | None:
    rule = gpus.kernels
    if rule is None:
        return None
    return {
        "engine": rule.engine,
        "feature": rule.feature,
        "architectures": sorted(rule.architectures),
        "source": rule.source,
        "reason": gpus.kernels_note,
    }


def commands_json(commands: Commands, work: PageWork) -> Members:
    return {
        "commands": {
            "cloud_engine": commands.cloud_engine,
            "cloud": commands.cloud or None,
            "cloud_gpus": commands.cloud_gpus or None,
            "mac_gib": commands.mac_gib,
            "mac": commands.mac or None,
            "cloud_source": source_json(commands.cloud_source),
            "mac_source": source_json(commands.mac_source),
        }
    }


def matrix_json(matrix: Matrix, work: PageWork) -> Members:
    cells = [cell for _, row in matrix for cell in row]
    return {
        "matrix": [
            {"mode": cell.mode.value, "precision": cell.precision, "need_bytes": cell.need_bytes} for cell in cells
        ]
    }


def precision_cards_json(cards: PrecisionCards, work: PageWork) -> Members:
    return {
        "precision_cards": [
            {
                "mode": "inference",
                "precision": card.precision,
                "label": card.label,
                "need_bytes": card.need_bytes,
                "ratio_to_fp16_inference": None,
                "cheapest": maybe_offer_json(card.cheapest),
            }
            for card in cards
        ]
    }


def mode_cards_json(cards: ModeCards, work: PageWork) -> Members:
    return {
        "mode_cards": [
            {
                "mode": card.mode.value,
                "precision": card.precision,
                "label": card.mode.value,
                "need_bytes": card.need_bytes,
                "ratio_to_fp16_inference": card.ratio,
                "cheapest": maybe_offer_json(card.cheapest),
            }
            for card in cards
        ]
    }


def _build_row_json(row: BuildRow) -> dict[str, Any]:
    return {
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


def builds_json(rows: tuple[BuildRow, ...], work: PageWork) -> Members:
    return {"builds": [_build_row_json(row) for row in rows]}


def context_json(context: ContextSection, work: PageWork) -> Members:
    return {
        "context": {
            "precision_label": context.precision_label,
            "points": [asdict(point) for point in context.points],
            "budgets": [asdict(budget) for budget in context.budgets],
            "headroom": asdict(context.headroom) if context.headroom else None,
        }
    }


def inverse_json(inverse: Inverse | None, work: PageWork) -> Members:
    if inverse is None:
        return {"inverse": None}
    return {
        "inverse": {
            "hardware": inverse.label,
            "is_mac": inverse.is_mac,
            "budget_bytes": inverse.budget_bytes,
            "count": inverse.count,
            "context": inverse.context,
            "concurrency": inverse.concurrency,
            "rows": [asdict(row) for row in inverse.rows],
        }
    }


def local_json(local: Local, work: PageWork) -> Members:
    verdicts = [
        {
            "gpu": verdict.gpu.slug,
            "gpu_name": verdict.gpu.short_name,
            "best": verdict.best,
            "best_need_bytes": verdict.best_need_bytes,
        }
        for verdict in local.gpus
    ]
    return {"local": {"gpus": verdicts, "macs": [asdict(mac) for mac in local.macs]}}


def rig_json(rig: Rig | None, work: PageWork) -> Members:
    if rig is None:
        return {"rig": None}
    return {
        "rig": {
            "gpu": rig.gpu.slug,
            "gpu_name": rig.gpu.short_name,
            "gpus": rig.gpus,
            "ram_gib": rig.ram_gib,
            "context": work.state.context,
            "rows": [asdict(row) for row in rig.rows],
            "best_file_type": rig.best.file_type if rig.best else None,
            "command": rig.command or None,
            "source": source_json(rig.source),
        }
    }


def _hosted_row_json(row: HostedRow) -> dict[str, Any]:
    return {
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


def api_json(api: SelfHostVsApi, work: PageWork) -> Members:
    return {
        "api": {
            "self_host": maybe_offer_json(api.self_host),
            "tokens_per_s": api.tokens_per_s,
            "replica": asdict(api.capacity) if api.capacity is not None else None,
            "targets": {
                "ttft_s": api.demand.ttft_target_s,
                "tpot_s": api.demand.tpot_target_s,
                "percentile": api.demand.percentile,
                "peak_factor": api.demand.peak_factor,
                "prompt_tokens": api.demand.prompt,
                "output_tokens": api.demand.output_tokens,
            },
            "self_host_per_million_output_usd": api.self_host_per_million_usd,
            "hosted": [_hosted_row_json(row) for row in api.rows],
            "input_tokens_per_output_token": api.mix.input_tokens_per_output_token,
            "cached_input_share": api.mix.cached_input_share,
            "api_per_million_output_usd": api.per_million_output_usd,
            "break_even_output_tokens_per_month": api.break_even_tokens,
            "self_host_capacity_tokens_per_month": api.capacity_tokens,
            "self_host_can_reach_break_even": api.reachable,
        }
    }


def faq_json(faq: Faq, work: PageWork) -> Members:
    return {"faq": [item._asdict() for item in faq.items]}
