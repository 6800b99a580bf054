"""What every provider module shares: its description, payload validation helpers and the error they raise.

A provider module is one seam to one outside system: ``INFO`` (a ``ProviderInfo``), ``fetch(client, api_key,
endpoint)`` returning the raw response bytes (``endpoint`` defaults to ``INFO.endpoint``; ``pricing.services``
passes an override and any provider-specific options from settings), and ``parse(payload, captured_at, skipped)``
turning the decoded JSON into ``OfferRecord`` objects. ``parse`` is pure: it never does I/O and raises
``PayloadError`` when the payload does not have the documented shape (a missing field, a price of the wrong type, a
negative or absurd price), so a refresh keeps the provider's last good offers instead of storing garbage.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, Protocol, overload

import httpx

from pricing.offers import MAX_PRICE_PER_GPU_HOUR_USD, OfferRecord

MAX_PRICE = float(MAX_PRICE_PER_GPU_HOUR_USD)


class PayloadError(ValueError):
    """The provider's response does not have the documented shape."""


@dataclass(frozen=True, slots=True)
class ProviderInfo:
    slug: str
    name: str
    website: str
    endpoint: str  # what ``fetch`` calls (shown on snapshots as their source)
    api_key_setting: str | None = None  # settings name holding the credential, if the API needs one
    api_key_required: bool = False
    docs: str = ""


class ProviderModule(Protocol):
    """What ``pricing.services`` uses of a provider module; each module in ``API_PROVIDERS`` satisfies it."""

    INFO: ProviderInfo

    def fetch(self, client: httpx.Client, api_key: str | None, endpoint: str = ..., /) -> bytes: ...

    def parse(self, payload: Any, captured_at: datetime, skipped: list[str] | None = None) -> list[OfferRecord]: ...


def field(mapping: Any, key: str, where: str) -> Any:
    """``mapping[key]``, or ``PayloadError`` naming what is missing."""
    if not isinstance(mapping, Mapping):
        raise PayloadError(f"{where}: expected an object, got {type(mapping).__name__}")
    if key not in mapping:
        raise PayloadError(f"{where}: field {key!r} is missing")
    return mapping[key]


def as_list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise PayloadError(f"{where}: expected a list, got {type(value).__name__}")
    return value


@overload
def number(value: Any, where: str, *, allow_none: Literal[False] = False) -> float: ...


@overload
def number(value: Any, where: str, *, allow_none: bool) -> float | None: ...


def number(value: Any, where: str, *, allow_none: bool = False) -> float | None:
    """A JSON number (not a string, not a boolean)."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PayloadError(f"{where}: expected a number, got {value!r}")
    return float(value)


def checked_price(price_per_gpu_hour: float, where: str) -> float:
    """Refuse negative and absurd per-GPU-hour prices: they are unit mix-ups or placeholders, not prices."""
    if price_per_gpu_hour != price_per_gpu_hour or price_per_gpu_hour < 0:
        raise PayloadError(f"{where}: negative or invalid price {price_per_gpu_hour!r}")
    if price_per_gpu_hour > MAX_PRICE:
        raise PayloadError(f"{where}: price {price_per_gpu_hour} USD per GPU-hour is beyond any real offer")
    return price_per_gpu_hour


def positive_int(value: Any, where: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
        return value
    raise PayloadError(f"{where}: expected a positive integer, got {value!r}")
