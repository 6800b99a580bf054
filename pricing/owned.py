"""Owned GPU servers: a pure loader over ``pricing/data/owned-servers.json`` — purchase prices of whole servers with
their sources and confidence, rated power, and the sourced defaults for depreciation, PUE, colocation and energy
(docs/methodology.md §5.7). No Django import: the planner's core and its page read it."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, fields
from datetime import date
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

OWNED_FILE = Path(__file__).resolve().parent / "data" / "owned-servers.json"
R = TypeVar("R", bound="DataclassInstance")  # a record read field by field (dataclasses.fields)


@dataclass(frozen=True, slots=True)
class OwnedHardware:
    """What every owned server type and desk machine has: its GPU, its price and rated power, each with its source
    and how far to trust it."""

    slug: str
    name: str
    gpu_slug: str
    price_usd: float
    price_confidence: str
    price_source: str
    power_kw: float
    power_confidence: str
    power_source: str


@dataclass(frozen=True, slots=True)
class OwnedServer(OwnedHardware):
    """A whole server of ``gpus`` GPUs in a data centre."""

    gpus: int


@dataclass(frozen=True, slots=True)
class OwnedMachine(OwnedHardware):
    """A single machine on a desk (a Mac): one llama.cpp server with ``slots`` requests at a time."""

    memory_gb: int
    engine: str
    slots: int
    batch_tokens: int


@dataclass(frozen=True, slots=True)
class Sourced:
    value: float
    confidence: str
    source: str


@dataclass(frozen=True, slots=True)
class OwnedData:
    read_on: date
    servers: tuple[OwnedServer, ...]
    machines: tuple[OwnedMachine, ...]
    years: Sourced
    pue: Sourced
    colo_usd_per_kw_month: Sourced
    kwh_usd: Sourced

    @property
    def slugs(self) -> tuple[str, ...]:
        """Every server type's and machine's slug, as the planner's price fields name them."""
        return tuple(s.slug for s in self.servers) + tuple(m.slug for m in self.machines)


# The JSON's numbers as the records' fields want them (``from __future__`` leaves annotations as their names)
_CONVERT: dict[str, Callable[[Any], Any]] = {"int": int, "float": float, "str": str}


def _record(kind: type[R], raw: dict[str, Any]) -> R:
    """One record of ``kind`` from its JSON object: each field by name, converted to the field's type; the notes
    and sources' prose beside them stay in the file."""
    return kind(**{f.name: _CONVERT[str(f.type)](raw[f.name]) for f in fields(kind)})


def _sourced(raw: dict[str, Any]) -> Sourced:
    return Sourced(float(raw["value"]), raw["confidence"], raw["source"])


@cache
def owned_data() -> OwnedData:
    raw = json.loads(OWNED_FILE.read_text(encoding="utf-8"))
    servers = tuple(_record(OwnedServer, s) for s in raw["servers"])
    machines = tuple(_record(OwnedMachine, m) for m in raw.get("machines", []))
    defaults = raw["defaults"]
    return OwnedData(
        read_on=date.fromisoformat(raw["read_on"]),
        servers=servers,
        machines=machines,
        years=_sourced(defaults["years"]),
        pue=_sourced(defaults["pue"]),
        colo_usd_per_kw_month=_sourced(defaults["colo_usd_per_kw_month"]),
        kwh_usd=_sourced(defaults["kwh_usd"]),
    )
