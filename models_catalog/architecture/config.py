"""Tolerant reading of a Hugging Face ``config.json`` for ``models_catalog.architecture``.

A config from the Hub (or from a reader's request) may lack keys, hold ``None``, hold strings where numbers
belong, or not be a mapping at all. Every accessor here returns a usable value or a default, and records
which fields fell back to a default so the page can say they are estimated. Pure Python, no Django.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

# No real model has more decoder layers than this; a larger number is treated as garbage so per-layer
# bookkeeping stays bounded whatever the input holds.
MAX_LAYERS = 4096
# Any dimension beyond this is not a real model width (it would be > 10^15 parameters in one matrix).
MAX_DIM = 1 << 40

_EMPTY: Mapping[str, Any] = {}


def as_mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else _EMPTY


def as_int(value: object, *, minimum: int = 1, maximum: int = MAX_DIM) -> int | None:
    """An integer from an int, an integral float or a numeric string; ``None`` when it is none of those."""
    number: int | None = None
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        number = value
    elif isinstance(value, float):
        if value.is_integer():
            number = int(value)
    elif isinstance(value, str):
        text = value.strip()
        try:
            number = int(text)
        except ValueError:
            try:
                parsed = float(text)
            except ValueError:
                return None
            if parsed.is_integer() and abs(parsed) < 1e18:
                number = int(parsed)
    if number is None or number < minimum or number > maximum:
        return None
    return number


def as_bool(value: object) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value != 0
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return None


def as_str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def as_list(value: object, limit: int = MAX_LAYERS) -> Sequence[Any] | None:
    if isinstance(value, (list, tuple)) and len(value) <= limit:
        return value
    return None


class ConfigReader:
    """Reads one (text) config; falls back to an outer wrapper config for keys the inner one lacks."""

    __slots__ = ("defaulted", "defaults", "inner", "outer")

    def __init__(
        self, inner: Mapping[str, Any], outer: Mapping[str, Any], defaults: Mapping[str, int] = _EMPTY
    ) -> None:
        self.inner = inner
        self.outer = outer
        # transformers config-class defaults for keys a Hub file may leave out; using one is recorded
        self.defaults = defaults
        self.defaulted: list[str] = []

    def raw(self, *keys: str) -> object:
        for source in (self.inner, self.outer):
            for key in keys:
                value = source.get(key)
                if value is not None:
                    return value
        return None

    def has(self, *keys: str) -> bool:
        return self.raw(*keys) is not None

    def num(self, *keys: str, minimum: int = 1, maximum: int = MAX_DIM) -> int | None:
        for source in (self.inner, self.outer):
            for key in keys:
                number = as_int(source.get(key), minimum=minimum, maximum=maximum)
                if number is not None:
                    return number
        for key in keys:
            if key in self.defaults and not self.has(key):
                self.defaulted.append(key)
                return self.defaults[key]
        return None

    def flag(self, *keys: str) -> bool | None:
        for source in (self.inner, self.outer):
            for key in keys:
                flag = as_bool(source.get(key))
                if flag is not None:
                    return flag
        return None

    def text(self, *keys: str) -> str | None:
        for source in (self.inner, self.outer):
            for key in keys:
                text = as_str(source.get(key))
                if text is not None:
                    return text
        return None

    def items(self, *keys: str, limit: int = MAX_LAYERS) -> Sequence[Any] | None:
        for source in (self.inner, self.outer):
            for key in keys:
                items = as_list(source.get(key), limit)
                if items is not None:
                    return items
        return None

    def mapping(self, *keys: str) -> Mapping[str, Any]:
        for source in (self.inner, self.outer):
            for key in keys:
                value = source.get(key)
                if isinstance(value, Mapping):
                    return value
        return _EMPTY


def split_wrapper(config: Mapping[str, Any]) -> tuple[Mapping[str, Any], Mapping[str, Any], Mapping[str, Any]]:
    """(text config, outer config, vision config) of a plain or vision-language config."""
    text = as_mapping(config.get("text_config"))
    if not text:
        # Some wrappers (older LLaVA-style configs) name it differently.
        text = as_mapping(config.get("language_config")) or as_mapping(config.get("llm_config"))
    vision = as_mapping(config.get("vision_config"))
    if text:
        return text, config, vision
    return config, _EMPTY, vision
