"""What an estimate's figures say in words: what bounds a speed, a Mac's verdict, which figure a published
measurement checks, and where a launch command's weights come from."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from calculator.estimation.engines.sourcing import WeightsSource

from .choices import engine_name, in_words, precision_name

LIMITS = {
    "gpu_bandwidth": _("GPU bandwidth"),
    "ram_bandwidth": _("RAM bandwidth"),
    "overhead": _("per-step overhead"),
    "unknown": _("unknown"),
}


def limit_label(key: str) -> str:
    return in_words(LIMITS, key)


VERDICTS = {
    "fits": _("Fits as it is"),
    "raise": _("Fits after raising the GPU memory limit"),
    "no": _("Does not fit"),
}


ACCURACY_LABELS = {
    "memory": _("memory"),
    "decode": _("speed per request"),
    "load": _("throughput under load"),
    "finetune": _("fine-tuning peak"),
}


def accuracy_label(what: str) -> str:
    """What an error band on the model page checks: "memory", "speed per request", …"""
    return in_words(ACCURACY_LABELS, what)


# Where a launch command's weights come from (calculator/estimation/engines/sourcing.py), or why there is no command.
SOURCE_TEXTS = {
    "released": _("The weights are the model’s own repository, %(repo)s, as released (%(precision)s)."),
    "published": _("The weights are the published build %(repo)s (%(label)s)."),
    "published_shared": _(
        "The weights are the published build %(label)s in %(repo)s; the repository holds several builds, so load "
        "the %(label)s one as its model card describes."
    ),
    "bitsandbytes": _(
        "%(engine)s quantizes the released 16-bit weights to 4-bit NF4 as it loads them (--quantization bitsandbytes)."
    ),
    "on_the_fly": _(
        "%(engine)s casts the released 16-bit weights to %(precision)s as it loads them (--quantization %(method)s)."
    ),
    "converted": _(
        "No published %(precision)s build of this model is known to us: the first lines download the released "
        "16-bit weights and convert them with the engine’s own tools."
    ),
    "converted_release": _(
        "No published %(precision)s build of this model is known to us: the first lines download the release and "
        "convert it with llama.cpp’s tools, which keep its %(released)s weights as they are."
    ),
    "converted_calibrated": _(
        "No published %(precision)s build of this model is known to us: the first lines download the released "
        "16-bit weights and convert them with llama.cpp’s tools. This type needs an importance matrix: put a few "
        "hundred kilobytes of text like yours in calibration.txt first."
    ),
    "no_wider_build": _(
        "No command: the model is released in %(released)s and no 16-bit build of it is published. Choose "
        "%(released)s, the precision it ships in."
    ),
    "wrong_format": _(
        "No command: %(precision)s is not a format we start %(engine)s with (GGUF files run on llama.cpp and "
        "Ollama, MLX folders on Apple silicon, AWQ, GPTQ and FP8 checkpoints on vLLM and SGLang)."
    ),
    "not_from_release": _(
        "No command: no published %(precision)s build of this model is known to us, and the converters start from "
        "16-bit weights while it is released in %(released)s."
    ),
    "no_engine_build": _(
        "No command: no published %(engine)s build of this model is known to us, and we know of no documented way "
        "to convert its %(released)s release for %(engine)s."
    ),
    "no_build": _(
        "No command: no published %(precision)s build of this model is known to us, and %(engine)s does not make "
        "one as it loads the weights. Choose the precision it ships in or one of its published builds."
    ),
}


def weights_source_text(source: WeightsSource) -> str:
    """Where a launch command's weights come from, or why there is no command, in one sentence."""
    values = {
        "engine": engine_name(source.engine),
        "precision": precision_name(source.precision),
        "released": precision_name(source.released),
        "repo": source.repo,
        "label": source.label,
        "method": source.quantization,
    }
    if source.missing is not None:
        key = source.missing.value
    elif source.quantization == "bitsandbytes":
        key = "bitsandbytes"
    elif source.shared_repo:
        key = "published_shared"
    elif source.needs_calibration:
        key = "converted_calibrated"
    elif source.kind.value == "converted" and source.released != "fp16":  # an MXFP4 release converted as it is
        key = "converted_release"
    else:
        key = source.kind.value
    text = SOURCE_TEXTS[key]
    return str(text) % values
