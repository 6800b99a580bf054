"""refresh_prices and load_prices: the refresh from the shell, and the bundled data a fresh install loads."""

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from pricing.models import Gpu, Offer, PriceSnapshot, Provider
from pricing.selectors import current_offers

RECORDED = Path(__file__).resolve().parent.parent / "data" / "provider-apis"

pytestmark = pytest.mark.django_db


def run(name, *args) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command(name, *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_load_prices_loads_gpus_and_the_shipped_dated_snapshot():
    out, err = run("load_prices")
    assert Gpu.objects.count() == 58
    assert Provider.objects.count() == 21
    assert Offer.objects.count() == 289
    assert "21 of 21 providers refreshed" in out and not err


def test_load_prices_twice_adds_no_duplicate_offers():
    run("load_prices")
    run("load_prices")
    assert Offer.objects.count() == 289
    assert PriceSnapshot.objects.filter(outcome="unchanged").count() == 21


def test_shipped_snapshot_rows_keep_their_date_confidence_and_notes():
    run("load_prices")
    offers = current_offers()
    low = [o for o in offers if o.confidence == "low"]
    assert low and all(o.source for o in low)
    dates = {f"{o.captured_at:%Y-%m-%d}" for o in offers}
    assert {"2026-05-08", "2026-06-15", "2026-08-08"} <= dates  # each row's own seen_on date
    aws = next(o for o in offers if o.instance_name.startswith("EC2 p5en.48xlarge"))
    assert aws.instance_price_per_hour(8) == 63.296
    vast = next(o for o in offers if o.provider_slug == "vastai")
    assert "median" in vast.notes


def test_refresh_prices_offline_reads_recorded_api_responses(tmp_path):
    (tmp_path / "runpod.json").write_bytes((RECORDED / "runpod-example.json").read_bytes())
    (tmp_path / "vultr.json").write_bytes((RECORDED / "vultr-example.json").read_bytes())
    out, _ = run("refresh_prices", "--offline", str(tmp_path))
    assert "2 of 2 providers refreshed" in out
    assert set(Provider.objects.values_list("slug", flat=True)) == {"runpod", "vultr"}
    assert Offer.objects.filter(provider__slug="vultr").get().instance_prices_usd == [[1, "1.671"]]


def test_refresh_prices_offline_for_one_provider(tmp_path):
    (tmp_path / "runpod.json").write_bytes((RECORDED / "runpod-example.json").read_bytes())
    (tmp_path / "vultr.json").write_bytes((RECORDED / "vultr-example.json").read_bytes())
    run("refresh_prices", "--offline", str(tmp_path), "--provider", "vultr")
    assert list(Provider.objects.values_list("slug", flat=True)) == ["vultr"]


def test_refresh_prices_reports_a_garbled_file_as_failed(tmp_path):
    (tmp_path / "runpod.json").write_text(json.dumps({"data": {"gpuTypes": [{"id": "NVIDIA H200"}]}}))
    out, err = run("refresh_prices", "--offline", str(tmp_path))
    assert "failed" in err and "securePrice" in err
    assert "0 of 1 providers refreshed" in out
    assert PriceSnapshot.objects.get().outcome == "failed"


def test_refresh_prices_rejects_an_unknown_provider():
    with pytest.raises(CommandError):
        run("refresh_prices", "--provider", "nope")
