"""The architecture summary the catalog filters and sorts on, read through `ModelSpec.from_hf_config`."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from models_catalog.architecture import AttentionKind, ModelSpec, ParamCounts

logger = logging.getLogger(__name__)

# Without these a decoder's memory cannot be computed (read from the config or its text_config); other gaps
# (vocab_size, head_dim, …) ModelSpec fills with marked estimates.
REQUIRED_KEYS = ("hidden_size", "num_hidden_layers", "num_attention_heads")


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


def missing_keys(config: Mapping[str, Any]) -> list[str]:
    text = config.get("text_config") if isinstance(config.get("text_config"), Mapping) else {}
    missing = []
    for key in REQUIRED_KEYS:
        if key in config or key in text:
            continue
        # Some families name them differently (GPT-2 / Falcon style); accept the common aliases.
        aliases = {
            "hidden_size": ("n_embd", "d_model"),
            "num_hidden_layers": ("n_layer", "num_layers"),
            "num_attention_heads": ("n_head", "num_heads"),
        }.get(key, ())
        if any(a in config or a in text for a in aliases):
            continue
        missing.append(key)
    return missing


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
    config = record.config
    if not config:
        return ArchitectureSummary(missing="no config.json")
    missing = missing_keys(config)
    if missing:
        return ArchitectureSummary(
            model_type=str(config.get("model_type") or ""), missing="config.json has no " + ", ".join(missing)
        )
    try:
        computed = ModelSpec.from_hf_config(config)
        spec = ModelSpec.from_hf_config(
            config,
            ParamCounts(
                total=record.params_total,
                active=record.params_active,
                by_dtype=record.params_by_dtype,
                source=record.params_total_source or "computed",
            ),
        )
    except NotImplementedError:
        return ArchitectureSummary(model_type=str(config.get("model_type") or ""))
    except (KeyError, ValueError, TypeError, ZeroDivisionError) as exc:
        logger.info("cannot size %s: %s", record.hub_id, exc)
        return ArchitectureSummary(
            model_type=str(config.get("model_type") or ""), missing=f"config.json could not be read ({exc})"
        )
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
        params_computed=computed.components.total or None,
        params_active_computed=computed.params_active or None,
        notes=tuple(spec.notes),
    )
