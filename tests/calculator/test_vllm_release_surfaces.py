"""The vLLM release a figure is for, on every surface: the model page, its JSON API and the command line take the
same release, name it and give the same need (docs/methodology.md §4.12)."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from calculator.estimation import GIB, Workload, estimate
from calculator.estimation.engines.releases import CURRENT_VLLM, VLLM_RELEASES
from models_catalog import services
from tests.calculator.estimate_cli import run
from tests.calculator.estimation_specs import hub_spec
from tests.models_catalog.html import parse
from tests.support import module_rows

SHIPPED = Path(services.__file__).resolve().parent / "data" / "hub"
MODEL = "meta-llama/Llama-3.1-8B-Instruct"

pytestmark = [pytest.mark.django_db, pytest.mark.xdist_group("vllm-release")]


def _write_site() -> None:
    services.model_import_offline(SHIPPED, only=[MODEL])
    call_command("loaddata", "seed_offers_2026-11-13", verbosity=0)


_site_rows = module_rows(_write_site)


@pytest.fixture
def site(_site_rows, db):
    """The model and the seed offers, written once for the module."""


@pytest.mark.parametrize("release", ["0.8", "0.12", "0.18", CURRENT_VLLM.key])
def test_page_api_and_command_line_give_one_need_for_a_release_and_name_it(client, site, release):
    label = VLLM_RELEASES[release].label
    page = parse(client.get(f"/en/models/{MODEL}/", {"release": release}).content)
    page_need = int(page.one("h2", id="summary-heading").attrs["data-need-bytes"])
    assert f"Inference ({label})" in page.one("p", data_setting=True).text
    assert page.one("select", id="f-release").one("option", selected=True).attrs["value"] == release
    api = json.loads(client.get("/api/v1/estimate", {"model": MODEL, "release": release}).content)
    assert api["setting"]["vllm_version"] == label
    cli = run(MODEL, "--vllm-version", release)
    assert cli["workload"]["vllm_version"] == label
    core = estimate(hub_spec(MODEL), Workload(engine_release=release)).total_bytes
    assert page_need == api["breakdown"]["total_bytes"] == cli["total_bytes"] == core


def test_the_sampler_of_older_releases_makes_a_small_model_need_more(site):
    # Llama-3.1-8B's vocabulary of 128,256: 9.7 logits buffers × 1024 sequences before 0.17 (4.75 GiB), 3.8 after
    older = estimate(hub_spec(MODEL), Workload(engine_release="0.12")).overhead_bytes
    current = estimate(hub_spec(MODEL), Workload()).overhead_bytes
    assert older - current > 1 * GIB


def test_a_release_no_line_covers_is_a_clear_message_and_the_current_line(client, site):
    page = parse(client.get(f"/en/models/{MODEL}/", {"release": "0.6.4"}).content)
    assert "not a vLLM release from 0.7 on" in page.text
    assert f"Inference ({CURRENT_VLLM.label})" in page.one("p", data_setting=True).text
    response = client.get("/api/v1/estimate", {"model": MODEL, "release": "0.6.4"})
    assert response.status_code == 400
    assert json.loads(response.content)["error"]["parameters"] == {"release": "not a vLLM release from 0.7 on"}


def test_the_command_line_names_the_release_in_its_start_up_line():
    out = StringIO()
    call_command("estimate", MODEL, "--gpu", "h100-sxm", "--vllm-version", "0.15.1", stdout=out)
    assert "vLLM 0.12–0.16 at start-up (TP 1): KV cache" in out.getvalue()


def test_the_summary_and_the_api_state_the_error_bands_of_the_figures_they_show(client, site):
    from calculator.estimation import Mode
    from calculator.page.accuracy import accuracy_notes
    from calculator.validation.bands import band_of, validation_family
    from calculator.validation.computed import kept_results

    spec = hub_spec(MODEL)
    assert validation_family(spec) == "dense"
    notes = accuracy_notes(Mode.INFERENCE, "vllm", "transformers", spec)
    assert [n.what for n in notes] == ["memory", "decode", "load"]
    memory = band_of(kept_results(), "engine_kv_cache_gib", "vllm", "dense")
    assert memory is not None and notes[0].band == memory and memory.runs >= 10
    page = parse(client.get(f"/en/models/{MODEL}/").content)
    shown = page.one("p", data_accuracy=True).select("a", data_band="memory")[0]
    assert shown.attrs["data-band-runs"] == str(memory.runs)
    assert f"within ±{notes[0].percent} % on {memory.runs} published runs" in shown.text
    assert shown.attrs["href"] == "/en/validation/engine_kv_cache_gib/"
    api = json.loads(client.get("/api/v1/estimate", {"model": MODEL}).content)["accuracy"]
    assert [(a["checks"], a["published_runs"], a["within_percent"]) for a in api] == [
        (n.what, n.band.runs, n.percent) for n in notes
    ]
    qlora = json.loads(client.get("/api/v1/estimate", {"model": MODEL, "mode": "qlora"}).content)["accuracy"]
    assert [a["checks"] for a in qlora] == ["finetune"]
