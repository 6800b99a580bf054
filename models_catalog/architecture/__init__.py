"""What a model is: its architecture, read from a Hugging Face ``config.json``, and its parameter counts.

Pure Python: no Django import, no I/O. ``ModelSpec.from_hf_config`` is the only way in.

The modules import only downward, in this order (``tests/config/test_layering.py`` keeps it so):
``types`` (the shared dataclasses) → ``notes`` (the notes on a model: keys and figures) → ``config`` (tolerant
reading) → ``layers`` (per-layer kinds) → ``params`` (parameter counts) → ``groups`` (cache layouts) → ``quant``
(release dtype, packed storage) → ``vision`` → ``build`` (config to field values) → ``spec`` (``ModelSpec``) → this
package's public names.
"""

from __future__ import annotations

from models_catalog.architecture.notes import NoteKey, SpecNote
from models_catalog.architecture.spec import ModelSpec
from models_catalog.architecture.types import AttentionKind, LayerGroup, ParamBreakdown, ParamCounts

__all__ = ["AttentionKind", "LayerGroup", "ModelSpec", "NoteKey", "ParamBreakdown", "ParamCounts", "SpecNote"]
