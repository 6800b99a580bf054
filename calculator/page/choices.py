"""What the calculator form offers for one model: precisions (with its published builds) and hardware."""

from __future__ import annotations

from collections.abc import Sequence

from calculator.page.inputs import Build, precision_label
from calculator.state import MAC_MEMORY_GIB, MAC_PREFIX, Choice, PageChoices
from pricing.gpus import GpuSpec

from .gpus import CARD_SEGMENTS

# The generic precisions, then every format an engine loads (checkpoint formats, GGUF file types llama.cpp and Ollama
# run, MLX widths), widest first within each. MXFP4 is offered where the model ships it (it quantizes MoE experts).
FORM_PRECISIONS: tuple[str, ...] = (
    "fp16",
    "fp8",
    "int8",
    "int4",
    "w8a8",
    "awq",
    "gptq",
    "nf4",
    "q8_0",
    "q6_k",
    "q5_k_m",
    "q4_k_m",
    "iq4_xs",
    "q3_k_m",
    "q2_k",
    "iq2_xxs",
    "mlx-8bit",
    "mlx-6bit",
    "mlx-4bit",
    "mlx-3bit",
    "mlx-2bit",
)


def gpu_choice_labels(gpus: Sequence[GpuSpec]) -> list[str]:
    """What a select shows for each GPU, short enough for its box: the short name ("RTX PRO 6000 96GB") where it
    names one GPU of the list, else the full name without the vendor (every catalog GPU has a short name of its own
    since form factors were told apart; a list from elsewhere may still share one)."""
    counts: dict[str, int] = {}
    for gpu in gpus:
        counts[gpu.short_name] = counts.get(gpu.short_name, 0) + 1
    labels = []
    for gpu in gpus:
        if gpu.short_name and counts[gpu.short_name] == 1:
            labels.append(gpu.short_name)
        else:
            name = gpu.name.split(" (", 1)[0]
            for prefix in ("NVIDIA ", "AMD ", "GeForce "):
                name = name.removeprefix(prefix)
            labels.append(name)
    return labels


def page_choices(
    max_context: int | None,
    builds: Sequence[Build],
    gpus: Sequence[GpuSpec],
    *,
    released: str = "fp16",
    mtp_layers: int = 0,
) -> PageChoices:
    """The form's choices; ``released`` (``released_precision`` of the model's native dtype) is the default
    precision, offered even where it is not one of the usual ones (MXFP4)."""
    keys = FORM_PRECISIONS if released in FORM_PRECISIONS else (released, *FORM_PRECISIONS)
    precisions = [Choice(p, precision_label(p)) for p in keys]
    precisions += [Choice(b.key, b.label) for b in builds if b.file_size_bytes]
    listed = [g for g in gpus if g.segment in CARD_SEGMENTS]
    hardware = [Choice(g.slug, label) for g, label in zip(listed, gpu_choice_labels(listed), strict=True)]
    hardware += [Choice(f"{MAC_PREFIX}{gib}", f"Mac {gib} GB") for gib in MAC_MEMORY_GIB]
    return PageChoices(
        precisions=tuple(precisions),
        max_context=max_context,
        default_precision=released,
        gpus=tuple(hardware),
        mtp_layers=mtp_layers,
    )
