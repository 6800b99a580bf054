"""Catalog reads for the API: keyset pagination over models, and one model with its builds.

The list is ordered by (lower(hub_id), id) and a cursor names the last row of a page, so a page costs one index
range read however deep the reader goes, and rows added meanwhile never shift a page (unlike OFFSET).
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from typing import Any

from django.db.models import Q, QuerySet
from django.db.models.functions import Lower

from calculator.api.errors import bad_parameters
from calculator.page import build_key
from models_catalog.models import Model
from models_catalog.selectors import model_facts

MAX_LIMIT = 100
MAX_QUERY_CHARS = 200


@dataclass(frozen=True, slots=True)
class ModelFilters:
    q: str = ""
    family: str = ""
    attention: str = ""
    modality: str = ""
    moe: bool | None = None


def encode_cursor(key: str, pk: int) -> str:
    return base64.urlsafe_b64encode(json.dumps([key, pk]).encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[str, int]:
    """The (lower(hub_id), id) a cursor names; a 400 naming ``cursor`` for anything this API did not write."""
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        key, pk = json.loads(base64.urlsafe_b64decode(padded.encode("ascii")))
        if isinstance(key, str) and isinstance(pk, int) and not isinstance(pk, bool) and 0 <= pk < 2**63:
            return key, pk
    except (ValueError, TypeError, binascii.Error, UnicodeError, RecursionError):
        pass
    raise bad_parameters({"cursor": "not a cursor this API returned"})


def _filtered(filters: ModelFilters) -> QuerySet[Model]:
    models = Model.objects.annotate(sort_key=Lower("hub_id"))
    for word in filters.q.split():
        models = models.filter(Q(hub_id__icontains=word) | Q(display_name__icontains=word) | Q(family__icontains=word))
    if filters.family:
        models = models.filter(family__iexact=filters.family)
    if filters.attention:
        models = models.filter(attention_kind__iexact=filters.attention)
    if filters.modality:
        models = models.filter(modality__iexact=filters.modality)
    if filters.moe is not None:
        models = models.filter(is_moe=filters.moe)
    return models


def model_page(filters: ModelFilters, limit: int, cursor: str | None) -> tuple[list[Model], str | None]:
    """One page of models after ``cursor`` and the cursor of the next page (None on the last)."""
    models = _filtered(filters)
    if cursor:
        key, pk = decode_cursor(cursor)
        models = models.filter(Q(sort_key__gt=key) | Q(sort_key=key, id__gt=pk))
    rows = list(models.order_by("sort_key", "id")[: limit + 1])
    if len(rows) <= limit:
        return rows, None
    last = rows[limit - 1]
    return rows[:limit], encode_cursor(last.hub_id.lower(), last.pk)


def model_summary(model: Model) -> dict[str, Any]:
    return {
        "id": model.hub_id,
        "display_name": model.display_name,
        "family": model.family,
        "params_total": model.params_total,
        "params_active": model.params_active,
        "is_moe": model.is_moe,
        "attention_kind": model.attention_kind,
        "max_context": model.max_context,
        "modality": model.modality,
        "licence": model.licence,
        "release_date": model.release_date,
    }


def model_detail(model: Model) -> dict[str, Any]:
    facts = model_facts(model)
    taken: set[str] = set()
    builds = [
        {
            "key": build_key(b.label, taken),
            "format": b.format,
            "label": b.label,
            "repo_id": b.repo_id,
            "bits_per_weight": float(b.bits_per_weight) if b.bits_per_weight is not None else None,
            "file_size_bytes": b.file_size_bytes,
            "size_is_approximate": b.size_is_approximate,
            "min_ram_bytes": b.min_ram_bytes,
        }
        for b in facts.builds
    ]
    return {
        **model_summary(model),
        "organisation": model.organisation,
        "params_total_source": model.params_total_source,
        "params_active_source": model.params_active_source,
        "model_type": model.model_type,
        "num_layers": model.num_layers,
        "native_dtype": model.native_dtype,
        "experts_routed": model.experts_routed,
        "experts_per_token": model.experts_per_token,
        "experts_shared": model.experts_shared,
        "modalities": list(model.modalities or []),
        "hub_sha": model.hub_sha,
        "sources": list(model.sources or []),
        "builds": builds,
        "page_url": model.get_absolute_url(),
    }
