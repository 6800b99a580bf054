"""Hosted per-token API prices from ``pricing/data/api-prices.json``: pure parsing, no Django, no I/O but the read.

The file names models by hosted route (OpenRouter's slug, e.g. ``z-ai/glm-5.3-flash``). ``ROUTE_TO_HUB_ID`` maps
each route to the Hub id of the checkpoint it serves when that checkpoint is in our catalog
(``models_catalog/data/hub``); ``ROUTES_NOT_IN_CATALOG`` says why every other route is left unmapped, so a new
route in the file fails a test until someone decides. A row carrying ``valid_until`` is a time-limited price (a
provider's introductory offer, or an OpenRouter discount, which states no end and so runs until the day it was seen):
it joins the list-price row of the same route, capture date and source as its introductory price, and the list price
applies after its last day (``pricing.selectors.api_prices_for``).

The file has no confidence field; ``SOURCE_RULES`` assigns one per kind of source on the scale of the data set's
README (high: a provider's or an official price API; medium: the provider's own website data; low: an aggregator,
a fragile scrape or a price reported second hand), and ``CONFIDENCE_OVERRIDES`` lowers single rows whose own note
doubts a figure.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

API_PRICES_FILE = Path(__file__).resolve().parent / "data" / "api-prices.json"

# Hosted route → Hub id of the checkpoint it serves (only checkpoints in models_catalog/data/hub).
ROUTE_TO_HUB_ID: dict[str, str] = {
    "z-ai/glm-5.3-flash": "zai-org/GLM-5.3-Flash",
    "z-ai/glm-5": "zai-org/GLM-5",
    "z-ai/glm-4.7-flash": "zai-org/GLM-4.7-Flash",
    "z-ai/glm-4.6": "zai-org/GLM-4.6",
    "deepseek/deepseek-v3.2": "deepseek-ai/DeepSeek-V3.2",
    "meta-llama/llama-3.3-70b-instruct": "meta-llama/Llama-3.3-70B-Instruct",
    "openai/gpt-oss-120b": "openai/gpt-oss-120b",
    "openai/gpt-oss-20b": "openai/gpt-oss-20b",
    "qwen/qwen3-32b": "Qwen/Qwen3-32B",
    "minimax/minimax-m2.5": "MiniMaxAI/MiniMax-M2.5",
    "google/gemma-3-27b-it": "google/gemma-3-27b-it",
    # Added from the same 2026-08-08 snapshot: every other catalog model OpenRouter lists (by its hugging_face_id).
    "z-ai/glm-4.5": "zai-org/GLM-4.5",
    "z-ai/glm-4.5-air": "zai-org/GLM-4.5-Air",
    "z-ai/glm-4.5v": "zai-org/GLM-4.5V",
    "deepseek/deepseek-chat": "deepseek-ai/DeepSeek-V3",  # OpenRouter's "DeepSeek V3" (canonical deepseek-chat-v3)
    "deepseek/deepseek-r1": "deepseek-ai/DeepSeek-R1",
    "moonshotai/kimi-k2": "moonshotai/Kimi-K2-Instruct",  # "Kimi K2 0711", the first Kimi-K2-Instruct
    "minimax/minimax-m2": "MiniMaxAI/MiniMax-M2",
    "minimax/minimax-m2.7": "MiniMaxAI/MiniMax-M2.7",
    # OpenRouter gives the Hub's earlier names meta-llama/Meta-Llama-3.1-8B/70B-Instruct, the same repositories.
    "meta-llama/llama-3.1-8b-instruct": "meta-llama/Llama-3.1-8B-Instruct",
    "meta-llama/llama-3.1-70b-instruct": "meta-llama/Llama-3.1-70B-Instruct",
    "meta-llama/llama-3.2-1b-instruct": "meta-llama/Llama-3.2-1B-Instruct",
    "meta-llama/llama-3.2-3b-instruct": "meta-llama/Llama-3.2-3B-Instruct",
    "meta-llama/llama-4-scout": "meta-llama/Llama-4-Scout-17B-16E-Instruct",
    "meta-llama/llama-4-maverick": "meta-llama/Llama-4-Maverick-17B-128E-Instruct",
    "qwen/qwen-2.5-7b-instruct": "Qwen/Qwen2.5-7B-Instruct",
    "qwen/qwen-2.5-72b-instruct": "Qwen/Qwen2.5-72B-Instruct",
    "qwen/qwen3-8b": "Qwen/Qwen3-8B",
    "qwen/qwen3-14b": "Qwen/Qwen3-14B",
    "qwen/qwen3-30b-a3b": "Qwen/Qwen3-30B-A3B",
    "qwen/qwen3-235b-a22b": "Qwen/Qwen3-235B-A22B",
    "qwen/qwen3-next-80b-a3b-instruct": "Qwen/Qwen3-Next-80B-A3B-Instruct",
    "qwen/qwen3-next-80b-a3b-thinking": "Qwen/Qwen3-Next-80B-A3B-Thinking",
    "google/gemma-2-27b-it": "google/gemma-2-27b-it",
    "google/gemma-3-4b-it": "google/gemma-3-4b-it",
    "google/gemma-3-12b-it": "google/gemma-3-12b-it",
    "mistralai/mistral-small-24b-instruct-2501": "mistralai/Mistral-Small-24B-Instruct-2501",
    "mistralai/mixtral-8x22b-instruct": "mistralai/Mixtral-8x22B-Instruct-v0.1",
    "microsoft/phi-4": "microsoft/phi-4",
}

# Routes whose checkpoint is not in the catalog. A sibling checkpoint of the same family is not the same model:
# its price says nothing about the one we size.
ROUTES_NOT_IN_CATALOG: dict[str, str] = {
    "z-ai/glm-5.2": "GLM-5.2 is not in the catalog",
    "z-ai/glm-5.1": "GLM-5.1 is not in the catalog",
    "z-ai/glm-4.7": "GLM-4.7 is not in the catalog (only GLM-4.7-Flash is)",
    "deepseek/deepseek-v4-pro": "DeepSeek-V4-Pro is not in the catalog",
    "deepseek/deepseek-v4-flash": "DeepSeek-V4-Flash is not in the catalog",
    "deepseek/deepseek-r1-0528": "serves DeepSeek-R1-0528, a later checkpoint than the catalog's DeepSeek-R1",
    "qwen/qwen3-235b-a22b-2507": "serves Qwen3-235B-A22B-Instruct-2507, not the catalog's Qwen3-235B-A22B",
    "qwen/qwen3-coder": "Qwen3-Coder (480B-A35B) is not in the catalog",
    "moonshotai/kimi-k2.6": "Kimi-K2.6 is not in the catalog (only Kimi-K2-Instruct is)",
    "mistralai/mistral-large-2512": "Mistral Large 2512 is not in the catalog",
}

HIGH, MEDIUM, LOW = "high", "medium", "low"


def N_(text: str) -> str:
    """Marks a text for the message catalog (Babel's default keyword) without translating it: this module stays free
    of Django; pages translate the stored text when they show it (calculator.labels.data_text)."""
    return text


@dataclass(frozen=True, slots=True)
class SourceRule:
    """How a reader would cite one kind of source, and how far its prices can be trusted."""

    starts_with: str
    publisher: str
    title: str
    confidence: str


SOURCE_RULES: tuple[SourceRule, ...] = (
    SourceRule(
        "OpenRouter GET https://openrouter.ai/api/v1/models",
        "OpenRouter",
        N_("Models API (GET /api/v1/models), daily archived response"),
        HIGH,
    ),
    # OpenRouter's own figures, but read from the data endpoint behind its website, not a documented API.
    SourceRule(
        "OpenRouter per-endpoint prices",
        "OpenRouter",
        N_("Per-provider endpoint prices from openrouter.ai, daily archived scrape"),
        MEDIUM,
    ),
    SourceRule("AWS Price List API", "Amazon Web Services", "AWS Price List API: Amazon Bedrock", HIGH),
    # Vendor prices reported second hand "as of writing" by an undated article with no publisher named.
    SourceRule(
        "German community article 'GLM-5.3-Flash VRAM-Anforderungen'",
        "",
        N_(
            "GLM-5.3-Flash VRAM-Anforderungen: Wie viel Speicher Sie benötigen, um ein 320B MoE auszuführen"
            " (German community article)"
        ),
        LOW,
    ),
)

CONFIDENCE_OVERRIDES: dict[tuple[str, str], str] = {
    # Its own note: the cached-input price "as returned, looks unusually low".
    ("deepseek/deepseek-v4-pro", "OpenRouter (list price = top provider)"): MEDIUM,
    # Undiscounted prices computed from the discounted price the models API returned and the discount in OpenRouter's
    # website endpoint data (a medium source): the API itself never showed them.
    **{
        (route, "OpenRouter (list price = top provider)"): MEDIUM
        for route in (
            "z-ai/glm-5.2",
            "z-ai/glm-5.1",
            "moonshotai/kimi-k2.6",
            "minimax/minimax-m2",
            "minimax/minimax-m2.7",
            "deepseek/deepseek-chat",
        )
    },
}

_URL = re.compile(r"https://[^\s)]+")


class ApiPriceFileError(ValueError):
    """The price file holds a row we cannot read or place."""


@dataclass(frozen=True, slots=True)
class ApiPriceRecord:
    """One per-token price of one hosted route at one provider, as captured on one day (USD per million)."""

    route: str
    hub_id: str  # "" when the served checkpoint is not in the catalog
    provider: str
    input_per_million_usd: Decimal
    cached_input_per_million_usd: Decimal | None
    output_per_million_usd: Decimal
    captured_on: date | None  # None: the source states no date
    source_publisher: str
    source_title: str
    source_url: str
    source_detail: str  # the source exactly as the file gives it
    confidence: str
    notes: str = ""
    context_length: int | None = None
    intro_input_per_million_usd: Decimal | None = None
    intro_cached_input_per_million_usd: Decimal | None = None
    intro_output_per_million_usd: Decimal | None = None
    intro_ends_on: date | None = None  # last day of the introductory offer

    @property
    def natural_key(self) -> tuple[str, str, date | None]:
        return (self.route, self.provider, self.captured_on)


def hub_id_for_route(route: str) -> str:
    """The catalog Hub id a hosted route serves, or "" when it is not in the catalog."""
    return ROUTE_TO_HUB_ID.get(route.lower(), "")


def source_rule(source: str) -> SourceRule:
    for rule in SOURCE_RULES:
        if source.startswith(rule.starts_with):
            return rule
    raise ApiPriceFileError(f"no citation rule for source {source[:80]!r}")


def load_api_prices(path: Path = API_PRICES_FILE) -> list[ApiPriceRecord]:
    """Every price in the file; an introductory-offer row is folded into its list-price row."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return parse_api_prices(data)


def parse_api_prices(data: dict[str, Any]) -> list[ApiPriceRecord]:
    rows = list(data["prices"])
    list_rows = [r for r in rows if not r.get("valid_until")]
    intro_rows = [r for r in rows if r.get("valid_until")]
    records = {id(r): _record(r) for r in list_rows}
    for intro in intro_rows:
        matches = [
            r
            for r in list_rows
            if r["model"] == intro["model"] and r["captured"] == intro["captured"] and r["source"] == intro["source"]
        ]
        if len(matches) != 1:
            raise ApiPriceFileError(f"introductory offer for {intro['model']} has {len(matches)} list-price rows")
        base = records[id(matches[0])]
        records[id(matches[0])] = _with_intro(base, intro)
    return [records[id(r)] for r in list_rows]


def _record(row: dict[str, Any]) -> ApiPriceRecord:
    route = str(row["model"])
    if route.lower() not in ROUTE_TO_HUB_ID and route.lower() not in ROUTES_NOT_IN_CATALOG:
        raise ApiPriceFileError(f"route {route!r} is neither mapped to a catalog model nor listed as absent")
    source = str(row["source"])
    rule = source_rule(source)
    urls = _URL.findall(source)
    provider = str(row["provider"])
    return ApiPriceRecord(
        route=route,
        hub_id=hub_id_for_route(route),
        provider=provider,
        input_per_million_usd=_price(row["input_per_mtok"]),
        cached_input_per_million_usd=_price_or_none(row.get("cached_input_per_mtok")),
        output_per_million_usd=_price(row["output_per_mtok"]),
        captured_on=date.fromisoformat(row["captured"]) if row.get("captured") else None,
        source_publisher=rule.publisher,
        source_title=rule.title,
        # the archived copy (the last link) is the one a reader can still open
        source_url=urls[-1] if urls else "",
        source_detail=source,
        confidence=CONFIDENCE_OVERRIDES.get((route, provider), rule.confidence),
        notes=str(row.get("note") or ""),
        context_length=row.get("context_length"),
    )


def _with_intro(base: ApiPriceRecord, intro: dict[str, Any]) -> ApiPriceRecord:
    notes = "\n".join(n for n in (base.notes, str(intro.get("note") or "")) if n)
    ends_on = date.fromisoformat(intro["valid_until"])
    # An offer cannot end before it was seen: such a date is a typo, and it would hide the offer on every day.
    if base.captured_on is not None and ends_on < base.captured_on:
        raise ApiPriceFileError(f"{base.route}: offer ends {ends_on} before it was seen on {base.captured_on}")
    return replace(
        base,
        intro_input_per_million_usd=_price(intro["input_per_mtok"]),
        intro_cached_input_per_million_usd=_price_or_none(intro.get("cached_input_per_mtok")),
        intro_output_per_million_usd=_price(intro["output_per_mtok"]),
        intro_ends_on=ends_on,
        notes=notes,
    )


def _price(value: Any) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ApiPriceFileError(f"price {value!r} is not a number")
    # repr of the JSON float keeps the digits the file wrote (0.2058, not its binary expansion)
    price = Decimal(repr(value)) if isinstance(value, float) else Decimal(str(value))
    if price < 0:
        raise ApiPriceFileError(f"negative price {value!r}")
    return price


def _price_or_none(value: Any) -> Decimal | None:
    return None if value is None else _price(value)


# --- OpenRouter's models endpoint (refreshed daily by pricing.refresh_api_prices) ---------------------------------

OPENROUTER_MODELS_URL = "https://openrouter.ai/api/v1/models"
OPENROUTER_LIST_PROVIDER = "OpenRouter (list price = top provider)"
_PER_MILLION = Decimal(1_000_000)


def parse_openrouter_models(payload: Any, captured_on: date) -> tuple[list[ApiPriceRecord], list[str]]:
    """Per-token list prices of the routes that serve a catalog model, and the ids of the routes left out.

    OpenRouter's ``pricing`` values are strings in USD per token (``prompt`` input, ``input_cache_read`` cached
    input, ``completion`` output; OpenRouterTeam/docs ``openapi/openapi.yaml``), the price of the model's top
    provider; they become USD per million tokens. A route serving no catalog model (``ROUTE_TO_HUB_ID``) is left out:
    no page reads it.
    """
    if not isinstance(payload, dict) or not isinstance(payload.get("data"), list):
        raise ApiPriceFileError("OpenRouter models: expected {'data': [...]}")
    rule = source_rule("OpenRouter GET https://openrouter.ai/api/v1/models")
    records, left_out = [], []
    for index, model in enumerate(payload["data"]):
        if not isinstance(model, dict) or not isinstance(model.get("id"), str):
            raise ApiPriceFileError(f"OpenRouter models: data[{index}] has no id")
        route = model["id"]
        hub_id = hub_id_for_route(route)
        if not hub_id:
            left_out.append(route)
            continue
        pricing = model.get("pricing")
        if not isinstance(pricing, dict):
            raise ApiPriceFileError(f"OpenRouter models: {route} has no pricing")
        cached = pricing.get("input_cache_read")
        records.append(
            ApiPriceRecord(
                route=route,
                hub_id=hub_id,
                provider=OPENROUTER_LIST_PROVIDER,
                input_per_million_usd=_per_million(pricing.get("prompt"), f"{route} prompt"),
                cached_input_per_million_usd=None if cached is None else _per_million(cached, f"{route} cache"),
                output_per_million_usd=_per_million(pricing.get("completion"), f"{route} completion"),
                captured_on=captured_on,
                source_publisher=rule.publisher,
                source_title=rule.title,
                source_url=OPENROUTER_MODELS_URL,
                source_detail=f"OpenRouter GET {OPENROUTER_MODELS_URL} (public), read {captured_on.isoformat()}; "
                "'pricing' = price of the model's top provider",
                confidence=rule.confidence,
                context_length=model.get("context_length") if isinstance(model.get("context_length"), int) else None,
            )
        )
    return records, left_out


def _per_million(value: Any, where: str) -> Decimal:
    """A per-token price string as USD per million tokens, exactly ("0.0000002058" -> 0.2058)."""
    if not isinstance(value, str):
        raise ApiPriceFileError(f"{where}: expected a price string, got {value!r}")
    try:
        per_token = Decimal(value)
    except ArithmeticError as exc:
        raise ApiPriceFileError(f"{where}: not a number: {value!r}") from exc
    if per_token < 0 or not per_token.is_finite():
        raise ApiPriceFileError(f"{where}: negative or invalid price {value!r}")
    return (per_token * _PER_MILLION).normalize()
