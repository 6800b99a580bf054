"""The model page's query string: every calculator state is a permalink, and bad values never break the page.

``parse_state(query, choices)`` reads a ``QueryDict`` into a ``CalculatorState`` and the list of values it
ignored (each with a reason the page shows). Every field has a default and bounds; a value out of range,
malformed, repeated or absurdly long falls back to the default. ``state_query(state)`` writes the state back
with defaults left out, so the canonical URL of the default state is the bare page URL.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from functools import partial
from typing import Any

from django.http import QueryDict
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from calculator import release_names
from calculator.estimation import ENGINES, FRAMEWORKS_KEYS, KV_DTYPES, OPTIMIZERS, Mode
from calculator.estimation.engines.releases import (
    CURRENT_LLAMA_CPP,
    CURRENT_MLX,
    CURRENT_SGLANG,
    CURRENT_VLLM,
    ENGINE_RELEASE_LINES,
)
from calculator.estimation.memory.fit import DEFAULT_MACOS, MACOS_VERSIONS
from calculator.estimation.plan.planner import DEFAULT_MIN_TOKENS_PER_S

MAX_VALUE_CHARS = 64  # longer values are ignored unread (they are never echoed back in full)
MAX_CONTEXT_TOKENS = 1 << 24  # 16M: beyond any released model
MAX_CONCURRENCY = 4096
MAX_BATCH = 512
MAX_LORA_RANK = 1024
MAX_GPUS = 64
MAX_MIN_TOKENS_PER_S = 1000  # a per-request floor above any single-stream speed of today's hardware
MAC_MEMORY_GIB: tuple[int, ...] = (16, 24, 32, 36, 48, 64, 96, 128, 192, 256, 512)
MAC_PREFIX = "mac-"  # a hardware choice that names a Mac by its unified memory: "mac-128"
PRESET_CONTEXTS: tuple[int, ...] = (
    2048,
    4096,
    8192,
    16384,
    32768,
    65536,
    131072,
    262144,
    524288,
    1048576,
    2097152,
    4194304,
)

GENERIC_PRECISIONS: tuple[str, ...] = ("fp16", "fp8", "int8", "int4")
# The precision where no model decides it (a model's page defaults to the one the model is released in).
DEFAULT_PRECISION = "fp16"

_TOKENS = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kKmM]?)\s*$")


def parse_tokens(text: str) -> int | None:
    """'8K' / '8k' → 8192, '128k' → 131072, '1M' → 1048576, '32768' → 32768; None when not a token count.

    K and M are binary here, as context windows are published (a "128K" model takes 131,072 tokens)."""
    match = _TOKENS.match(text)
    if not match:
        return None
    number, unit = float(match.group(1)), match.group(2).lower()
    scale = {"": 1, "k": 1024, "m": 1024 * 1024}[unit]
    value = number * scale
    if not math.isfinite(value) or value != int(value):
        return None
    return int(value)


def tokens_label(tokens: int) -> str:
    """8192 → '8K', 1048576 → '1M', 40960 → '40K', 3000 → '3000' (the short form readers know)."""
    if tokens >= 1024 * 1024 and tokens % (1024 * 1024) == 0:
        return f"{tokens // (1024 * 1024)}M"
    if tokens >= 1024 and tokens % 1024 == 0:
        return f"{tokens // 1024}K"
    return str(tokens)


@dataclass(frozen=True, slots=True)
class Choice:
    value: str
    label: str


@dataclass(frozen=True, slots=True)
class PageChoices:
    """What this model's page offers: precisions (generic and the model's real builds), its context limit."""

    precisions: Sequence[Choice]
    max_context: int | None
    default_precision: str = DEFAULT_PRECISION
    gpus: Sequence[Choice] = ()
    default_gpu: str = "h200-sxm"
    mtp_layers: int = 0  # the model's multi-token-prediction layers: the form offers them as a speculative draft

    @property
    def gpu_choices(self) -> list[Choice]:
        """The GPU types among the hardware choices (a machine of one's own is built from these)."""
        return [c for c in self.gpus if not c.value.startswith(MAC_PREFIX)]

    @property
    def mac_choices(self) -> list[Choice]:
        """The Macs among the hardware choices, by unified memory."""
        return [c for c in self.gpus if c.value.startswith(MAC_PREFIX)]

    def precision_groups(self) -> list[tuple[str, list[Choice]]]:
        """('generic' | 'formats' | 'builds', choices) in form order, empty groups left out."""
        groups: dict[str, list[Choice]] = {"generic": [], "formats": [], "builds": []}
        for choice in self.precisions:
            if choice.value.startswith("build:"):
                groups["builds"].append(choice)
            elif choice.value in GENERIC_PRECISIONS:
                groups["generic"].append(choice)
            else:
                groups["formats"].append(choice)
        return [(name, members) for name, members in groups.items() if members]


@dataclass(frozen=True, slots=True)
class CalculatorState:
    """One state of the calculator. Field names are the query-string names."""

    precision: str = DEFAULT_PRECISION
    mode: str = Mode.INFERENCE.value
    engine: str = "vllm"
    concurrency: int = 1
    context: int = 8192
    kv: str = "fp16"
    mtp: bool = False  # speculative decoding with the model's MTP layers as the draft (vLLM and SGLang)
    release: str = CURRENT_VLLM.key  # vLLM release line (engines/releases.py): what start-up memory it subtracts
    sglang: str = CURRENT_SGLANG.key  # SGLang release line: its default memory reserve
    llamacpp: str = CURRENT_LLAMA_CPP.key  # llama.cpp release line: its caches, fit margin and flags
    mlx_lm: str = CURRENT_MLX.key  # MLX-LM release line: its MLA cache
    # fine-tuning ("more settings")
    batch: int = 1
    seq: int = 0  # tokens per training sample; 0: the context
    rank: int = 8
    optimizer: str = "adamw"
    checkpointing: bool = True
    framework: str = "transformers"  # the most common fine-tuning stack: Hugging Face Transformers + PEFT
    # the inverse question: on this hardware, how long a context / how many requests
    gpu: str = "h200-sxm"
    gpus: int = 1
    # self-host or pay per token: input tokens per generated token, and the share of input the API has cached
    ratio: float = 3.0
    cached: int = 0  # percent
    tps: int = DEFAULT_MIN_TOKENS_PER_S  # tokens/s each request sees at least when throughput is a cost
    # run it yourself: the reader's GPU, how many of it, and the system RAM in GiB (a cookie can set them)
    rig: str = "rtx-4090"
    rig_gpus: int = 1
    ram: int = 64
    macos: str = DEFAULT_MACOS  # the Mac's macOS version: "15" (or earlier) or "26"; sets the GPU's default share

    def release_for(self, engine: str) -> str:
        """The release line this state names for ``engine``; "" for an engine without lines."""
        field = release_field(engine)
        return getattr(self, field) if field else ""

    @property
    def names_older_releases(self) -> bool:
        """Whether any engine's release line is not its current one."""
        return any(
            getattr(self, field) != ENGINE_RELEASE_LINES[engine].current
            for field, (engine, _) in RELEASE_FIELDS.items()
        )

    def with_defaults_of(self, choices: PageChoices) -> CalculatorState:
        return replace(self, precision=choices.default_precision, gpu=choices.default_gpu)


@dataclass(frozen=True, slots=True)
class Ignored:
    """A query value the page did not use, and why (shown to the reader)."""

    name: str
    value: str  # shortened; templates escape it
    reason: str
    used: str = ""  # what the page used instead: the default, the limit or the first value


@dataclass(frozen=True, slots=True)
class ParsedState:
    state: CalculatorState
    ignored: tuple[Ignored, ...] = field(default_factory=tuple)


def _short(value: str) -> str:
    return value if len(value) <= 40 else value[:40] + "…"


# A field's parser: raw text → (value or None, the problem to show the reader or None).
Parser = Callable[[str], tuple[Any, str | None]]


def _int_in(low: int, high: int) -> Parser:
    def parse(raw: str) -> tuple[Any, str | None]:
        try:
            number = float(raw.strip())
        except ValueError:
            return None, _("not a whole number")
        if not math.isfinite(number) or number != int(number):
            return None, _("not a whole number")
        if not low <= number <= high:
            return None, _("outside %(low)s–%(high)s") % {"low": low, "high": high}
        return int(number), None

    return parse


def _float_in(low: float, high: float) -> Parser:
    def parse(raw: str) -> tuple[Any, str | None]:
        try:
            number = float(raw.strip())
        except ValueError:
            return None, _("not a number")
        if not math.isfinite(number) or not low <= number <= high:
            return None, _("outside %(low)s–%(high)s") % {"low": low, "high": high}
        return number, None

    return parse


def _one_of(options: Sequence[str]) -> Parser:
    lowered = {o.lower(): o for o in options}

    def parse(raw: str) -> tuple[Any, str | None]:
        value = lowered.get(raw.strip().lower())
        if value is None:
            return None, _("not one of the offered choices")
        return value, None

    return parse


def _flag(raw: str) -> tuple[Any, str | None]:
    value = raw.strip().lower()
    if value in ("1", "on", "true", "yes"):
        return True, None
    if value in ("0", "off", "false", "no"):
        return False, None
    return None, _("not on or off")


def _mtp(choices: PageChoices) -> Parser:
    """On or off where the model has multi-token-prediction layers; off, said so, where it has none."""
    if choices.mtp_layers:
        return _flag

    def parse(raw: str) -> tuple[Any, str | None]:
        value, problem = _flag(raw)
        if value:
            return False, _("this model has no multi-token-prediction layers")
        return value, problem

    return parse


# The state fields that name an engine's release line, that engine, and what the reader is told when no line
# covers the value.
RELEASE_FIELDS: Mapping[str, tuple[str, Any]] = {
    "release": ("vllm", gettext_lazy("not a vLLM release from 0.7 on")),
    "sglang": ("sglang", gettext_lazy("not an SGLang release from 0.4 on")),
    "llamacpp": ("llama.cpp", gettext_lazy("not a llama.cpp build from b5429 on")),
    "mlx_lm": ("mlx", gettext_lazy("not an MLX-LM release from 0.22.2 on")),
}


def release_field(engine: str) -> str | None:
    """The state field that names ``engine``'s release line; None for an engine without lines."""
    return next((name for name, (named, _problem) in RELEASE_FIELDS.items() if named == engine), None)


def _release_line(engine: str, problem: Any) -> Parser:
    """A release ("0.19.1", "b7500") or line key of ``engine``: the key of the line that covers it."""
    lines = ENGINE_RELEASE_LINES[engine]

    def parse(raw: str) -> tuple[Any, str | None]:
        if not release_names.covered(engine, raw):
            return None, str(problem)
        return lines.line_of(raw.strip()), None

    return parse


def _context(max_context: int | None) -> Parser:
    limit = max_context or MAX_CONTEXT_TOKENS

    def parse(raw: str) -> tuple[Any, str | None]:
        tokens = parse_tokens(raw)
        if tokens is None:
            return None, _("not a token count (examples: 8192, 8K, 128K, 1M)")
        if tokens < 1:
            return None, _("must be at least 1 token")
        if tokens > limit:
            return limit, _("longer than this model's %(limit)s-token limit") % {"limit": limit}
        return tokens, None

    return parse


def _release_line_for(engine: str, problem: Any, choices: PageChoices) -> Parser:
    return _release_line(engine, problem)


# Each field's parser for a model's page choices; parse_state makes only those its query string names.
PARSERS: Mapping[str, Callable[[PageChoices], Parser]] = {
    "precision": lambda choices: _one_of([c.value for c in choices.precisions]),
    "mode": lambda choices: _one_of([m.value for m in Mode]),
    "engine": lambda choices: _one_of(list(ENGINES)),
    "concurrency": lambda choices: _int_in(1, MAX_CONCURRENCY),
    "context": lambda choices: _context(choices.max_context),
    "kv": lambda choices: _one_of(list(KV_DTYPES)),
    "mtp": _mtp,
    **{name: partial(_release_line_for, engine, problem) for name, (engine, problem) in RELEASE_FIELDS.items()},
    "batch": lambda choices: _int_in(1, MAX_BATCH),
    "seq": lambda choices: _context(choices.max_context),
    "rank": lambda choices: _int_in(1, MAX_LORA_RANK),
    "optimizer": lambda choices: _one_of(list(OPTIMIZERS)),
    "framework": lambda choices: _one_of(list(FRAMEWORKS_KEYS)),
    "checkpointing": lambda choices: _flag,
    "gpu": lambda choices: _one_of([c.value for c in choices.gpus]),
    "gpus": lambda choices: _int_in(1, MAX_GPUS),
    "ratio": lambda choices: _float_in(0.0, 1000.0),
    "cached": lambda choices: _int_in(0, 100),
    "tps": lambda choices: _int_in(1, MAX_MIN_TOKENS_PER_S),
    "rig": lambda choices: _one_of([c.value for c in choices.gpu_choices]),
    "rig_gpus": lambda choices: _int_in(1, 8),
    "ram": lambda choices: _int_in(0, 4096),
    "macos": lambda choices: _one_of(MACOS_VERSIONS),
}


FIELD_NAMES: tuple[str, ...] = tuple(f.name for f in fields(CalculatorState))
assert set(PARSERS) == set(FIELD_NAMES), "every state field needs its parser"


def parse_state(query: QueryDict, choices: PageChoices) -> ParsedState:
    """The state a query string asks for, with defaults for everything missing or unusable."""
    defaults = CalculatorState().with_defaults_of(choices)
    values: dict[str, Any] = {}
    ignored: list[Ignored] = []
    for name in FIELD_NAMES:
        given = query.getlist(name)
        if not given:
            continue
        raw = given[0]
        if len(given) > 1:
            ignored.append(Ignored(name, _short(given[-1]), _("given more than once")))
        if raw.strip() == "":
            continue
        if len(raw) > MAX_VALUE_CHARS:
            ignored.append(Ignored(name, _short(raw), _("too long")))
            continue
        value, problem = PARSERS[name](choices)(raw)
        if value is not None:
            values[name] = value
        if problem is not None:
            ignored.append(Ignored(name, _short(raw), problem))
    state = _consistent(replace(defaults, **values), choices)
    used = tuple(replace(item, used=_query_value(getattr(state, item.name))) for item in ignored)
    return ParsedState(state, used)


def _query_value(value: object) -> str:
    """A state value as the query string spells it (what the reader sees in the permalink)."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _consistent(state: CalculatorState, choices: PageChoices) -> CalculatorState:
    if state.seq and choices.max_context and state.seq > choices.max_context:
        state = replace(state, seq=choices.max_context)
    return state


def state_query(state: CalculatorState, choices: PageChoices, **changes: Any) -> str:
    """The query string of ``state`` (with ``changes``), defaults left out, in a stable order; '' for defaults."""
    if changes:
        state = replace(state, **changes)
    defaults = CalculatorState().with_defaults_of(choices)
    parts = []
    for name in FIELD_NAMES:
        value = getattr(state, name)
        if value == getattr(defaults, name):
            continue
        if isinstance(value, bool):
            text = "1" if value else "0"
        elif isinstance(value, float):
            text = f"{value:g}"
        elif name in ("context", "seq"):
            text = tokens_label(value)
        else:
            text = str(value)
        parts.append((name, text))
    query = QueryDict(mutable=True)
    for name, text in parts:
        query[name] = text
    return query.urlencode(safe="")


@dataclass(frozen=True, slots=True)
class StrictState:
    """A state read strictly: ``problems`` names each parameter that was not usable as given (the JSON API answers
    those with a 400 instead of falling back)."""

    state: CalculatorState
    problems: Mapping[str, str]


def parse_state_strict(query: QueryDict, choices: PageChoices) -> StrictState:
    """``parse_state`` with the same field parsers and bounds, where every value the page would have ignored or
    changed (repeated, too long, malformed, out of range, longer than the model's context) is a problem; an
    empty value means the default, as on the page."""
    parsed = parse_state(query, choices)
    problems: dict[str, str] = {}
    for item in parsed.ignored:
        problems.setdefault(item.name, item.reason)
    return StrictState(parsed.state, problems)
