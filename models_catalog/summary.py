"""The architecture summary the catalog filters and sorts on, read through `ModelSpec.from_hf_config`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from models_catalog.architecture import AttentionKind, ModelSpec
from models_catalog.specs import SpecUnavailable, spec_from_model


@dataclass(frozen=True, slots=True)
class ArchitectureSummary:
    family: str = ""
    model_type: str = ""
    attention_kind: str = ""
    experts_routed: int = 0
    experts_per_token: int = 0
    experts_shared: int = 0
    num_layers: int | None = None
    native_dtype: str = ""
    max_context: int | None = None
    has_vision: bool = False
    params_computed: int | None = None
    params_active_computed: int | None = None
    notes: tuple[str, ...] = ()
    missing: str = ""  # non-empty when the config is not one we can size, saying what is missing


def attention_label(spec: ModelSpec) -> str:
    kinds = {g.kind for g in spec.layer_groups if g.count}
    if AttentionKind.LINEAR in kinds and len(kinds) > 1:
        return "linear-hybrid"
    if AttentionKind.LINEAR in kinds:
        return "linear"
    if AttentionKind.SLIDING in kinds and len(kinds) > 1:
        return "sliding-hybrid"
    if AttentionKind.SLIDING in kinds:
        return "sliding"
    if AttentionKind.MLA in kinds:
        return "mla+sparse" if any(g.indexer_dim for g in spec.layer_groups) else "mla"
    if spec.num_kv_heads and spec.num_kv_heads == spec.num_attention_heads:
        return "mha"
    if spec.num_kv_heads == 1:
        return "mqa"
    return "gqa"


def summarise(record: Any) -> ArchitectureSummary:
    """Summary fields and computed counts of a `records.ModelRecord` (empty, with `missing`, if unsizable)."""
    try:
        spec = spec_from_model(record)
    except SpecUnavailable as unavailable:
        model_type = str(record.config.get("model_type") or "") if isinstance(record.config, Mapping) else ""
        return ArchitectureSummary(model_type=model_type, missing=str(unavailable))
    return ArchitectureSummary(
        family=spec.family,
        model_type=spec.model_type,
        attention_kind=attention_label(spec),
        experts_routed=spec.experts_routed,
        experts_per_token=spec.experts_per_token,
        experts_shared=spec.experts_shared,
        num_layers=spec.num_layers,
        native_dtype=spec.native_dtype,
        max_context=spec.max_context,
        has_vision=spec.has_vision,
        params_computed=spec.components.total or None,
        params_active_computed=spec.params_active_computed or None,
        notes=tuple(note.text for note in spec.notes),
    )
