"""Predictor for published GGUF file sizes (docs/methodology.md §2.6; rules in calculator/estimation/memory/gguf.py)."""

from __future__ import annotations

from calculator.estimation.memory.gguf import gguf_size

from . import Case, predictor
from .kv import case_spec


@predictor("gguf_size")
def gguf_file_bytes(case: Case) -> float:
    """Bytes of the file a case names: the text model (``"file": "text"``, the default) or the vision projector
    (``"file": "mmproj"``), for the llama.cpp file type in ``ftype``."""
    size = gguf_size(case_spec(case), str(case.settings["ftype"]), imatrix=bool(case.settings.get("imatrix", False)))
    if case.settings.get("file", "text") == "mmproj":
        if not size.mmproj_bytes:
            raise LookupError("the model has no vision tower")
        return float(size.mmproj_bytes)
    return float(size.text_bytes)
