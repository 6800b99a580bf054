"""Services that write the catalog from a record: save one model, import the recorded folder the catalog ships.

Each write happens in one transaction: a failed import never leaves a half-written model. Records fetched from the
Hub arrive through ``hub_import``; the imports readers ask for are queued and run by ``import_requests``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.db import transaction
from django.utils import timezone

from models_catalog.hub_ids import InvalidHubId
from models_catalog.models import Model, ModelFact, ModelRevision, QuantizedBuild
from models_catalog.records import (
    RECORDED_AT,
    Figure,
    ModelRecord,
    RecordError,
    load_download_counts,
    load_reference_facts,
    record_from_folder,
    recorded_model_dirs,
    with_download_count,
    with_reference_facts,
)
from models_catalog.summary import ArchitectureSummary, summarise
from web.generations import CATALOG_GENERATION


# --- writing one model -----
def model_record_save(record: ModelRecord, summary: ArchitectureSummary | None = None) -> tuple[Model, str]:
    """Upsert one model with its facts and builds. Returns (model, "created" | "updated" | "unchanged")."""
    if summary is None:
        summary = summarise(record)
    config_sha = _config_sha(record.config)
    with transaction.atomic():
        model = Model.objects.select_for_update().filter(hub_id__iexact=record.hub_id.value).first()
        outcome = "created" if model is None else "unchanged"
        if model is not None and _differs(model, record, config_sha, summary):
            ModelRevision.objects.create(
                model=model,
                config=model.config,
                config_sha256=model.config_sha256,
                params_total=model.params_total,
                params_active=model.params_active,
                hub_sha=model.hub_sha,
                replaced_at=timezone.now(),
                reason=_change_reason(model, record, config_sha, summary),
            )
            outcome = "updated"
        if model is None:
            # a model found or asked for on the Hub is new to the catalog now; the bundled data is not
            model = Model(hub_id=record.hub_id.value, listed_at=record.fetched_at if record.origin == "hub" else None)
        if outcome != "unchanged" or _facts_differ(model, record, summary):
            if outcome == "unchanged":
                outcome = "updated"
            _apply(model, record, summary, config_sha)
            model.save()
            _replace_facts(model, record, summary)
            _replace_builds(model, record)
    CATALOG_GENERATION.bump()
    return model, outcome


def _apply(model: Model, record: ModelRecord, summary: ArchitectureSummary, config_sha: str) -> None:
    hub_id = record.hub_id
    model.hub_id = hub_id.value
    model.slug = hub_id.slug
    model.display_name = hub_id.name
    model.organisation = hub_id.org
    model.config = record.config
    model.config_status = record.config_status
    model.config_sha256 = config_sha
    total, total_source = record.params_total, record.params_total_source
    if total is None and summary.params_computed is not None:
        total, total_source = summary.params_computed, "computed"
    active, active_source = _chosen_active(record, summary)
    model.params_total, model.params_total_source = total, total_source
    model.params_active, model.params_active_source = active, active_source
    model.params_by_dtype = dict(record.params_by_dtype) if record.params_by_dtype else None
    model.params_computed = summary.params_computed
    model.params_active_computed = summary.params_active_computed
    model.family = summary.family
    model.model_type = summary.model_type
    model.attention_kind = summary.attention_kind
    model.is_moe = summary.experts_routed > 0
    model.experts_routed = summary.experts_routed
    model.experts_per_token = summary.experts_per_token
    model.experts_shared = summary.experts_shared
    model.num_layers = summary.num_layers
    model.native_dtype = record.native_dtype or summary.native_dtype
    model.max_context = record.max_context or summary.max_context
    modalities = list(record.modalities) or ["text"]
    if summary.has_vision and "image" not in modalities:
        modalities.append("image")
    model.modalities = modalities
    model.modality = "vision" if "image" in modalities or "video" in modalities else "text"
    model.task = record.task
    model.licence = record.licence
    model.release_date = record.release_date
    model.downloads = record.downloads
    model.downloads_as_of = record.downloads_as_of
    model.likes = record.likes
    model.gated = record.gated
    model.hub_sha = record.hub_sha
    model.sources = list(record.sources)
    model.notes = "\n".join(n for n in (record.notes, *summary.notes) if n)
    model.origin = record.origin
    model.fetched_at = record.fetched_at


def _all_figures(record: ModelRecord, summary: ArchitectureSummary) -> list[Figure]:
    figures = list(record.figures)
    detail = "counted layer by layer from the model's config.json"
    if record.config_status == "partial":
        detail += " (partial config: some tensors may be missing)"
    if summary.params_computed is not None:
        figures.append(Figure("params_total", "computed", summary.params_computed, "", detail))
    if summary.params_active_computed is not None and summary.experts_routed:
        figures.append(Figure("params_active", "computed", summary.params_active_computed, "", detail))
    return figures


def _primary_key(model: Model, figure: Figure) -> bool:
    chosen = {
        "params_total": (model.params_total, model.params_total_source),
        "params_active": (model.params_active, model.params_active_source),
    }.get(figure.kind)
    if chosen is None:
        return figure.primary
    return figure.value_int == chosen[0] and figure.source == chosen[1]


def _replace_facts(model: Model, record: ModelRecord, summary: ArchitectureSummary) -> None:
    model.facts.all().delete()
    seen: set[tuple[str, str, str]] = set()
    rows = []
    marked: set[str] = set()
    for figure in _all_figures(record, summary):
        key = (figure.kind, figure.source, figure.source_detail)
        if key in seen:
            continue
        seen.add(key)
        primary = _primary_key(model, figure) and figure.kind not in marked
        if primary:
            marked.add(figure.kind)
        rows.append(
            ModelFact(
                model=model,
                kind=figure.kind,
                value_int=figure.value_int,
                value_text=figure.value_text[:200],
                source=figure.source,
                source_detail=figure.source_detail,
                is_primary=primary,
                captured_at=record.fetched_at,
            )
        )
    ModelFact.objects.bulk_create(rows)


def _replace_builds(model: Model, record: ModelRecord) -> None:
    model.builds.all().delete()
    QuantizedBuild.objects.bulk_create(
        [
            QuantizedBuild(
                model=model,
                format=b.format,
                label=b.label,
                bits_per_weight=b.bits_per_weight,
                bits_source=b.bits_source,
                repo_id=b.repo_id,
                file_size_bytes=b.file_size_bytes,
                size_source=b.size_source[:200],
                size_is_approximate=b.size_is_approximate,
                min_ram_bytes=b.min_ram_bytes,
                quality_note=b.quality_note[:200],
                quality_source=b.quality_source[:200],
                source=b.source[:300],
                sort_order=b.sort_order,
                fetched_at=record.fetched_at,
            )
            for b in record.builds
        ]
    )


def _config_sha(config: Any) -> str:
    if config is None:
        return ""
    return hashlib.sha256(json.dumps(config, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _differs(model: Model, record: ModelRecord, config_sha: str, summary: ArchitectureSummary) -> bool:
    return (
        model.config_sha256 != config_sha
        or model.params_total != _chosen_total(record, summary)
        or (model.params_active, model.params_active_source) != _chosen_active(record, summary)
        or (bool(record.hub_sha) and model.hub_sha != record.hub_sha)
    )


def _chosen_total(record: ModelRecord, summary: ArchitectureSummary) -> int | None:
    return record.params_total if record.params_total is not None else summary.params_computed


def _chosen_active(record: ModelRecord, summary: ArchitectureSummary) -> tuple[int | None, str]:
    """Active parameters: our own count from the config where it has one; a model card's or review page's figure
    stays among the facts' sources (docs/methodology.md §4.14)."""
    if summary.params_active_computed is not None:
        return summary.params_active_computed, "computed"
    return record.params_active, record.params_active_source


def _change_reason(model: Model, record: ModelRecord, config_sha: str, summary: ArchitectureSummary) -> str:
    reasons = []
    if model.config_sha256 != config_sha:
        reasons.append("config.json changed")
    if model.params_total != _chosen_total(record, summary):
        reasons.append("parameter count changed")
    if record.hub_sha and model.hub_sha != record.hub_sha:
        reasons.append(f"Hub revision {model.hub_sha[:12] or '–'} → {record.hub_sha[:12]}")
    return "; ".join(reasons)[:200]


def _facts_differ(model: Model, record: ModelRecord, summary: ArchitectureSummary) -> bool:
    """Anything else an import may bring (downloads, licence, builds, reference figures)."""
    if model.pk is None:
        return True
    current = sorted((f.kind, f.source, f.source_detail, f.value_int, f.value_text) for f in model.facts.all())
    wanted = sorted(
        {
            (f.kind, f.source, f.source_detail): (
                f.kind,
                f.source,
                f.source_detail,
                f.value_int,
                f.value_text[:200],
            )
            for f in _all_figures(record, summary)
        }.values()
    )
    builds_now = sorted((b.repo_id, b.label, b.file_size_bytes) for b in model.builds.all())
    builds_wanted = sorted((b.repo_id, b.label, b.file_size_bytes) for b in record.builds)
    return (
        current != wanted
        or builds_now != builds_wanted
        or model.downloads != record.downloads
        or model.downloads_as_of != record.downloads_as_of
        or model.likes != record.likes
        or model.licence != record.licence
        or model.task != record.task
        or model.family != summary.family
        or model.attention_kind != summary.attention_kind
    )


# --- importing from the recorded folder -----
@dataclass
class OfflineImportResult:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return len(self.created) + len(self.updated) + len(self.unchanged)


def model_import_offline(root: Path | str, only: Iterable[str] = ()) -> OfflineImportResult:
    """Import every `<org>/<name>/` of a recorded Hub folder (or only the ids given). Idempotent."""
    wanted = {i.lower() for i in only}
    reference = load_reference_facts()
    counted = load_download_counts()
    result = OfflineImportResult()
    for folder in recorded_model_dirs(Path(root)):
        label = f"{folder.parent.name}/{folder.name}"
        if wanted and label.lower() not in wanted:
            continue
        try:
            record = with_reference_facts(record_from_folder(folder, RECORDED_AT), reference)
            record = with_download_count(record, counted)
            _, outcome = model_record_save(record)
        except (RecordError, InvalidHubId) as exc:
            result.failed[label] = str(exc)
            continue
        getattr(result, outcome).append(record.hub_id.value)
    return result
