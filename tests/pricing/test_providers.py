"""Every provider parser against its recorded response, plus the schema-drift cases each must refuse."""

import copy
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from pricing.gpus import gpu_by_slug
from pricing.providers import (
    API_PROVIDERS,
    PayloadError,
    curated,
    runpod,
    tensordock,
    vastai,
    vultr,
)

RECORDED = Path(__file__).resolve().parent.parent / "data" / "provider-apis"
AT = datetime(2026, 8, 8, 15, 32, tzinfo=UTC)


def recorded(name: str):
    return json.loads((RECORDED / name).read_text())


def by_key(offers):
    return {(o.gpu_slug, o.pricing_kind): o for o in offers}


def test_our_parsers_and_gpuhunt_sources_each_have_fetch_and_parse():
    assert set(API_PROVIDERS) == {
        *("runpod", "vastai", "vultr", "tensordock"),  # our parsers
        *("aws", "azure", "gcp", "oci", "nebius", "lambda", "verda", "cloudrift"),  # gpuhunt catalogs
        "lium",  # gpuhunt online
    }
    for module in API_PROVIDERS.values():
        assert callable(module.fetch) and callable(module.parse)
        assert module.INFO.endpoint.startswith("https://")


def test_runpod_recorded_response_gives_secure_community_and_spot_offers():
    skipped: list[str] = []
    offers = runpod.parse(recorded("runpod-example.json"), AT, skipped)
    found = by_key(offers)
    assert found[("h200-sxm", "on-demand")].price_per_gpu_hour_usd == 4.59
    assert found[("h200-sxm", "community")].price_per_gpu_hour_usd == 3.59
    assert found[("h200-sxm", "spot")].price_per_gpu_hour_usd == 3.59
    assert found[("mi300x", "on-demand")].price_per_gpu_hour_usd == 2.39
    assert found[("b200", "on-demand")].price_per_gpu_hour_usd == 6.79
    assert all(o.captured_at == AT and o.provider_slug == "runpod" for o in offers)
    assert skipped == ["NVIDIA GeForce RTX 3070"]  # not in our GPU table


def test_runpod_community_placeholder_price_is_not_an_offer():
    offers = runpod.parse(recorded("runpod-example.json"), AT)
    assert ("mi300x", "community") not in by_key(offers)  # communityPrice 0.5 with no lowestPrice data


def test_runpod_zero_price_means_not_offered():
    payload = recorded("runpod-example.json")
    payload["data"]["gpuTypes"][4]["securePrice"] = 0  # RTX 4090
    assert ("rtx-4090", "on-demand") not in by_key(runpod.parse(payload, AT))


def test_vastai_recorded_offers_become_median_offers_per_gpu_and_rental_type():
    offers = vastai.parse(recorded("vastai-recorded-offers-2026-08-08.json"), AT)
    found = by_key(offers)
    assert found[("h100-sxm", "on-demand")].price_per_gpu_hour_usd == pytest.approx(1.7356, abs=1e-4)
    assert found[("h100-sxm", "spot")].price_per_gpu_hour_usd == pytest.approx(0.4059, abs=1e-4)
    assert found[("b200", "on-demand")].gpu_counts == (1,)
    assert found[("rtx-4090", "on-demand")].region == "global marketplace"


def test_vastai_median_is_over_per_gpu_prices_and_counts_are_those_on_offer():
    base = recorded("vastai-recorded-offers-2026-08-08.json")["offers"][0]
    rows = []
    for num_gpus, total in ((1, 2.0), (2, 6.0), (8, 40.0)):  # per GPU: 2, 3, 5
        row = dict(base, num_gpus=num_gpus, dph_total=total)
        rows.append(row)
    (offer,) = vastai.parse({"offers": rows}, AT)
    assert offer.price_per_gpu_hour_usd == 3.0
    assert offer.gpu_counts == (1, 2, 8)


def test_vastai_docs_example_has_no_known_gpu():
    skipped: list[str] = []
    assert vastai.parse(recorded("vastai-example.json"), AT, skipped) == []
    assert skipped == ["Imaginary RTX 9999"]


def test_vultr_gpu_plan_hourly_price_uses_the_672_hour_month():
    (offer,) = vultr.parse(recorded("vultr-example.json"), AT)
    assert offer.gpu_slug == "l40s"
    assert offer.gpu_counts == (1,)
    assert offer.price_per_gpu_hour_usd == pytest.approx(1.671, abs=1e-4)  # Vultr's page price, 2026-05-24
    assert offer.confidence == "medium"


def test_tensordock_docs_example_gives_per_gpu_price_and_counts_up_to_max():
    (offer,) = tensordock.parse(recorded("tensordock-example.json"), AT)
    assert offer.gpu_slug == "h100-sxm"
    assert offer.price_per_gpu_hour_usd == 2.2
    assert offer.gpu_counts == tuple(range(1, 9))
    assert offer.region == "Austin, United States"


def test_every_parsed_gpu_is_in_the_gpu_table():
    for module, name in (
        (runpod, "runpod-example.json"),
        (vastai, "vastai-recorded-offers-2026-08-08.json"),
        (vultr, "vultr-example.json"),
        (tensordock, "tensordock-example.json"),
    ):
        for offer in module.parse(recorded(name), AT):
            assert gpu_by_slug(offer.gpu_slug) is not None, (name, offer.gpu_slug)


def test_provider_gpu_name_tables_only_name_gpus_we_know():
    tables = [runpod.GPU_IDS, vastai.GPU_NAMES, tensordock.GPU_NAMES]
    slugs = {slug for table in tables for slug in table.values()}
    slugs |= {slug for slug in vultr.GPU_TYPES.values() if slug}
    assert all(gpu_by_slug(slug) is not None for slug in slugs)


# --- schema drift: each of these must raise, so the refresh keeps the last good offers ------------------------


def _runpod_with(**changes):
    payload = recorded("runpod-example.json")
    row = payload["data"]["gpuTypes"][6]  # H200
    for key, value in changes.items():
        if value is KeyError:
            del row[key]
        else:
            row[key] = value
    return payload


@pytest.mark.parametrize(
    "payload",
    [
        pytest.param(_runpod_with(securePrice=KeyError), id="missing-field"),
        pytest.param(_runpod_with(securePrice="4.59"), id="price-as-string"),
        pytest.param(_runpod_with(securePrice=-4.59), id="negative-price"),
        pytest.param(_runpod_with(securePrice=4590.0), id="absurd-price"),
        pytest.param(_runpod_with(securePrice=True), id="boolean-price"),
        pytest.param({"data": {"gpuTypes": {"id": "x"}}}, id="list-became-object"),
        pytest.param({"errors": [{"message": "unauthorized"}]}, id="graphql-error"),
    ],
)
def test_runpod_schema_drift_is_refused(payload):
    with pytest.raises(PayloadError):
        runpod.parse(payload, AT)


@pytest.mark.parametrize(
    ("module", "name", "mutate"),
    [
        (vastai, "vastai-recorded-offers-2026-08-08.json", lambda p: p["offers"][0].pop("dph_total")),
        (vastai, "vastai-recorded-offers-2026-08-08.json", lambda p: p["offers"][0].update(dph_total="1.7")),
        (vastai, "vastai-recorded-offers-2026-08-08.json", lambda p: p["offers"][0].update(num_gpus=0)),
        (vultr, "vultr-example.json", lambda p: p["plans"][1].pop("monthly_cost")),
        (
            tensordock,
            "tensordock-example.json",
            lambda p: p["data"]["locations"][0]["gpus"][0].update(price_per_hr=99999),
        ),
    ],
    ids=[
        "vast-missing",
        "vast-string",
        "vast-zero-gpus",
        "vultr-missing",
        "tensordock-absurd",
    ],
)
def test_schema_drift_is_refused_by_every_parser(module, name, mutate):
    payload = copy.deepcopy(recorded(name))
    mutate(payload)
    with pytest.raises(PayloadError):
        module.parse(payload, AT)


def test_curated_file_rows_keep_their_own_dates_and_confidence():
    document = {
        "format": curated.FORMAT,
        "provider": {"slug": "coreweave", "name": "CoreWeave"},
        "captured": "2026-11-13",
        "offers": [
            {
                "gpu_slug": "h200-sxm",
                "instance_name": "HGX H200",
                "gpu_counts": [8],
                "price_per_gpu_hour_usd": "6.305",
                "instance_price_usd": [[8, "50.44"]],
                "captured_on": "2026-05-24",
                "confidence": "low",
                "source": "s",
            },
        ],
    }
    (offer,) = curated.parse(document, AT)
    assert offer.captured_at == datetime(2026, 5, 24, tzinfo=UTC)
    assert offer.confidence == "low"
    assert offer.instance_price_per_hour(8) == 50.44
    assert offer.price_per_gpu_hour_usd == 6.305
