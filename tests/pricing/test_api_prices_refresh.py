"""Hosted per-token prices refreshed from OpenRouter's public models endpoint (a recorded 2026-08-08 response)."""

import json
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path

import pytest
import respx

from pricing.api_price_services import api_prices_refresh
from pricing.api_prices import OPENROUTER_MODELS_URL, ROUTE_TO_HUB_ID, parse_openrouter_models
from pricing.models import ApiPrice
from pricing.selectors import api_prices_for
from pricing.services import RefreshTemporarilyFailed

RECORDED = (
    Path(__file__).resolve().parent.parent / "data" / "provider-apis" / "openrouter-recorded-models-2026-08-08.json"
)
DAY = date(2026, 8, 8)
AT = datetime(2026, 8, 8, 15, 31, tzinfo=UTC)


def test_per_token_strings_become_exact_prices_per_million():
    records, left_out = parse_openrouter_models(json.loads(RECORDED.read_bytes()), DAY)
    prices = {
        r.route: (r.input_per_million_usd, r.cached_input_per_million_usd, r.output_per_million_usd) for r in records
    }
    assert prices == {
        "meta-llama/llama-3.3-70b-instruct": (Decimal("0.1"), None, Decimal("0.32")),
        "openai/gpt-oss-120b": (Decimal("0.037"), None, Decimal("0.17")),
    }
    assert left_out == ["z-ai/glm-5.2"]  # GLM-5.2 is not in the catalog


def test_cached_input_comes_from_input_cache_read():
    payload = json.loads(RECORDED.read_bytes())
    glm = payload["data"][0]
    glm["id"] = "z-ai/glm-5"  # the recorded GLM-5.2 row's prices, under a mapped route, to read its cache price
    (record,), _ = parse_openrouter_models({"data": [glm]}, DAY)
    assert (record.input_per_million_usd, record.cached_input_per_million_usd, record.output_per_million_usd) == (
        Decimal("0.2058"),
        Decimal("0.03822"),
        Decimal("0.6468"),
    )


def test_route_mapping_agrees_with_the_hub_ids_openrouter_states():
    for model in json.loads(RECORDED.read_bytes())["data"]:
        if model["id"] in ROUTE_TO_HUB_ID:
            assert ROUTE_TO_HUB_ID[model["id"]] == model["hugging_face_id"]


@pytest.mark.django_db
def test_refresh_appends_dated_rows_once_per_day():
    result = api_prices_refresh(raw=RECORDED.read_bytes(), now=AT)
    assert (result.added, result.left_out) == (2, 1)
    assert api_prices_refresh(raw=RECORDED.read_bytes(), now=AT).already_present == 2
    assert ApiPrice.objects.count() == 2
    (llama,) = api_prices_for("meta-llama/Llama-3.3-70B-Instruct", DAY)
    assert (
        llama.captured_on == DAY
        and llama.confidence == "high"
        and llama.prices.output_per_million_usd == Decimal("0.32")
    )


@pytest.mark.django_db
@respx.mock
def test_refresh_reads_the_public_endpoint_and_retries_on_5xx():
    respx.get(OPENROUTER_MODELS_URL).respond(200, content=RECORDED.read_bytes())
    assert api_prices_refresh(now=AT).added == 2
    respx.get(OPENROUTER_MODELS_URL).respond(503)
    with pytest.raises(RefreshTemporarilyFailed):
        api_prices_refresh(now=AT)


@pytest.mark.django_db
def test_a_malformed_answer_stores_nothing():
    result = api_prices_refresh(raw=b'{"data": {"id": "x"}}', now=AT)
    assert result.error and ApiPrice.objects.count() == 0
