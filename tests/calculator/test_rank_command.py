"""manage.py rank: the ranking from the current offers, as text and JSON."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def seed_offers():
    call_command("loaddata", "seed_offers_2026-11-13", verbosity=0)


def run(*args) -> str:
    out = StringIO()
    call_command("rank", *args, stdout=out)
    return out.getvalue()


def test_rank_json_reproduces_the_seed_fp16_tables():
    data = json.loads(run("--memory-gb", "708", "--json"))
    assert [(r["gpu"], r["provider"], r["per_hour_usd"]) for r in data["by_gpu"]] == [
        ("MI300X 192GB", "RunPod", "19.12"),
        ("H200 141GB", "RunPod", "30.32"),
        ("B300 288GB", "RunPod", "35.96"),
        ("B200 180GB", "Lambda", "61.52"),
    ]
    assert [(r["provider"], r["per_hour_usd"]) for r in data["by_provider"]] == [
        ("RunPod", "19.12"),
        ("Vultr", "31.92"),
        ("Nebius", "43.2"),
        ("CoreWeave", "50.44"),
        ("Lambda", "61.52"),
        ("AWS", "63.296"),
    ]
    assert data["several_nodes"] == [{"gpu": "A40 48GB", "gpu_family": "a40-48gb", "gpus_needed": 17, "nodes": 3}]
    assert data["by_gpu"][0]["instance_gpus"] == 8 and data["by_gpu"][0]["gpus_needed"] == 5
    assert data["by_gpu"][0]["captured_at"].startswith("2026-11-13")


def test_rank_text_shows_rows_per_gpu_per_provider_and_the_several_node_list():
    text = run("--memory-gb", "708")
    assert "5 × MI300X 192GB" in text and "$   19.12/h" in text and "13,958/month" in text
    assert "only sold with 8" in text
    assert "AWS" in text and "$   63.30/h" in text and "46,206/month" in text
    assert "several nodes needed: A40 48GB (17)" in text


def test_rank_int4_need_picks_eight_a40s_sold_as_eight():
    data = json.loads(run("--memory-gb", "187", "--json"))
    first = data["by_gpu"][0]
    assert (first["gpu"], first["gpus_needed"], first["instance_gpus"], first["per_hour_usd"]) == (
        "A40 48GB",
        5,
        8,
        "4.72",
    )


def test_rank_refuses_a_non_positive_need():
    with pytest.raises(CommandError):
        run("--memory-gb", "0")


def test_rank_text_marks_low_confidence_rows_of_the_shipped_snapshot():
    call_command("load_prices", stdout=StringIO())
    out = StringIO()
    call_command("rank", "--memory-gb", "708", stdout=out)
    lines = out.getvalue().splitlines()
    hot_aisle = [line for line in lines if "Hot Aisle" in line]
    assert hot_aisle, "the shipped snapshot has Hot Aisle MI300X rows from an aggregator"
    assert all("LOW CONFIDENCE" in line for line in hot_aisle)
    runpod = [line for line in lines if "RunPod" in line]
    assert runpod and not any("CONFIDENCE" in line for line in runpod)
