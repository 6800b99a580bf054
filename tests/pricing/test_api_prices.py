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
    assert len(mapped) == 11


def test_file_rows_become_46_prices_with_the_introductory_offer_folded_into_its_list_price():
    records = load_api_prices()
    assert len(raw_rows()) == 47
    assert len(records) == 46
    assert sum(1 for r in records if r.hub_id) == 28
    assert len({r.natural_key for r in records}) == 46


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
    assert (row.input_per_million_usd, row.cached_input_per_million_usd) == (Decimal("0.2058"), Decimal("0.03822"))


def test_an_unknown_route_is_refused_until_someone_maps_it():
    row = dict(raw_rows()[0], model="acme/new-model")
    with pytest.raises(ApiPriceFileError, match="acme/new-model"):
        parse_api_prices({"prices": [row]})


# --- loading and reading ---------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_loading_twice_appends_nothing_the_second_time():
    first = api_prices_load()
    second = api_prices_load()
    assert (first.added, first.already_present, first.mapped) == (46, 0, 28)
    assert (second.added, second.already_present) == (0, 46)
    assert ApiPrice.objects.count() == 46


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
    assert ApiPrice.objects.count() == 46
    assert "Hosted API prices: 46 added, 0 already present, 28 serve a catalog model" in out.getvalue()
    assert "Hosted API prices: 0 added, 46 already present" in out.getvalue()
