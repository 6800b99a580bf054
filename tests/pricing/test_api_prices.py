"""Hosted per-token API prices: the shipped file, its mapping to catalog models, loading and the price on a day."""

import json
from datetime import date
from decimal import Decimal
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from pricing.api_price_services import api_prices_load
from pricing.api_prices import (
    API_PRICES_FILE,
    ROUTE_TO_HUB_ID,
    ROUTES_NOT_IN_CATALOG,
    ApiPriceFileError,
    load_api_prices,
    parse_api_prices,
)
from pricing.models import ApiPrice
from pricing.selectors import api_prices_for

ROOT = Path(__file__).resolve().parents[2]
CATALOG = ROOT / "models_catalog" / "data" / "hub"
GLM_FLASH = "zai-org/GLM-5.3-Flash"


def catalog_hub_ids() -> set[str]:
    return {f"{p.parent.parent.name}/{p.parent.name}" for p in CATALOG.glob("*/*/meta.json")}


def raw_rows() -> list[dict]:
    return json.loads(API_PRICES_FILE.read_text(encoding="utf-8"))["prices"]


# --- the file and its mapping ---------------------------------------------------------------------------------


def test_every_mapped_route_names_a_model_in_the_catalog():
    assert set(ROUTE_TO_HUB_ID.values()) <= catalog_hub_ids()


def test_every_route_in_the_file_is_mapped_or_said_to_be_absent():
    routes = {row["model"] for row in raw_rows()}
    assert routes <= set(ROUTE_TO_HUB_ID) | set(ROUTES_NOT_IN_CATALOG)
    assert not set(ROUTE_TO_HUB_ID) & set(ROUTES_NOT_IN_CATALOG)


def test_every_row_whose_model_is_in_the_catalog_maps_to_it():
    by_name = {hub_id.split("/")[1].lower(): hub_id for hub_id in catalog_hub_ids()}
    for record in load_api_prices():
        same_name = by_name.get(record.route.split("/")[1])
        if same_name:
            assert record.hub_id == same_name, record.route
    mapped = {r.route: r.hub_id for r in load_api_prices() if r.hub_id}
    assert mapped == {route: hub_id for route, hub_id in ROUTE_TO_HUB_ID.items() if route in mapped}
    assert len(mapped) == 39


def test_file_rows_become_74_prices_with_each_time_limited_price_folded_into_its_list_price():
    records = load_api_prices()
    # 7 time-limited rows: GLM-5.3-Flash's introductory offer and 6 OpenRouter discounts
    assert len(raw_rows()) == 81
    assert len([row for row in raw_rows() if row.get("valid_until")]) == 7
    assert len(records) == 74
    assert sum(1 for r in records if r.hub_id) == 56
    assert len({r.natural_key for r in records}) == 74


def test_every_price_keeps_its_source_date_and_a_confidence():
    for record in load_api_prices():
        assert record.source_title and record.source_detail
        assert record.confidence in {"high", "medium", "low"}
        if record.source_publisher:  # only the undated article names no publisher and no link
            assert record.source_url.startswith("https://github.com/")
            assert record.captured_on is not None


def test_second_hand_undated_glm_flash_price_is_low_confidence():
    (glm,) = [r for r in load_api_prices() if r.route == "z-ai/glm-5.3-flash"]
    assert glm.confidence == "low"
    assert glm.captured_on is None
    assert glm.intro_ends_on == date(2026, 9, 9)


def test_doubtful_price_is_not_high_confidence():
    (row,) = [
        r for r in load_api_prices() if r.route == "deepseek/deepseek-v4-pro" and r.provider.startswith("OpenRouter")
    ]
    assert row.cached_input_per_million_usd == Decimal("0.003625")
    assert row.confidence == "medium"


def test_prices_keep_the_digits_the_file_wrote():
    (row,) = [r for r in load_api_prices() if r.route == "z-ai/glm-5.2" and r.provider.startswith("OpenRouter (")]
    assert (row.intro_input_per_million_usd, row.intro_cached_input_per_million_usd) == (
        Decimal("0.2058"),
        Decimal("0.03822"),
    )


def test_an_unknown_route_is_refused_until_someone_maps_it():
    row = dict(raw_rows()[0], model="acme/new-model")
    with pytest.raises(ApiPriceFileError, match="acme/new-model"):
        parse_api_prices({"prices": [row]})


# --- loading and reading ---------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_loading_twice_appends_nothing_the_second_time():
    first = api_prices_load()
    second = api_prices_load()
    assert (first.added, first.already_present, first.mapped) == (74, 0, 56)
    assert (second.added, second.already_present) == (0, 74)
    assert ApiPrice.objects.count() == 74


@pytest.mark.django_db
def test_stored_prices_are_never_rewritten():
    api_prices_load()
    row = ApiPrice.objects.first()
    row.input_per_million_usd = Decimal("9")
    with pytest.raises(ValueError, match="append-only"):
        row.save()


@pytest.mark.django_db
def test_glm_flash_list_price_after_the_introductory_offer():
    api_prices_load()
    (price,) = api_prices_for(GLM_FLASH, date(2026, 11, 30))
    assert (
        price.prices.input_per_million_usd,
        price.prices.cached_input_per_million_usd,
        price.prices.output_per_million_usd,
    ) == (Decimal("0.15"), Decimal("0.03"), Decimal("0.50"))
    assert price.intro_applies is False
    assert price.intro_expired is True
    assert price.route == "z-ai/glm-5.3-flash"
    assert price.confidence == "low"
    assert price.captured_on is None
    assert price.source.title.startswith("GLM-5.3-Flash VRAM-Anforderungen")


@pytest.mark.django_db
def test_glm_flash_introductory_price_in_force_until_its_last_day():
    api_prices_load()
    (during,) = api_prices_for(GLM_FLASH, date(2026, 9, 1))
    assert (
        during.prices.input_per_million_usd,
        during.prices.cached_input_per_million_usd,
        during.prices.output_per_million_usd,
    ) == (Decimal("0.075"), Decimal("0.015"), Decimal("0.25"))
    assert during.intro_applies is True and during.intro_expired is False
    assert during.list_prices.output_per_million_usd == Decimal("0.5")
    (last_day,) = api_prices_for(GLM_FLASH, date(2026, 9, 9))
    assert last_day.intro_applies is True
    (day_after,) = api_prices_for(GLM_FLASH, date(2026, 9, 10))
    assert day_after.intro_expired is True
    assert day_after.prices.input_per_million_usd == Decimal("0.15")


@pytest.mark.django_db
def test_hub_id_lookup_ignores_case():
    api_prices_load()
    assert len(api_prices_for("ZAI-ORG/glm-5.3-flash", date(2026, 11, 30))) == 1


@pytest.mark.django_db
def test_only_captures_made_by_the_day_count_and_the_newest_wins():
    api_prices_load()
    assert api_prices_for("meta-llama/Llama-3.3-70B-Instruct", date(2026, 6, 1)) == []
    june = api_prices_for("meta-llama/Llama-3.3-70B-Instruct", date(2026, 7, 1))
    assert [p.provider for p in june] == ["AWS Bedrock us-east-1 (Meta Llama 3.3 70B)"]
    august = api_prices_for("meta-llama/Llama-3.3-70B-Instruct", date(2026, 11, 30))
    assert len(august) == 6
    outputs = [p.prices.output_per_million_usd for p in august]
    assert outputs == sorted(outputs)
    newer = ApiPrice.objects.get(route="meta-llama/llama-3.3-70b-instruct", provider="OpenRouter endpoint: Groq")
    ApiPrice.objects.create(
        **{
            f.name: getattr(newer, f.name)
            for f in ApiPrice._meta.concrete_fields
            if f.name not in {"id", "captured_on", "output_per_million_usd"}
        },
        captured_on=date(2026, 11, 1),
        output_per_million_usd=Decimal("0.70"),
    )
    groq = [p for p in api_prices_for("meta-llama/Llama-3.3-70B-Instruct", date(2026, 11, 30)) if "Groq" in p.provider]
    assert [(p.captured_on, p.prices.output_per_million_usd) for p in groq] == [(date(2026, 11, 1), Decimal("0.7"))]
    october = api_prices_for("meta-llama/Llama-3.3-70B-Instruct", date(2026, 10, 1))
    assert [p.captured_on for p in october if "Groq" in p.provider] == [date(2026, 8, 8)]


@pytest.mark.django_db
def test_a_model_without_hosted_prices_gets_none():
    api_prices_load()
    assert api_prices_for("Qwen/Qwen3-0.6B", date(2026, 11, 30)) == []


@pytest.mark.django_db
def test_bundled_data_loads_the_api_prices_once():
    out = StringIO()
    call_command("load_bundled_data", stdout=out, stderr=StringIO())
    call_command("load_bundled_data", stdout=out, stderr=StringIO())
    assert ApiPrice.objects.count() == 74
    assert "Hosted API prices: 74 added, 0 already present, 56 serve a catalog model" in out.getvalue()
    assert "Hosted API prices: 0 added, 74 already present" in out.getvalue()


# --- time-limited prices and the models the snapshot added -----------------------------------------------------

SNAPSHOT_URL = (
    "https://github.com/sui414/openrouter-pricing-data/blob/0427e0eca09b86f90dcf8c065ea35ac203180055/"
    "data/raw/2026-08-08/models.json.gz"
)


def test_an_openrouter_discount_is_a_time_limited_price_ending_the_day_it_was_seen():
    noted = [row for row in raw_rows() if "OpenRouter's discount" in str(row.get("note"))]
    undiscounted = [row for row in noted if str(row["note"]).startswith("undiscounted price")]
    discounted = [row for row in noted if row not in undiscounted]
    assert len(undiscounted) == len(discounted) == 6
    assert {row["model"] for row in discounted} == {
        "z-ai/glm-5.2",
        "z-ai/glm-5.1",
        "moonshotai/kimi-k2.6",
        "minimax/minimax-m2",
        "minimax/minimax-m2.7",
        "deepseek/deepseek-chat",
    }
    assert all(row["valid_until"] == row["captured"] == "2026-08-08" for row in discounted)
    # the price a reader gets after that day is the undiscounted one, computed and marked below high confidence
    (v3,) = [r for r in load_api_prices() if r.route == "deepseek/deepseek-chat"]
    assert (v3.input_per_million_usd, v3.output_per_million_usd) == (Decimal("0.286"), Decimal("1.143"))
    assert (v3.intro_input_per_million_usd, v3.intro_output_per_million_usd) == (Decimal("0.2574"), Decimal("1.0287"))
    assert v3.confidence == "medium" and v3.notes.startswith("undiscounted price, computed")


def test_an_offer_that_ends_before_it_was_seen_is_refused():
    rows = [dict(row) for row in raw_rows() if row["model"] == "deepseek/deepseek-chat"]
    rows[1]["valid_until"] = "2026-08-07"
    with pytest.raises(ApiPriceFileError, match="ends 2026-08-07 before it was seen"):
        parse_api_prices({"prices": rows})


@pytest.mark.django_db
def test_llama_3_1_8b_has_a_hosted_price_with_its_source_and_date():
    api_prices_load()
    (price,) = api_prices_for("meta-llama/Llama-3.1-8B-Instruct", date(2026, 12, 5))
    assert price.route == "meta-llama/llama-3.1-8b-instruct"
    assert (
        price.prices.input_per_million_usd,
        price.prices.cached_input_per_million_usd,
        price.prices.output_per_million_usd,
    ) == (Decimal("0.05"), Decimal("0.025"), Decimal("0.08"))
    assert price.captured_on == date(2026, 8, 8) and price.source.url == SNAPSHOT_URL
    assert price.confidence == "high" and not price.intro_applies and "'Groq'" in price.notes


@pytest.mark.django_db
def test_an_openrouter_discount_applies_on_its_day_and_the_undiscounted_price_after():
    api_prices_load()
    (seen,) = api_prices_for("deepseek-ai/DeepSeek-V3", date(2026, 8, 8))
    assert seen.intro_applies and seen.intro_ends_on == date(2026, 8, 8)
    assert (seen.prices.input_per_million_usd, seen.prices.output_per_million_usd) == (
        Decimal("0.2574"),
        Decimal("1.0287"),
    )
    (after,) = api_prices_for("deepseek-ai/DeepSeek-V3", date(2026, 8, 9))
    assert not after.intro_applies and after.intro_expired
    assert after.prices == after.list_prices
    assert (after.prices.input_per_million_usd, after.prices.output_per_million_usd) == (
        Decimal("0.286"),
        Decimal("1.143"),
    )
