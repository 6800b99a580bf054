"""Reader-facing names of the calculator's choices, in the message catalog (the core keeps only keys)."""

from __future__ import annotations

import re
from datetime import date

from babel.dates import format_skeleton
from django.utils.translation import get_language, ngettext, to_locale
from django.utils.translation import gettext_lazy as _

from calculator.estimation import ENGINES, KV_DTYPES, PRECISIONS

MODE_LABELS = {
    "inference": _("Inference"),
    "lora": _("LoRA fine-tuning"),
    "qlora": _("QLoRA fine-tuning"),
    "full": _("Full fine-tuning"),
}

OPTIMIZER_LABELS = {
    "adamw": _("AdamW (mixed precision)"),
    "adamw_8bit": _("8-bit AdamW (bitsandbytes)"),
    "sgd": _("SGD without momentum"),
}

# What each generic precision means for a reader (the cards "cheapest GPU per precision").
PRECISION_NOTES = {
    "fp16": _("The weights as published. No loss, but the largest need."),
    "fp8": _("Half-size weights in 8-bit floating point; supported natively by Hopper, Blackwell and MI300 GPUs."),
    "int8": _("Half-size weights. Usually no visible difference for chat and RAG."),
    "int4": _("Weights at a quarter of the size. Small losses show first in maths and code."),
}

MODE_CHANGES = {
    "lora_on_4bit_is_qlora": _("LoRA on a 4-bit base is QLoRA: computed as QLoRA."),
    "lora_needs_16bit": _("LoRA trains on 16-bit base weights: computed at FP16 / BF16."),
    "qlora_needs_4bit_base": _("QLoRA quantizes the base weights to 4 bits: computed on a 4-bit base."),
    "full_needs_16bit": _("Full fine-tuning updates 16-bit weights: computed at FP16 / BF16."),
}

FIELD_LABELS = {
    "precision": _("Precision"),
    "mode": _("Deployment"),
    "engine": _("Inference engine"),
    "concurrency": _("Concurrent requests"),
    "context": _("Context length"),
    "kv": _("KV-cache precision"),
    "batch": _("Batch size"),
    "seq": _("Sequence length"),
    "rank": _("LoRA rank"),
    "optimizer": _("Optimizer"),
    "checkpointing": _("Gradient checkpointing"),
    "gpu": _("GPU"),
    "gpus": _("Number of GPUs"),
    "ratio": _("Input tokens per output token"),
    "cached": _("Cached input share"),
}

VERDICTS = {
    "fits": _("Fits as it is"),
    "raise": _("Fits after raising the GPU memory limit"),
    "no": _("Does not fit"),
}


def mode_label(mode: object) -> str:
    key = str(getattr(mode, "value", mode))
    return str(MODE_LABELS.get(key, key))


def precision_name(key: str) -> str:
    found = PRECISIONS.get(key)
    return found.label if found else key


def engine_name(key: str) -> str:
    found = ENGINES.get(key)
    return found.name if found else key


def kv_name(key: str) -> str:
    found = KV_DTYPES.get(key)
    return found.label if found else key


def field_label(name: str) -> str:
    return str(FIELD_LABELS.get(name, name))


def requests_phrase(count: int) -> str:
    """'1 concurrent request' / '4 concurrent requests', in the reader's language."""
    return ngettext("%(num)s concurrent request", "%(num)s concurrent requests", count) % {"num": count}


_HUB_FACTS = re.compile(
    r"^Hugging Face Hub facts for (?P<id>\S+), recorded (?P<day>\d{4}-\d{2}-\d{2}) from its listed sources"
    r"(?: \((?P<what>[^)]*)\))?$"
)
_COUNTED = re.compile(r"^counted layer by layer from the model's config\.json(?P<partial> \(partial config[^)]*\))?$")
_WHAT = {
    "Hub safetensors total": _("the safetensors total"),
    "published figure, as written": _("the published figure, as written"),
    "published figure": _("the published figure"),
}


def source_detail(text: str) -> str:
    """A fact's source detail in the reader's language where we wrote it ourselves; a publication's own title
    stays as published."""
    hub = _HUB_FACTS.match(text)
    if hub:
        day = format_skeleton("yMMMd", date.fromisoformat(hub["day"]), locale=to_locale(get_language() or "en"))
        cited = _("Hugging Face Hub page of %(id)s and the sources it lists, recorded %(day)s") % {
            "id": hub["id"],
            "day": day,
        }
        what = _WHAT.get(hub["what"] or "")
        return f"{cited} ({what})" if what else cited
    counted = _COUNTED.match(text)
    if counted:
        partial = _(" (the config is partial, so some tensors may be missing)") if counted["partial"] else ""
        return str(_("counted layer by layer from the model's config.json")) + str(partial)
    return text
