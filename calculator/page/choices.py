"""What the calculator form offers for one model: precisions (with its published builds) and hardware."""

from __future__ import annotations

from collections.abc import Sequence

from calculator.page.inputs import Build, precision_label
from calculator.state import MAC_MEMORY_GIB, MAC_PREFIX, Choice, PageChoices
from pricing.gpus import GpuSpec

from .gpus import INVERSE_GPU_SEGMENTS

FORM_PRECISIONS: tuple[str, ...] = ("fp16", "fp8", "int8", "int4", "awq", "q8_0", "q4_k_m", "nf4", "mlx-4bit")


def page_choices(
    max_context: int | None, builds: Sequence[Build], gpus: Sequence[GpuSpec], *, released: str = "fp16"
) -> PageChoices:
    """The form's choices; ``released`` (``released_precision`` of the model's native dtype) is the default
    precision, offered even where it is not one of the usual ones (MXFP4)."""
    keys = FORM_PRECISIONS if released in FORM_PRECISIONS else (released, *FORM_PRECISIONS)
    precisions = [Choice(p, precision_label(p)) for p in keys]
    precisions += [Choice(b.key, b.label) for b in builds if b.file_size_bytes]
    hardware = [Choice(g.slug, g.name) for g in gpus if g.segment in INVERSE_GPU_SEGMENTS]
    hardware += [Choice(f"{MAC_PREFIX}{gib}", f"Mac {gib} GB") for gib in MAC_MEMORY_GIB]
    return PageChoices(
        precisions=tuple(precisions), max_context=max_context, default_precision=released, gpus=tuple(hardware)
    )
