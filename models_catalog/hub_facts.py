"""Services that write what discovery learns about models already listed: their Hub facts and their new builds.

Each write is one transaction on one model and leaves everything else as it was; a model whose facts did not move
is not written at all (its ``updated_at``, the sitemap's ``lastmod``, stays), only its check time is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.db.models import Max

from models_catalog import hub
from models_catalog.models import Model, ModelFact, QuantizedBuild
from models_catalog.records import BuildRecord


@dataclass(frozen=True, slots=True)
class FactChange:
    field: str
    before: str
    after: str


def _facts_wanted(model: Model, info: hub.HubModelInfo) -> dict[str, object]:
    """The Hub's current value of each fact it gives; a fact it leaves out keeps the catalog's value."""
    wanted: dict[str, object] = {"gated": info.gated or "", "hub_sha": info.sha or model.hub_sha}
    if info.downloads is not None:
        wanted["downloads"] = info.downloads
    if info.likes is not None:
        wanted["likes"] = info.likes
    if info.license:
        wanted["licence"] = info.license[:64]
    return wanted


def _shown(value: object) -> str:
    return "" if value is None else str(value)


def model_hub_facts_save(model: Model, info: hub.HubModelInfo, now: datetime, endpoint: str) -> list[FactChange]:
    """Write the downloads, likes, gated state, licence and latest commit the Hub gives now. Returns what changed."""
    with transaction.atomic():
        locked = Model.objects.select_for_update().get(pk=model.pk)
        changes = [
            FactChange(name, _shown(getattr(locked, name)), _shown(value))
            for name, value in _facts_wanted(locked, info).items()
            if getattr(locked, name) != value
        ]
        fields = ["hub_checked_at"]
        locked.hub_checked_at = now
        if changes:
            for change in changes:
                setattr(locked, change.field, _facts_wanted(locked, info)[change.field])
            fields += [c.field for c in changes] + ["updated_at"]
            if any(c.field == "downloads" for c in changes):
                locked.downloads_as_of = now.date()
                fields.append("downloads_as_of")
            _figures_replace(locked, info, now, endpoint)
            locked.save(update_fields=fields)
        else:
            # only the check time: the model's own change time (the sitemap's lastmod) stays
            Model.objects.filter(pk=locked.pk).update(hub_checked_at=now)
    return changes


def _figures_replace(model: Model, info: hub.HubModelInfo, now: datetime, endpoint: str) -> None:
    """The Hub's downloads and likes figures, read now, in place of the ones read before."""
    api = f"{endpoint.rstrip('/')}/api/models/{model.hub_id}"
    for kind, value, detail in (
        ("downloads", info.downloads, f"{api} (downloads, last 30 days, read {now:%Y-%m-%d})"),
        ("likes", info.likes, f"{api} (likes, read {now:%Y-%m-%d})"),
    ):
        if value is None:
            continue
        model.facts.filter(kind=kind, source="hub_api").delete()
        ModelFact.objects.create(
            model=model, kind=kind, value_int=value, source="hub_api", source_detail=detail, captured_at=now
        )


def model_builds_add(model: Model, builds: Sequence[BuildRecord], now: datetime) -> list[BuildRecord]:
    """Add the builds the catalog does not list yet (by repo and label) after the ones it has. Returns those added."""
    with transaction.atomic():
        Model.objects.select_for_update().filter(pk=model.pk).first()
        known = {(repo.lower(), label) for repo, label in model.builds.values_list("repo_id", "label")}
        added = [b for b in builds if (b.repo_id.lower(), b.label) not in known]
        if not added:
            return []
        start = (model.builds.aggregate(last=Max("sort_order"))["last"] or 0) + 1
        QuantizedBuild.objects.bulk_create(
            [
                QuantizedBuild(
                    model=model,
                    format=b.format,
                    label=b.label[:64],
                    bits_per_weight=b.bits_per_weight,
                    bits_source=b.bits_source[:100],
                    repo_id=b.repo_id,
                    file_size_bytes=b.file_size_bytes,
                    size_source=b.size_source[:200],
                    source=b.source[:300],
                    sort_order=start + i,
                    fetched_at=now,
                )
                for i, b in enumerate(added)
            ]
        )
        Model.objects.filter(pk=model.pk).update(updated_at=now)
    return added
