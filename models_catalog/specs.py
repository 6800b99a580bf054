"""The one way from stored model data to a `ModelSpec`: a catalog row, or a recorded Hub folder.

Pure Python (no Django import, no database): the `estimate` command and the benchmarks use it without a catalog.
Both ways raise `SpecUnavailable` when the config cannot be sized; anything else about the config that is
missing or odd, `ModelSpec.from_hf_config` fills with marked estimates and never raises.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from models_catalog.architecture import ModelSpec, ParamCounts
from models_catalog.hub_ids import InvalidHubId
from models_catalog.records import (
    RECORDED_AT,
    ModelRecord,
    RecordError,
    load_reference_facts,
    record_from_folder,
    with_reference_facts,
)

if TYPE_CHECKING:
    from models_catalog.models import Model

# Without these a decoder's memory cannot be computed (read from the config or its text_config); other gaps
# (vocab_size, head_dim, …) ModelSpec fills with marked estimates.
REQUIRED_KEYS = ("hidden_size", "num_hidden_layers", "num_attention_heads")
# Some families name them differently (GPT-2 / Falcon style); the common aliases count.
_KEY_ALIASES = {
    "hidden_size": ("n_embd", "d_model"),
    "num_hidden_layers": ("n_layer", "num_layers"),
    "num_attention_heads": ("n_head", "num_heads"),
}


class SpecUnavailable(ValueError):
    """The config cannot be sized; ``str(error)`` is the reason, worded for a reader ("config.json has no …")."""


def missing_keys(config: Mapping[str, Any]) -> list[str]:
    nested = config.get("text_config")
    text: Mapping[str, Any] = nested if isinstance(nested, Mapping) else {}
    return [
        key for key in REQUIRED_KEYS if not any(name in config or name in text for name in (key, *_KEY_ALIASES[key]))
    ]


def param_counts(
    total: int | None,
    active: int | None,
    by_dtype: Mapping[str, int] | None = None,
    source: str = "reference",
    *,
    active_given: bool = False,
) -> ParamCounts | None:
    """Counts known from outside the config, or None when there are none (the spec then computes both);
    ``active_given``: the reader gave the active count, which is then used rather than our own."""
    if total is None and active is None and not by_dtype:
        return None
    return ParamCounts(
        total=total, active=active, by_dtype=by_dtype or None, source=source or "computed", active_given=active_given
    )


def spec_from_config(config: Any, counts: ParamCounts | None = None) -> ModelSpec:
    """Raises SpecUnavailable when there is no config or it lacks a size `REQUIRED_KEYS` names."""
    if not isinstance(config, Mapping) or not config:
        raise SpecUnavailable("no config.json")
    missing = missing_keys(config)
    if missing:
        raise SpecUnavailable("config.json has no " + ", ".join(missing))
    return ModelSpec.from_hf_config(config, counts)


def spec_from_model(model: Model | ModelRecord) -> ModelSpec:
    """The spec of a catalog row (or the record it is saved from), with its chosen parameter counts.

    A count the catalog computed from this same config is left out, so the spec computes it again rather than
    reading it as a published figure. Raises SpecUnavailable.
    """
    total = model.params_total if model.params_total_source != "computed" else None
    active = model.params_active if model.params_active_source != "computed" else None
    given = model.params_active_source == "override"
    counts = param_counts(total, active, model.params_by_dtype, model.params_total_source, active_given=given)
    spec = spec_from_config(model.config, counts)
    if model.native_dtype and "native_dtype" in spec.estimated_fields:
        # a partial config that does not say how the weights ship: the catalog's released precision (a reference
        # page, the repository's files) is the one fact there is
        estimated = tuple(f for f in spec.estimated_fields if f != "native_dtype")
        spec = replace(spec, native_dtype=model.native_dtype, estimated_fields=estimated)
    return spec


def spec_from_recorded_folder(folder: Path, total: int | None = None, active: int | None = None) -> ModelSpec:
    """The spec of a folder laid out like ``models_catalog/data/hub/<org>/<name>/`` (config.json, meta.json).

    The counts are those the catalog would store for it (meta.json, then the reference facts); ``total`` and
    ``active`` replace them as reference figures. Raises SpecUnavailable, also when the folder cannot be read.
    """
    try:
        record = with_reference_facts(record_from_folder(Path(folder), RECORDED_AT), _reference_facts())
    except (RecordError, InvalidHubId) as error:
        raise SpecUnavailable(str(error)) from error
    if total is not None:
        # safetensors dtype counts describe the recorded total, not the one given instead
        record = replace(record, params_total=total, params_total_source="reference", params_by_dtype=None)
    if active is not None:
        record = replace(record, params_active=active, params_active_source="override")
    return spec_from_model(record)


@cache
def _reference_facts() -> dict[str, dict[str, Any]]:
    return load_reference_facts()
