"""Models beside a page: the home page's featured models and the models similar to one."""

from __future__ import annotations

import math
from dataclasses import dataclass

from models_catalog.models import Model

from .listing import models_list


@dataclass(frozen=True, slots=True)
class FeaturedModel:
    url: str
    markdown_url: str  # the page's Markdown twin: the page's path with ".md" for its closing slash
    display_name: str
    hub_id: str
    params_billions: float | None  # the page formats it for the reader's locale
    is_moe: bool


def featured_models(limit: int = 12) -> list[FeaturedModel]:
    """A few catalog models for the home page, largest first."""
    featured = []
    for m in models_list(sort="size")[:limit]:
        url = m.url
        featured.append(
            FeaturedModel(
                url=url,
                markdown_url=url.rstrip("/") + ".md",
                display_name=m.display_name,
                hub_id=m.hub_id,
                params_billions=m.params_total / 1e9 if m.params_total else None,
                is_moe=bool(m.is_moe),
            )
        )
    return featured


@dataclass(frozen=True, slots=True)
class SimilarModel:
    url: str
    display_name: str
    params_billions: float | None
    is_moe: bool
    attention_kind: str
    hub_id: str


def similar_models(model: Model, limit: int = 6) -> list[SimilarModel]:
    """Catalog models of similar size (within 2.5× either way), the same kind (MoE or dense) and attention first."""
    total = model.params_total
    if not total:
        return []
    candidates = Model.objects.exclude(pk=model.pk).filter(params_total__gte=total / 2.5, params_total__lte=total * 2.5)
    sized = [
        (m, m.params_total)
        for m in candidates.only("hub_id", "display_name", "params_total", "is_moe", "attention_kind")
        if m.params_total
    ]

    def distance(candidate: tuple[Model, int]) -> tuple[bool, bool, float]:
        other, other_total = candidate
        size = abs(math.log(other_total / total))
        return (other.is_moe != model.is_moe, other.attention_kind != model.attention_kind, size)

    chosen = sorted(sized, key=distance)
    return [
        SimilarModel(m.url, m.display_name, params / 1e9, bool(m.is_moe), m.attention_kind, m.hub_id)
        for m, params in chosen[:limit]
    ]
