"""Readers' names for the Hub's ids of licences and pipeline tasks: "MIT", "Llama 3.1 Community Licence", "Image and
text to text" instead of ``mit``, ``llama3.1`` and ``image-text-to-text``.

The ids are the Hub's (the licence ids of its model cards, https://huggingface.co/docs/hub/repositories-licenses,
and its pipeline tags); an id not listed here is shown as the Hub writes it.
"""

from __future__ import annotations

import re

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

LICENCE_NAMES: dict[str, str | Promise] = {
    "apache-2.0": "Apache 2.0",
    "mit": "MIT",
    "modified-mit": _("Modified MIT"),
    "bsd-3-clause": "BSD 3-Clause",
    "cc-by-4.0": "CC BY 4.0",
    "cc-by-sa-4.0": "CC BY-SA 4.0",
    "cc-by-nc-4.0": "CC BY-NC 4.0",
    "cc-by-nc-sa-4.0": "CC BY-NC-SA 4.0",
    "openrail": "OpenRAIL",
    "creativeml-openrail-m": "CreativeML OpenRAIL-M",
    "bigscience-openrail-m": "BigScience OpenRAIL-M",
    "llama2": _("Llama 2 Community Licence"),
    "llama3": _("Llama 3 Community Licence"),
    "llama3.1": _("Llama 3.1 Community Licence"),
    "llama3.2": _("Llama 3.2 Community Licence"),
    "llama3.3": _("Llama 3.3 Community Licence"),
    "llama4": _("Llama 4 Community Licence"),
    "gemma": _("Gemma Terms of Use"),
    "deepseek": _("DeepSeek Model Licence"),
    "qwen": _("Qwen Licence"),
    "other": _("Other licence"),
    "unknown": _("Unknown licence"),
}

TASK_NAMES: dict[str, Promise] = {
    "text-generation": _("Text generation"),
    "image-text-to-text": _("Image and text to text"),
    "image-to-text": _("Image to text"),
    "visual-question-answering": _("Visual question answering"),
    "any-to-any": _("Any to any"),
    "text2text-generation": _("Text to text generation"),
    "feature-extraction": _("Feature extraction"),
}


def licence_name(licence: str) -> str:
    """The reader's name of a Hub licence id ("llama3.1" → "Llama 3.1 Community Licence"); other text as it is."""
    if not licence:
        return ""
    named = LICENCE_NAMES.get(licence.strip().lower())
    return str(named) if named is not None else licence


def task_name(task: str) -> str:
    """The reader's name of a Hub pipeline tag ("image-text-to-text" → "Image and text to text")."""
    if not task:
        return ""
    named = TASK_NAMES.get(task.strip().lower())
    return str(named) if named is not None else task


# A commit a recorded text pins ("org/repo@f12e0fe…", "commit d99724f2"): the link carries it, the reader reads past it.
_PINNED = re.compile(r"@[0-9a-f]{7,40}\b")
_COMMIT = re.compile(r"\s*\bcommit [0-9a-f]{7,40}\b,?")
_TASK_TAGS = re.compile(r"(?<![\w/-])(" + "|".join(re.escape(tag) for tag in TASK_NAMES) + r")(?![\w/-])")


def recorded_text(text: str) -> str:
    """A text recorded from a source (a fact's value, how a source is cited) as a reader reads it: without commit
    hashes, and with the Hub's pipeline tags by their names ("vision (image-text-to-text)" → "vision (Image and text
    to text)")."""
    if not text:
        return text
    text = _COMMIT.sub("", _PINNED.sub("", text))
    return _TASK_TAGS.sub(lambda tag: str(TASK_NAMES[tag.group(1)]), text)
