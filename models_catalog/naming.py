"""Keys the catalog sorts and searches models by: people read "Qwen3-4B" before "Qwen3-14B" and "gpt-oss" beside
"GLM" whatever the case or the organisation, and type "gptoss" or "llama 3.1 8b" for gpt-oss and Llama-3.1-8B.
Pure Python."""

from __future__ import annotations

import re

_DIGITS = re.compile(r"\d+")
_NOT_ALNUM = re.compile(r"[^0-9a-z]+")
NUMBER_WIDTH = 8  # digit runs are zero-padded to this width, so "4" sorts before "14" as text
# Between the name and the organisation in a name key: below every character a name holds, so "GLM-4.5" sorts
# before "GLM-4.5-Air" (a "/" would sort after the "-").
NAME_ORG_SEPARATOR = "\t"
NAME_KEY_LENGTH = 400  # Model.name_key's max_length


def natural_key(text: str) -> str:
    """'Qwen/Qwen3-4B' → 'qwen/qwen00000003-00000004b': lower case, numbers compared by value."""
    return _DIGITS.sub(lambda m: m.group(0).zfill(NUMBER_WIDTH), text.lower())


def name_key(hub_id: str, display_name: str = "") -> str:
    """'Qwen/Qwen3-4B' → 'qwen00000003-00000004b\tqwen': the catalog's name order, by the name the reader sees (the
    display name, else the part after the slash), then by organisation where two names are the same."""
    organisation, _, name = hub_id.partition("/")
    key = f"{natural_key(display_name or name)}{NAME_ORG_SEPARATOR}{natural_key(organisation)}"
    return key[:NAME_KEY_LENGTH]


def compact(text: str) -> str:
    """'Llama-3.1 8B' → 'llama318b': what a search compares, letters and digits only, lower case."""
    return _NOT_ALNUM.sub("", text.lower())


def search_text(*parts: str) -> str:
    """Every part compacted, separated by a space (a word of the query must fall inside one part)."""
    return " ".join(compact(part) for part in parts if part)
