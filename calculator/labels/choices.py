"""The calculator's settings in the reader's words: modes, optimizers, frameworks, precisions, engines, release
lines and the form's field names (the core keeps only keys)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from calculator.estimation import ENGINES, PRECISIONS

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

# The fine-tuning frameworks of calculator/estimation/memory/frameworks.py, as the page's select names them.
FRAMEWORK_LABELS = {
    "transformers": _("Hugging Face Transformers + PEFT"),
    "trl": _("Hugging Face TRL (SFTTrainer)"),
    "torchtune": _("torchtune"),
    "unsloth": _("Unsloth"),
    "deepspeed": _("DeepSpeed ZeRO / FSDP"),
    "deepspeed_offload": _("DeepSpeed ZeRO-Offload (CPU)"),
}
# The same, short enough for the select's box on a phone (the setting line above the answer says the full name).
FRAMEWORK_SELECT_LABELS = {
    **FRAMEWORK_LABELS,
    "transformers": _("HF Transformers + PEFT"),
    "trl": _("HF TRL (SFTTrainer)"),
    "deepspeed_offload": _("DeepSpeed CPU offload"),
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
    "release": _("vLLM version"),
    "sglang": _("SGLang version"),
    "llamacpp": _("llama.cpp build"),
    "mlx_lm": _("MLX-LM version"),
    "batch": _("Batch size"),
    "seq": _("Sequence length"),
    "rank": _("LoRA rank"),
    "optimizer": _("Optimizer"),
    "checkpointing": _("Gradient checkpointing"),
    "mtp": _("Speculative decoding with its MTP layer"),
    "gpu": _("GPU"),
    "gpus": _("Number of GPUs"),
    "ratio": _("Input tokens per output token"),
    "tps": _("Tokens/s per request, at least"),
    "cached": _("Cached input share"),
    "framework": _("Fine-tuning framework"),
    "rig": _("Your GPU"),
    "rig_gpus": _("How many"),
    "ram": _("System RAM (GB)"),
    "macos": _("macOS version"),
}

MACOS_LABELS = {
    "15": _("macOS 15 or earlier"),
    "26": _("macOS 26 or later"),
}


def in_words(table: Mapping[str, Any], key: str) -> str:
    """The reader's words for a stored key from one of the tables here; the key itself when the table lacks it."""
    return str(table.get(key, key))


def mode_label(mode: object) -> str:
    key = str(getattr(mode, "value", mode))
    return in_words(MODE_LABELS, key)


def precision_name(key: str) -> str:
    found = PRECISIONS.get(key)
    return found.label if found else key


def engine_name(key: str) -> str:
    found = ENGINES.get(key)
    return found.name if found else key


def field_label(name: str) -> str:
    return str(FIELD_LABELS.get(name, name))


def requests_phrase(count: int) -> str:
    """'1 concurrent request' / '4 concurrent requests', in the reader's language."""
    return ngettext("%(num)s concurrent request", "%(num)s concurrent requests", count) % {"num": count}


def release_line_label(label: str) -> str:
    """A release line's label (engine_releases.py, English there) in the reader's language: "SGLang 0.5.3 and later"
    → "SGLang 0.5.3 und neuer"; ranges ("vLLM 0.20–0.25") read the same in every language."""
    suffix = " and later"
    if label.endswith(suffix):
        return str(_("%(first)s and later") % {"first": label.removesuffix(suffix)})
    return label
