"""refresh_prices and load_prices: the refresh from the shell, and the bundled data a fresh install loads."""

import json
from datetime import date
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from pricing.management.commands.load_prices import history_line
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
    assert Gpu.objects.count() == 70
    assert Provider.objects.count() == 21
    assert Offer.objects.count() == 289
    assert "21 of 21 providers refreshed" in out and not err


def test_load_prices_never_reports_a_fold_of_zero_gpus():
    """The shipped snapshot is older than today, so today's fold finds no offer: the line says that in words."""
    out, _ = run("load_prices")
    history = out.splitlines()[-1]
    assert history.startswith("price history of ") and ": 0 GPUs" not in history


def test_price_history_line_says_what_was_folded():
    day = date(2026, 12, 5)
    assert history_line(day, 0) == "price history of 2026-12-05: no on-demand offers to fold"
    assert history_line(day, 1) == "price history of 2026-12-05: 1 GPU with an on-demand price"
    assert history_line(day, 12) == "price history of 2026-12-05: 12 GPUs with an on-demand price"


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


def test_pricing_generate_offers_refuses_without_the_confirmation(require_postgres):
    with pytest.raises(CommandError, match="--i-know-this-is-synthetic"):
        run("pricing_generate_offers", "--rows", "10")
    assert not Offer.objects.exists()


def test_pricing_generate_offers_refuses_a_database_not_named_for_tests(require_postgres, settings):
    from django.db import connection

    real_name = connection.settings_dict["NAME"]
    connection.settings_dict["NAME"] = "gpufit"  # what production calls it
    try:
        with pytest.raises(CommandError, match="refusing to write synthetic prices to database 'gpufit'"):
            run("pricing_generate_offers", "--rows", "10", "--i-know-this-is-synthetic")
    finally:
        connection.settings_dict["NAME"] = real_name
    assert not Offer.objects.exists()


def test_pricing_generate_offers_writes_marked_hourly_history_behind_the_current_offers(require_postgres):
    run("load_prices")
    current = {(o.provider_slug, o.instance_name, o.price_per_gpu_hour_usd) for o in current_offers()}
    out, _ = run("pricing_generate_offers", "--rows", "3000", "--i-know-this-is-synthetic")
    synthetic = Offer.objects.filter(source="synthetic")
    assert 3000 <= synthetic.count() < 3000 + 289 * 2 and f"{synthetic.count()} synthetic offers" in out
    assert not synthetic.exclude(notes__startswith="SYNTHETIC").exists()
    snapshots = PriceSnapshot.objects.filter(source="synthetic:pricing_generate_offers")
    assert snapshots.filter(outcome="failed").exists() and not snapshots.exclude(notes__startswith="SYNTHETIC").exists()
    # One snapshot per provider and hour, every one older than the real ones: the current offers are unchanged.
    hours = snapshots.values("captured_at").distinct().count()
    assert snapshots.count() == hours * 21
    assert (
        snapshots.order_by("-captured_at").first().captured_at
        < PriceSnapshot.objects.exclude(source="synthetic:pricing_generate_offers")
        .order_by("captured_at")
        .first()
        .captured_at
    )
    assert {(o.provider_slug, o.instance_name, o.price_per_gpu_hour_usd) for o in current_offers()} == current
    # Prices vary around today's: within the monthly wave (±8 %) and the noise (±3 %), rarely twice the same.
    key = ("provider_id", "gpu_id", "instance_name", "pricing_kind", "term", "region")
    base = {
        tuple(row[:-1]): row[-1]
        for row in Offer.objects.exclude(source="synthetic").values_list(*key, "price_per_gpu_hour_usd")
    }
    ratios = [float(row[-1] / base[tuple(row[:-1])]) for row in synthetic.values_list(*key, "price_per_gpu_hour_usd")]
    assert len(ratios) == synthetic.count()
    assert all(0.88 <= r <= 1.12 for r in ratios) and len({round(r, 4) for r in ratios}) > 1000
