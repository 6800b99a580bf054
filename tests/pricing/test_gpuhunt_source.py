"""gpuhunt's published catalogs: the layout, the GPU-name mapping, spot beside on-demand, failures keep last offers."""

import csv
import io
import zipfile
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import httpx
import pytest
import respx

from calculator.estimation.plan.ranking import rank
from pricing.bundled import gpus_sync
from pricing.gpus import gpu_by_slug, load_gpus
from pricing.models import Offer, PriceSnapshot
from pricing.providers import API_PROVIDERS, PayloadError, gpuhunt_source
from pricing.selectors import current_offers, provider_statuses
from pricing.services import offers_refresh

CATALOGS = Path(__file__).resolve().parent.parent / "data" / "gpuhunt" / "v3"
T0 = datetime(2026, 11, 29, 6, 0, tzinfo=UTC)
GB = 10**9


def catalog_csv(provider: str) -> str:
    version = (CATALOGS / provider / "version").read_text().strip()
    return (CATALOGS / provider / version / f"{provider}.csv").read_text()


def catalog_zip(provider: str) -> bytes:
    """The recorded catalog packed as gpuhunt's CI publishes it: catalog.zip holding {provider}.csv."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr(f"{provider}.csv", catalog_csv(provider))
    return out.getvalue()


def mock_catalog(mock: respx.MockRouter, provider: str) -> None:
    base = f"{gpuhunt_source.CATALOG_URL}/{provider}"
    version = (CATALOGS / provider / "version").read_text()
    mock.get(f"{base}/version").respond(200, text=version)
    mock.get(f"{base}/{version.strip()}/catalog.zip").respond(200, content=catalog_zip(provider))


@pytest.fixture
def db_gpus(db):
    gpus_sync()


def test_every_gpu_name_in_the_recorded_catalogs_is_mapped_or_left_out_on_purpose():
    for provider in ("aws", "azure", "gcp"):
        for row in csv.DictReader(io.StringIO(catalog_csv(provider))):
            name, memory = row["gpu_name"], float(row["gpu_memory"])
            slug = gpuhunt_source.gpu_slug_for(name, memory, row["instance_name"])
            assert slug is not None and gpu_by_slug(slug) is not None, (provider, name, memory)


def test_every_gpu_gpuhunt_knows_is_mapped_or_left_out_on_purpose():
    # Upgrading gpuhunt to a version that knows a new GPU fails here until someone maps it or says why not.
    undecided = [(n, m) for n, m in gpuhunt_source.known_gpu_names() if not gpuhunt_source.is_known_gpu_name(n, m)]
    assert undecided == []


def test_the_mapping_table_names_only_gpus_of_our_catalog():
    slugs = set(gpuhunt_source.GPU_NAMES.values())
    slugs |= {s for _, swaps in gpuhunt_source.FORM_FACTOR_BY_INSTANCE for s in swaps.values()}
    assert {s for s in slugs if gpu_by_slug(s) is None} == set()


def test_an_unmapped_gpu_name_fails_the_check():
    assert not gpuhunt_source.is_known_gpu_name("RTX9999", 64)
    assert gpuhunt_source.gpu_slug_for("RTX9999", 64) is None


def test_gpuhunt_names_the_chip_and_the_instance_tells_the_form_factor():
    assert gpuhunt_source.gpu_slug_for("A100", 80, "Standard_ND96amsr_A100_v4") == "a100-80gb-sxm"
    assert gpuhunt_source.gpu_slug_for("A100", 80, "Standard_NC24ads_A100_v4") == "a100-80gb-pcie"
    assert gpuhunt_source.gpu_slug_for("A100", 40, "p4d.24xlarge") == "a100-40gb-sxm"
    assert gpuhunt_source.gpu_slug_for("H100", 80, "gpu_1x_h100_pcie") == "h100-pcie"
    assert gpuhunt_source.gpu_slug_for("H100NVL", 94, "Standard_NC40ads_H100_v5") == "h100-nvl"


def test_lambdas_plain_a100_instance_is_the_40gb_pcie_card():
    # Lambda's API: gpu_1x_a100 "1x A100 (40 GB PCIe)", gpu_1x_a100_sxm4 "1x A100 (40 GB SXM4)"; gpuhunt passes on
    # "A100" and 40 GB of both, so only the instance name keeps the two apart.
    assert gpuhunt_source.gpu_slug_for("A100", 40, "gpu_1x_a100") == "a100-40gb-pcie"
    assert gpuhunt_source.gpu_slug_for("A100", 40, "gpu_1x_a100_sxm4") == "a100-40gb-sxm"


def test_the_recorded_azure_catalog_keeps_every_form_factor_apart():
    """NC A100 v4 (PCIe) and NDm A100 v4 (SXM) are both "A100" 80 GB in gpuhunt; NC H100 v5 is the H100 NVL, ND H100
    v5 the SXM part: each stays its own GPU with its own price per GPU-hour."""
    offers = API_PROVIDERS["azure"].parse(_payload("azure"), T0)
    by_gpu: dict[str, set[float]] = {}
    for offer in offers:
        by_gpu.setdefault(offer.gpu_slug, set()).add(offer.price_per_gpu_hour_usd)
    assert by_gpu == {
        "a100-80gb-pcie": {3.673},
        "a100-80gb-sxm": {4.09625},
        "h100-nvl": {6.98},
        "h100-sxm": {12.29},
        "h200-sxm": {10.6},
    }


def _payload(provider: str) -> dict:
    import json

    return json.loads(gpuhunt_source.payload_bytes(provider, "assembled-20260615", "recorded", catalog_csv(provider)))


def test_aws_catalog_rows_become_instance_priced_offers_per_gpu():
    offers = API_PROVIDERS["aws"].parse(_payload("aws"), T0)
    assert len(offers) == 13
    p5 = next(o for o in offers if o.instance_name == "p5.48xlarge")
    assert (p5.gpu_slug, p5.gpu_counts, p5.region, p5.pricing_kind) == ("h100-sxm", (8,), "us-east-1", "on-demand")
    assert p5.instance_price_per_hour(8) == 55.04 and p5.price_per_gpu_hour_usd == 6.88
    assert "assembled-20260615" in p5.source


def test_spot_rows_are_spot_offers_never_on_demand():
    offers = API_PROVIDERS["gcp"].parse(_payload("gcp"), T0)
    assert sorted((o.pricing_kind, o.instance_price_per_hour(8)) for o in offers) == [
        ("on-demand", 128.88),
        ("spot", 34.2368),
    ]


def test_a_catalog_of_another_provider_or_a_broken_row_is_refused():
    with pytest.raises(PayloadError):
        API_PROVIDERS["azure"].parse(_payload("aws"), T0)
    broken = _payload("aws")
    broken["csv"] = broken["csv"].replace("55.04", "fifty-five")
    with pytest.raises(PayloadError):
        API_PROVIDERS["aws"].parse(broken, T0)


@respx.mock
def test_refresh_reads_the_published_version_and_stores_it_on_the_snapshot(db_gpus):
    mock_catalog(respx.mock, "azure")
    result = offers_refresh("azure", now=T0)
    assert (result.outcome, result.offer_count) == ("success", 8)
    snapshot = PriceSnapshot.objects.get()
    assert snapshot.catalog_version == "assembled-20260615"
    assert Offer.objects.filter(gpu__slug="a100-80gb-pcie").count() == 3
    # The same version again: an unchanged snapshot that confirms the offers, no new rows.
    assert offers_refresh("azure", now=T0 + timedelta(hours=24)).outcome == "unchanged"
    assert Offer.objects.count() == 8


@respx.mock
def test_a_provider_failing_in_gpuhunt_keeps_its_last_good_offers(db_gpus):
    mock_catalog(respx.mock, "aws")
    assert offers_refresh("aws", now=T0).outcome == "success"
    respx.mock.get(f"{gpuhunt_source.CATALOG_URL}/aws/version").respond(404)
    later = T0 + timedelta(days=1)
    assert offers_refresh("aws", now=later).outcome == "failed"
    offers = current_offers(provider_slugs=["aws"], now=later)
    assert len(offers) == 13 and all(o.stale for o in offers)
    (status,) = provider_statuses(now=later)
    assert status.stale and "404" in status.last_error


@respx.mock
def test_a_broken_archive_is_a_failed_refresh_not_a_crash(db_gpus):
    base = f"{gpuhunt_source.CATALOG_URL}/gcp"
    respx.mock.get(f"{base}/version").respond(200, text="20261129-7\n")
    respx.mock.get(f"{base}/20261129-7/catalog.zip").respond(200, content=b"not a zip")
    result = offers_refresh("gcp", now=T0)
    assert result.outcome == "failed" and "not a gpuhunt catalog archive" in result.error
    assert Offer.objects.count() == 0


@respx.mock
def test_network_trouble_reading_a_catalog_is_retryable(db_gpus):
    respx.mock.get(f"{gpuhunt_source.CATALOG_URL}/oci/version").mock(side_effect=httpx.ConnectError("down"))
    result = offers_refresh("oci", now=T0)
    assert result.outcome == "failed" and result.retryable


@respx.mock
def test_spot_is_never_ranked_as_on_demand(db_gpus):
    mock_catalog(respx.mock, "gcp")
    offers_refresh("gcp", now=T0)
    offers = current_offers(now=T0)
    assert {o.pricing_kind for o in offers} == {"on-demand", "spot"}
    need = 1000 * GB  # eight B200 (180 GB each) hold it
    on_demand = rank(need, offers, load_gpus())
    assert on_demand.cheapest is not None and on_demand.cheapest.offer.pricing_kind == "on-demand"
    assert on_demand.cheapest.per_hour_usd == Decimal("128.88")
    spot = rank(need, offers, load_gpus(), pricing_kinds=("spot",))
    assert spot.cheapest is not None and spot.cheapest.per_hour_usd == Decimal("34.2368")
