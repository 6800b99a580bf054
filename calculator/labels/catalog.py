"""The catalog's facts in the reader's words: attention layouts, architecture families, where a fact comes from,
and the architecture reader's notes on a model (``SpecNote``) with their figures in the reader's locale."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from datetime import date
from decimal import Decimal

from babel.dates import format_skeleton
from babel.numbers import format_decimal
from django.utils.functional import Promise
from django.utils.translation import get_language, gettext, to_locale
from django.utils.translation import gettext_lazy as _

from models_catalog.architecture import NoteKey, SpecNote
from models_catalog.architecture.notes import NoteValue
from models_catalog.naming import natural_key
from models_catalog.reader_names import recorded_text

from .choices import in_words

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


def family_options(keys: Iterable[str]) -> list[tuple[str, str]]:
    """The catalog's family filter as (key, name) pairs in the order of the names the reader sees, case and numbers
    as a reader compares them ("Llama", "Llama 3.2 Vision", "Llama 4"); "other architecture" last, in any language."""
    named = [(key, family_name(key)) for key in keys if key]
    return sorted(named, key=lambda option: (option[0] == "generic", natural_key(option[1]), option[0]))


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
    return recorded_text(gettext(text)) if text else text


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
    "nvfp4": _("NVFP4 packing and FP8 scales"),
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
