"""The planner's inputs as a query string: monthly volume, mix, traffic shape and latency targets, each with bounds,
a default and a clear message when a value is not usable (the page falls back, the API answers 400)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from django.http import QueryDict
from django.utils.translation import gettext as _

from calculator.estimation.plan.planner import PERCENTILES, Demand, OwnedCosts
from calculator.formatting import format_number
from pricing.owned import owned_data

MAX_VALUE_CHARS = 32
MAX_LIST_CHARS = MAX_VALUE_CHARS * 8  # a comma-separated list of providers (``x``)
_VOLUME = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kKmMbBtT]?)\s*$")
_SCALE = {"": 1, "k": 1e3, "m": 1e6, "b": 1e9, "t": 1e12}
MIN_VOLUME, MAX_VOLUME = 1e3, 1e15  # output tokens a month
_PROVIDER = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")
MAX_EXCLUDED = 20
# A server's purchase price the reader enters: ``price-<server slug>``
PRICE_PREFIX = "price-"
MAX_SERVER_PRICE = 1e8
_OWNED = owned_data()


@dataclass(frozen=True, slots=True)
class PlanState:
    """One planner state; field names are the query-string names."""

    out: float = 1e9  # output tokens a month
    ratio: float = 3.0  # input tokens per output token
    cached: int = 0  # percent of input served from a prefix cache
    olen: int = 1000  # output tokens per request
    peak: float = 2.0  # peak over the average rate
    ttft: float = 2.0  # seconds to the first token, at ``pct``
    tpot: int = 50  # milliseconds per output token, at ``pct``
    pct: int = 50  # the latency targets' percentile: 50 (median) or 95
    engine: str = "vllm"
    spot: int = 0  # 1: spot (interruptible) offers count too
    x: tuple[str, ...] = ()  # provider slugs left out
    years: float = _OWNED.years.value  # an owned server is written off over
    kwh: float = _OWNED.kwh_usd.value  # USD per kWh
    pue: float = _OWNED.pue.value
    colo: float = _OWNED.colo_usd_per_kw_month.value  # USD per kW of rated power a month
    prices: tuple[tuple[str, float], ...] = ()  # (server slug, USD) the reader's own purchase prices

    def demand(self) -> Demand:
        return Demand(
            output_tokens_per_month=self.out,
            input_per_output=self.ratio,
            cached_share=self.cached / 100,
            peak_factor=self.peak,
            ttft_target_s=self.ttft,
            tpot_target_s=self.tpot / 1000,
            output_tokens=self.olen,
            percentile=self.pct,
        )

    def owned_costs(self) -> OwnedCosts:
        return OwnedCosts(self.years, self.kwh, self.pue, self.colo)

    def server_price(self, slug: str) -> float | None:
        return dict(self.prices).get(slug)


@dataclass(frozen=True, slots=True)
class Unused:
    name: str
    value: str
    reason: str


@dataclass(frozen=True, slots=True)
class ParsedPlan:
    state: PlanState
    unused: tuple[Unused, ...] = field(default_factory=tuple)


def parse_volume(text: str) -> float | None:
    """'1B', '250M', '2.5T', '40000000' → output tokens (decimal K/M/B/T)."""
    match = _VOLUME.match(text)
    if not match:
        return None
    return float(match.group(1)) * _SCALE[match.group(2).lower()]


def volume_label(tokens: float) -> str:
    """1e9 → '1B', 2.5e10 → '25B', 3e5 → '300K' (the query string's spelling)."""
    for suffix, scale in (("T", 1e12), ("B", 1e9), ("M", 1e6), ("K", 1e3)):
        if tokens >= scale:
            return f"{tokens / scale:g}{suffix}"
    return f"{tokens:g}"


def volume_words(tokens: float) -> str:
    """A volume as the reader's language abbreviates it: 1e9 → '1B' (en) / '1 Mrd.' (de), 2.5e11 → '250B' /
    '250 Mrd.' (the query string keeps ``volume_label``'s spelling)."""
    for template, scale in (
        (_("%(n)sT"), 1e12),
        (_("%(n)sB"), 1e9),
        (_("%(n)sM"), 1e6),
        (_("%(n)sK"), 1e3),
    ):
        if tokens >= scale:
            value = tokens / scale
            return template % {"n": format_number(value, 0 if value >= 10 or value == int(value) else 1)}
    return format_number(tokens)


Parser = Callable[[str], tuple[Any, str | None]]


def _number(low: float, high: float, whole: bool = False) -> Parser:
    def parse(raw: str) -> tuple[Any, str | None]:
        try:
            value = float(raw.strip())
        except ValueError:
            return None, _("not a number")
        if not math.isfinite(value) or not low <= value <= high:
            return None, _("outside %(low)s–%(high)s") % {"low": f"{low:g}", "high": f"{high:g}"}
        if whole:
            if value != int(value):
                return None, _("not a whole number")
            return int(value), None
        return value, None

    return parse


def _volume(raw: str) -> tuple[Any, str | None]:
    value = parse_volume(raw)
    if value is None:
        return None, _("not a token count (examples: 500M, 1B, 2.5T)")
    if not MIN_VOLUME <= value <= MAX_VOLUME:
        return None, _("outside 1K–1000T tokens a month")
    return value, None


def _percentile(raw: str) -> tuple[Any, str | None]:
    value = raw.strip().lower().removeprefix("p")
    if not value.isdigit() or int(value) not in PERCENTILES:
        return None, _("the targets hold for the median (50) or the 95th percentile (95)")
    return int(value), None


def _providers(raw: str) -> tuple[Any, str | None]:
    slugs = tuple(dict.fromkeys(part.strip().lower() for part in raw.split(",") if part.strip()))
    if len(slugs) > MAX_EXCLUDED or not all(_PROVIDER.match(slug) for slug in slugs):
        return None, _("not a list of provider names (example: aws,gcp)")
    return slugs, None


def _engine(raw: str) -> tuple[Any, str | None]:
    value = raw.strip().lower()
    if value not in ("vllm", "sglang"):
        return None, _("the planner sizes vLLM or SGLang replicas")
    return value, None


PARSERS: Mapping[str, Parser] = {
    "out": _volume,
    "ratio": _number(0, 1000),
    "cached": _number(0, 100, whole=True),
    "olen": _number(1, 65536, whole=True),
    "peak": _number(1, 100),
    "ttft": _number(0.01, 600),
    "tpot": _number(1, 10000, whole=True),
    "pct": _percentile,
    "engine": _engine,
    "spot": _number(0, 1, whole=True),
    "x": _providers,
    "years": _number(1, 15),
    "kwh": _number(0, 2),
    "pue": _number(1, 3),
    "colo": _number(0, 5000),
}
FIELD_NAMES = tuple(f.name for f in fields(PlanState) if f.name != "prices")
SERVER_SLUGS = _OWNED.slugs


def parse_plan(query: QueryDict) -> ParsedPlan:
    """The planner state a query string asks for; an unusable value is named and the default kept."""
    values: dict[str, Any] = {}
    unused: list[Unused] = []
    for name in FIELD_NAMES:
        given = query.getlist(name)
        if not given or not given[0].strip():
            continue
        raw = ",".join(given) if name == "x" else given[0]
        if len(raw) > (MAX_LIST_CHARS if name == "x" else MAX_VALUE_CHARS):
            unused.append(Unused(name, raw[:MAX_VALUE_CHARS] + "…", _("too long")))
            continue
        value, problem = PARSERS[name](raw)
        if problem is not None:
            unused.append(Unused(name, raw, problem))
        else:
            values[name] = value
    prices = []
    parse_price = _number(0, MAX_SERVER_PRICE)
    for slug in SERVER_SLUGS:
        raw = query.get(PRICE_PREFIX + slug, "").strip()
        if not raw:
            continue
        value, problem = parse_price(raw[:MAX_VALUE_CHARS])
        if problem is not None:
            unused.append(Unused(PRICE_PREFIX + slug, raw[:MAX_VALUE_CHARS], problem))
        else:
            prices.append((slug, value))
    return ParsedPlan(replace(PlanState(), **values, prices=tuple(prices)), tuple(unused))


def plan_query(state: PlanState, **changes: Any) -> str:
    """The query string of ``state``, defaults left out, in a stable order."""
    state = replace(state, **changes) if changes else state
    default = PlanState()
    query = QueryDict(mutable=True)
    for name in FIELD_NAMES:
        value = getattr(state, name)
        if value == getattr(default, name):
            continue
        if name == "out":
            query[name] = volume_label(value)
        elif name == "x":
            query[name] = ",".join(value)
        else:
            query[name] = f"{value:g}" if isinstance(value, float) else str(value)
    for slug, price in state.prices:
        query[PRICE_PREFIX + slug] = f"{price:g}"
    return query.urlencode(safe=",")
