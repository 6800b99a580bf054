"""Reader-facing names of the calculator's choices, in the message catalog (the core keeps only keys)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from datetime import date
from decimal import Decimal
from typing import Any

from babel.dates import format_skeleton
from babel.numbers import format_decimal
from django.utils.functional import Promise
from django.utils.translation import get_language, gettext, ngettext, to_locale
from django.utils.translation import gettext_lazy as _

from calculator.estimation import ENGINES, PRECISIONS
from calculator.estimation.engines.sourcing import WeightsSource
from calculator.estimation.speed.serving import Sustained
from calculator.formatting import format_day, format_number
from models_catalog.architecture import NoteKey, SpecNote
from models_catalog.architecture.notes import NoteValue
from pricing.offers import StaleOffers

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


# How an offer is sold and how a provider's last price refresh ended, as pricing stores them (pricing/offers.py,
# PriceSnapshot.Outcome), in the reader's words.
PRICING_KINDS = {
    "on-demand": _("on demand"),
    "spot": _("spot (interruptible)"),
    "community": _("community cloud"),
    "reserved": _("reserved"),
}
REFRESH_OUTCOMES = {
    "success": _("new prices"),
    "unchanged": _("prices unchanged"),
    "empty": _("no offers returned"),
    "failed": _("failed"),
}


def pricing_kind_label(key: str) -> str:
    return in_words(PRICING_KINDS, key)


def refresh_outcome_label(key: str) -> str:
    return in_words(REFRESH_OUTCOMES, key)


ACCURACY_LABELS = {
    "memory": _("memory"),
    "decode": _("speed per request"),
    "load": _("throughput under load"),
    "finetune": _("fine-tuning peak"),
}


PLAN_LIMITS = {
    "tpot": _("limited by the time per token"),
    "ttft": _("limited by the time to first token"),
    "memory": _("limited by the KV cache"),
    "sequences": _("limited by the engine's request limit"),
    "budget": _("limited by the tokens per step"),
}


# The planner's three ways to serve: as the subject of "… cost less than …", and as a chart legend
PLAN_KINDS = {
    "api": _("hosted APIs"),
    "rented": _("rented GPUs"),
    "owned": _("owned servers"),
}
PLAN_KIND_LEGENDS = {
    "api": _("API"),
    "rented": _("Rented GPUs"),
    "owned": _("Owned servers"),
}


def plan_kind_label(kind: str) -> str:
    return in_words(PLAN_KINDS, kind)


def plan_kind_legend(kind: str) -> str:
    return in_words(PLAN_KIND_LEGENDS, kind)


def plan_limit_label(limit: str) -> str:
    """What stops a replica from running more requests at once, in words."""
    return in_words(PLAN_LIMITS, limit)


def accuracy_label(what: str) -> str:
    """What an error band on the model page checks: "memory", "speed per request", …"""
    return in_words(ACCURACY_LABELS, what)


def mode_label(mode: object) -> str:
    key = str(getattr(mode, "value", mode))
    return in_words(MODE_LABELS, key)


def precision_name(key: str) -> str:
    found = PRECISIONS.get(key)
    return found.label if found else key


def engine_name(key: str) -> str:
    found = ENGINES.get(key)
    return found.name if found else key


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
    else:
        key = source.kind.value
    text = SOURCE_TEXTS[key]
    return str(text) % values


# The attention layout a catalog entry records (models_catalog.summary.attention_label), as readers name it.
ATTENTION_NAMES: dict[str, Promise] = {
    "mha": _("MHA (multi-head)"),
    "gqa": _("GQA (grouped-query)"),
    "mqa": _("MQA (multi-query)"),
    "mla": _("MLA (latent)"),
    "mla+sparse": _("MLA (latent) + sparse"),
    "sliding": _("sliding window"),
    "sliding-hybrid": _("sliding window + full"),
    "linear": _("linear"),
    "linear-hybrid": _("linear + full"),
}


def attention_name(key: str) -> str:
    return in_words(ATTENTION_NAMES, key)


# The architecture a catalog entry records as its family (the config's ``model_type``) as readers name it: names of
# architectures, the same in every language; one type may serve several releases (glm4_moe: GLM-4.5 to GLM-4.7).
# A model type not listed here reads by the rule in family_name().
FAMILY_NAMES: dict[str, str] = {
    "deepseek_v2": "DeepSeek-V2",
    "deepseek_v3": "DeepSeek-V3",
    "deepseek_v32": "DeepSeek-V3.2",
    "gemma2": "Gemma 2",
    "gemma3": "Gemma 3",
    "gemma3_text": "Gemma 3",
    "glm4_moe": "GLM-4 MoE",
    "glm4_moe_lite": "GLM-4 MoE Lite",
    "glm4v_moe": "GLM-4V MoE",
    "glm5_next": "GLM-5 Next",
    "glm5_next_text": "GLM-5 Next",
    "glm_moe_dsa": "GLM MoE (sparse attention)",
    "gpt_oss": "gpt-oss",
    "kimi_k2": "Kimi K2",
    "llama": "Llama",
    "llama4": "Llama 4",
    "llama4_text": "Llama 4",
    "minimax_m2": "MiniMax-M2",
    "mistral": "Mistral",
    "mixtral": "Mixtral",
    "mllama": "Llama 3.2 Vision",
    "olmo3": "OLMo 3",
    "phi3": "Phi-3 / Phi-4",
    "qwen2": "Qwen2",
    "qwen2_5_vl": "Qwen2.5-VL",
    "qwen3": "Qwen3",
    "qwen3_moe": "Qwen3 MoE",
    "qwen3_next": "Qwen3-Next",
}
_FAMILY_WORDS = {"moe": "MoE", "vl": "VL", "oss": "OSS", "glm": "GLM", "gpt": "GPT", "deepseek": "DeepSeek"}


def family_name(key: str) -> str:
    """``qwen3_moe`` → "Qwen3 MoE". Unlisted types: words split at underscores, known abbreviations upper-cased,
    the rest capitalised ("falcon_h1" → "Falcon H1")."""
    if not key:
        return ""
    if key == "generic":  # the reader found no known layout: a config sized by its generic fields
        return str(_("other architecture"))
    if key in FAMILY_NAMES:
        return FAMILY_NAMES[key]
    words = [w for w in key.replace("-", "_").split("_") if w]
    return " ".join(_FAMILY_WORDS.get(w.lower(), w[:1].upper() + w[1:]) for w in words)


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
    return data_text(text)


def data_text(text: str) -> str:
    """A text our data files hold (a build's quality note, how a document is cited) in the reader's language where
    the message catalog has it (``reference_facts.json`` texts are extracted into it); any other text as it is."""
    return gettext(text) if text else text


# The architecture reader's notes on a model (a key and figures in the pure core), as the reader's language says them.
# Every NoteKey has a message here (tests/calculator/test_labels.py); the figures fill its %(name)s placeholders.
NOTE_MESSAGES: dict[str, Promise] = {
    NoteKey.ACTIVE_MOE: _(
        "The active count we compute covers what one token multiplies: attention, norms, the router, the shared "
        "experts and the routed experts it is sent to, and the output head; the input embedding table is left "
        "out (one row is read per token), as OpenAI counts for gpt-oss."
    ),
    NoteKey.ACTIVE_MOE_TIED: _(
        "The active count we compute covers what one token multiplies: attention, norms, the router, the shared "
        "experts and the routed experts it is sent to, and the tied embedding, read in full as the output head."
    ),
    NoteKey.ACTIVE_DENSE: _(
        "The active count we compute covers what one token multiplies: attention, norms, the MLP and the output "
        "head; the input embedding table is left out (one row is read per token), as OpenAI counts for gpt-oss."
    ),
    NoteKey.ACTIVE_DENSE_TIED: _(
        "The active count we compute covers what one token multiplies: attention, norms, the MLP and the tied "
        "embedding, read in full as the output head."
    ),
    NoteKey.MTP_STORED: _(
        "The checkpoint stores %(b)s B parameters of multi-token-prediction layers; engines skip them unless "
        "MTP speculative decoding is on."
    ),
    NoteKey.MTP_NOT_STORED: _(
        "The config declares multi-token-prediction modules that the Hub checkpoint does not store."
    ),
    NoteKey.HUB_ELEMENTS: _(
        "The Hub counts %(stored)s B stored elements, including %(what)s; the checkpoint holds %(b)s B parameters."
    ),
    NoteKey.TIED_HEAD_STORED: _(
        "The checkpoint stores the output head separately although the config says it shares the embedding "
        "table, so the file holds that table twice. Engines load it once, and so do the memory figures here."
    ),
    NoteKey.VISION_ESTIMATED: _(
        "The config does not fully describe the vision tower, so its parameters are a plain-ViT estimate."
    ),
    NoteKey.VISION_NOT_COUNTED: _(
        "The config does not fully describe the vision tower, so its parameters are not counted."
    ),
    NoteKey.MHC_NOT_COUNTED: _(
        "The hyper-connection (mHC) mixing parameters are not counted: the config does not size them."
    ),
    NoteKey.CROSS_ATTENTION: _(
        "Cross-attention layers cache the image tokens' keys and values (per image, not per text token); they "
        "are counted with no per-token cache."
    ),
    NoteKey.CHUNKED_ATTENTION: _(
        "Chunked local attention layers keep at most one chunk (%(n)s tokens), counted as a sliding window."
    ),
    NoteKey.WINDOW_NOT_SHORTER: _(
        "The sliding window (%(n)s tokens) is not shorter than the context, so those layers cache every token."
    ),
    NoteKey.WINDOW_MISSING: _(
        "The config gives the sliding-window layers no window size, so they are counted as full attention."
    ),
    NoteKey.UNKNOWN_ARCHITECTURE: _(
        "Unknown architecture %(model_type)s: read as a standard decoder-only transformer."
    ),
    NoteKey.CONFIG_UNREADABLE: _("This config.json could not be read (%(error)s); all figures are estimates."),
}

# What a quantized release stores besides its parameters (a HUB_ELEMENTS note's method).
_STORED: dict[str, Promise] = {
    "fp8": _("FP8 block-scale tensors"),
    "mxfp4": _("MXFP4 packing and E8M0 scales"),
}


def _billions(count: NoteValue) -> str:
    """A count in billions with two decimals, rounded as the English note rounds it ('7.43'; German '7,43')."""
    return format_decimal(
        Decimal(f"{float(count) / 1e9:.2f}"), format="#,##0.00", locale=to_locale(get_language() or "en")
    )


def _whole(count: NoteValue) -> str:
    return format_decimal(int(count), format="#,##0", locale=to_locale(get_language() or "en"))


def _stored(method: NoteValue) -> str:
    found = _STORED.get(str(method))
    return str(found) if found else gettext("%(method)s packing and scale/zero tensors") % {"method": method}


# A note's parameter → (its placeholder in the message, how the reader's locale writes it).
_NOTE_VALUES: dict[str, tuple[str, Callable[[NoteValue], str]]] = {
    "parameters": ("b", _billions),
    "elements": ("stored", _billions),
    "tokens": ("n", _whole),
    "method": ("what", _stored),
    "model_type": ("model_type", repr),
    "error": ("error", str),
}


def spec_note(note: SpecNote | str) -> str:
    """One of the architecture reader's notes in the reader's language, its numbers in the reader's locale; a note
    without a message here (or a plain text) reads in English as the core writes it."""
    if not isinstance(note, SpecNote):
        return str(note)
    message = NOTE_MESSAGES.get(note.key)
    if message is None:
        return note.text
    values: dict[str, str] = {}
    for name, value in note.params:
        placeholder, written = _NOTE_VALUES.get(name, (name, str))
        values[placeholder] = written(value)
    try:
        return str(message) % values
    except (KeyError, TypeError, ValueError):  # a message whose placeholders this note does not fill
        return note.text


def stale_text(stale: StaleOffers) -> str:
    """One sentence for the stale prices of a table (pricing.offers.stale_offers), said once instead of per row."""
    values: dict[str, int | str] = {"num": stale.count, "total": stale.total}
    if stale.first_seen and stale.last_seen and stale.first_seen != stale.last_seen:
        text = ngettext(
            "%(num)s of these %(total)s prices is stale: seen %(first)s to %(last)s, longer ago than we count as "
            "current or before a refresh that failed.",
            "%(num)s of these %(total)s prices are stale: seen %(first)s to %(last)s, longer ago than we count as "
            "current or before a refresh that failed.",
            stale.count,
        )
        values |= {"first": format_day(stale.first_seen), "last": format_day(stale.last_seen)}
    elif stale.first_seen:
        text = ngettext(
            "%(num)s of these %(total)s prices is stale: seen %(day)s, longer ago than we count as current or before "
            "a refresh that failed.",
            "%(num)s of these %(total)s prices are stale: seen %(day)s, longer ago than we count as current or before "
            "a refresh that failed.",
            stale.count,
        )
        values["day"] = format_day(stale.first_seen)
    else:
        text = ngettext(
            "%(num)s of these %(total)s prices is stale.", "%(num)s of these %(total)s prices are stale.", stale.count
        )
    return text % values


# What stops the sustained batch (calculator/estimation/speed/serving.py) from growing.
SUSTAINED_LIMITS = {
    "memory": _("A larger batch would not fit its KV cache."),
    "latency": _("A larger batch would slow each request below %(floor)s tokens per second."),
    "batch": _("We do not model batches beyond 256 requests."),
}


def sustained_text(sustained: Sustained, floor: int) -> str:
    """How much the configuration generates at the batch it holds, and what stops a larger one."""
    values = {
        "requests": requests_phrase(sustained.concurrency),
        "each": format_number(sustained.per_request_tokens_per_s),
        "rate": format_number(sustained.tokens_per_s),
        "floor": floor,
    }
    if not sustained.meets_floor:
        text = _(
            "Even one request gets only about %(each)s tokens per second here, below your floor of %(floor)s; one "
            "at a time it generates about %(rate)s tokens per second (estimated)."
        )
        return str(text) % values
    text = _(
        "With %(requests)s, each at %(each)s tokens per second or more, it generates roughly %(rate)s tokens per "
        "second in total (estimated)."
    )
    return f"{str(text) % values} {str(SUSTAINED_LIMITS[sustained.limit]) % values}"


# Hosted-API providers as the price file names them (pricing/data/api-prices.json), in the reader's language; names
# alone ("AWS Bedrock us-east-1 (Meta Llama 3.3 70B)") stay as they are.
HOSTED_PROVIDERS: dict[str, Promise] = {
    "Z.ai (vendor list price)": _("Z.ai (vendor list price)"),
    "Z.ai (vendor list price, introductory offer)": _("Z.ai (vendor list price, introductory offer)"),
    "OpenRouter (list price = top provider)": _("OpenRouter (list price = top provider)"),
}
_OPENROUTER_ENDPOINT = "OpenRouter endpoint: "


def hosted_provider(text: str) -> str:
    """A hosted API's provider label in the reader's language."""
    if text in HOSTED_PROVIDERS:
        return str(HOSTED_PROVIDERS[text])
    if text.startswith(_OPENROUTER_ENDPOINT):
        return gettext("OpenRouter endpoint: %(name)s") % {"name": text[len(_OPENROUTER_ENDPOINT) :]}
    return text


# What price adapters write around an offer's name and region (pricing/providers), in the reader's language; the
# providers' product names ("Secure Cloud", "8x H100") stay as they are.
OFFER_PHRASES: dict[str, Promise] = {
    "global marketplace": _("global marketplace"),
    "global (community hosts)": _("global (community hosts)"),
    "global (secure cloud data centers)": _("global (secure cloud data centers)"),
    "global list price": _("global list price"),
    "global": _("global"),
    "marketplace": _("marketplace"),
    "(marketplace, on-demand)": _("(marketplace, on-demand)"),
    "(marketplace, interruptible/bid)": _("(marketplace, interruptible/bid)"),
    "(marketplace, per GPU)": _("(marketplace, per GPU)"),
    # the price snapshot's own words around a provider's SKU (pricing/data/snapshot): RunPod's interruptible pods,
    # and the note on Google Cloud's A100 SKUs
    "spot (interruptible) pod": _("spot (interruptible) pod"),
    "(A100 without '80GB' = 40GB)": _("(A100 without '80GB' = 40GB)"),
}
# Phrases replaced wherever they stand in an offer's name (the rest replace a whole name or region only).
_OFFER_PARTS = frozenset(phrase for phrase in OFFER_PHRASES if phrase.startswith("(") or " pod" in phrase)


def offer_text(text: str) -> str:
    """An offer's name or region with the adapters' own words in the reader's language (the providers' product names,
    "Secure Cloud", "Community Cloud", stay as they are)."""
    if text in OFFER_PHRASES:
        return str(OFFER_PHRASES[text])
    for phrase in _OFFER_PARTS:
        if phrase in text:
            text = text.replace(phrase, str(OFFER_PHRASES[phrase]))
    return text


def release_line_label(label: str) -> str:
    """A release line's label (engine_releases.py, English there) in the reader's language: "SGLang 0.5.3 and later"
    → "SGLang 0.5.3 und neuer"; ranges ("vLLM 0.20–0.25") read the same in every language."""
    suffix = " and later"
    if label.endswith(suffix):
        return str(_("%(first)s and later") % {"first": label.removesuffix(suffix)})
    return label
