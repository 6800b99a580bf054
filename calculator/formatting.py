"""Numbers, money, sizes and dates as each locale writes them (Babel's CLDR data): the templates' filters, and the
texts the model page builds in Python (its FAQ) with the same formats.

Pages show memory in GB = 10^9 bytes, as the reference page does, and say so.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from functools import cache, lru_cache

from babel import Locale
from babel.dates import format_skeleton
from babel.numbers import NumberPattern, parse_pattern
from django.utils.translation import get_language, to_locale

from calculator.state import tokens_label
from pricing.gpus import BYTES_PER_GB


def current_locale() -> str:
    return to_locale(get_language() or "en")


@cache
def _locale(name: str) -> Locale:
    # Parsing a locale and a pattern costs more than formatting the number; a page formats hundreds.
    return Locale.parse(name)


@cache
def _decimal_pattern(digits: int) -> NumberPattern:
    return parse_pattern("#,##0" + ("." + "0" * digits if digits > 0 else ""))


def format_number(value: float | int | None, digits: int = 0, locale: str | None = None) -> str:
    """1234567.8 → '1,234,568' (en) / '1.234.568' (de)."""
    if value is None:
        return "–"
    return _formatted_number(value, max(0, digits), locale or current_locale())


def format_tokens(tokens: int, locale: str | None = None) -> str:
    """A token count as readers write it: 8192 → "8K", 1048576 → "1M", any other count grouped in the reader's
    notation (2031056 → "2.031.056" in German)."""
    short = tokens_label(tokens)
    return short if short.endswith(("K", "M")) else format_number(tokens, 0, locale)


def format_share(share: float, locale: str | None = None) -> str:
    """0.97 → '97 %'; 0.03 → '3.0 %' (en) / '3,0 %' (de); a share that rounds to nothing → '< 0.1 %'."""
    locale = locale or current_locale()
    if 0 < share < 0.0005:
        return f"< {_formatted_number(0.1, 1, locale)}\u00a0%"
    return f"{_formatted_number(share * 100, 0 if share >= 0.1 else 1, locale)}\u00a0%"


# A page prints a few hundred numbers and most recur from page to page (the same sizes, prices and counts): Babel's
# pattern.apply costs ~15 µs each, a remembered string well under 1 µs.
@lru_cache(maxsize=65536)
def _formatted_number(value: float | int | Decimal, digits: int, locale: str) -> str:
    return _decimal_pattern(digits).apply(value, _locale(locale))


@cache
def _money_pattern(digits: int, locale: str) -> NumberPattern:
    if digits == 2:
        return _locale(locale).currency_formats["standard"]
    number = "#,##0" + ("." + "0" * digits if digits > 0 else "")
    return parse_pattern(f"¤{number}" if locale.startswith("en") else f"{number}\u00a0¤")


def format_money(value: float | Decimal | None, digits: int = 2, locale: str | None = None) -> str:
    """USD per locale: '$19.12' (en) / '19,12 $' (de). digits=0 for monthly totals ('$13,958'), 3 for per-token
    prices ('$0.075')."""
    if value is None:
        return "–"
    return _formatted_money(value, digits, locale or current_locale())


@lru_cache(maxsize=65536)
def _formatted_money(value: float | Decimal, digits: int, locale: str) -> str:
    return _money_pattern(digits, locale).apply(value, _locale(locale), currency="USD", currency_digits=digits == 2)


def format_gb(value_bytes: float | int | None, digits: int | None = None, locale: str | None = None) -> str:
    """Bytes → 'N GB' with the precision a reader needs: 708 GB, 0.38 GB, 5,661 GB."""
    if value_bytes is None:
        return "–"
    gb = value_bytes / BYTES_PER_GB
    if digits is None:
        digits = 0 if abs(gb) >= 10 else (1 if abs(gb) >= 1 else 2)
    return f"{format_number(gb, digits, locale)}\u00a0GB"


def format_day(value: date | datetime | None, locale: str | None = None) -> str:
    """'Nov 13, 2026' (en) / '13. Nov. 2026' (de)."""
    if value is None:
        return "–"
    day = value.date() if isinstance(value, datetime) else value
    return _day(day, locale or current_locale())


@lru_cache(maxsize=4096)
def _day(day: date, locale: str) -> str:
    return format_skeleton("yMMMd", day, locale=_locale(locale))
