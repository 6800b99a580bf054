"""Keys the catalog sorts and searches models by: people read "Qwen3-4B" before "Qwen3-14B" and "allenai" beside
"Qwen" whatever the case, and type "gptoss" or "llama 3.1 8b" for gpt-oss and Llama-3.1-8B. Pure Python."""

from __future__ import annotations

import re

_DIGITS = re.compile(r"\d+")
_NOT_ALNUM = re.compile(r"[^0-9a-z]+")
NUMBER_WIDTH = 8  # digit runs are zero-padded to this width, so "4" sorts before "14" as text


def natural_key(text: str) -> str:
    """'Qwen/Qwen3-4B' → 'qwen/qwen00000003-00000004b': lower case, numbers compared by value."""
    return _DIGITS.sub(lambda m: m.group(0).zfill(NUMBER_WIDTH), text.lower())


def compact(text: str) -> str:
    """'Llama-3.1 8B' → 'llama318b': what a search compares, letters and digits only, lower case."""
    return _NOT_ALNUM.sub("", text.lower())


def search_text(*parts: str) -> str:
    """Every part compacted, separated by a space (a word of the query must fall inside one part)."""
    return " ".join(compact(part) for part in parts if part)
