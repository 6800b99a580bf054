"""Owned GPU servers: a pure loader over ``pricing/data/owned-servers.json`` — purchase prices of whole servers with
their sources and confidence, rated power, and the sourced defaults for depreciation, PUE, colocation and energy
(docs/methodology.md §5.7). No Django import: the planner's core and its page read it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from functools import cache
from pathlib import Path
from typing import Any

OWNED_FILE = Path(__file__).resolve().parent / "data" / "owned-servers.json"


@dataclass(frozen=True, slots=True)
class OwnedServer:
    slug: str
    name: str
    gpu_slug: str
    gpus: int
    price_usd: float
    price_confidence: str
    price_source: str
    power_kw: float
    power_confidence: str
    power_source: str


@dataclass(frozen=True, slots=True)
class OwnedMachine:
    """A single machine on a desk (a Mac): one llama.cpp server with ``slots`` requests at a time."""

    slug: str
    name: str
    gpu_slug: str
    memory_gb: int
    price_usd: float
    price_confidence: str
    price_source: str
    power_kw: float
    power_confidence: str
    power_source: str
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


def _sourced(raw: dict[str, Any]) -> Sourced:
    return Sourced(float(raw["value"]), raw["confidence"], raw["source"])


@cache
def owned_data() -> OwnedData:
    raw = json.loads(OWNED_FILE.read_text(encoding="utf-8"))
    servers = tuple(
        OwnedServer(
            slug=s["slug"],
            name=s["name"],
            gpu_slug=s["gpu_slug"],
            gpus=int(s["gpus"]),
            price_usd=float(s["price_usd"]),
            price_confidence=s["price_confidence"],
            price_source=s["price_source"],
            power_kw=float(s["power_kw"]),
            power_confidence=s["power_confidence"],
            power_source=s["power_source"],
        )
        for s in raw["servers"]
    )
    machines = tuple(
        OwnedMachine(
            slug=m["slug"],
            name=m["name"],
            gpu_slug=m["gpu_slug"],
            memory_gb=int(m["memory_gb"]),
            price_usd=float(m["price_usd"]),
            price_confidence=m["price_confidence"],
            price_source=m["price_source"],
            power_kw=float(m["power_kw"]),
            power_confidence=m["power_confidence"],
            power_source=m["power_source"],
            engine=m["engine"],
            slots=int(m["slots"]),
            batch_tokens=int(m["batch_tokens"]),
        )
        for m in raw.get("machines", [])
    )
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
