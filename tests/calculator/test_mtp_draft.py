"""Speculative decoding with a model's own multi-token-prediction layers as the draft (docs/methodology.md §4.15): the
draft's decoder layer and its cache count, the embedding and head it stores again do not, decoding speeds up at the
published acceptance, and the command carries each engine's own flags."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import call_command

from calculator.estimation import Workload, estimate, speed
from calculator.estimation.engines.launch import LaunchConfig, launch_command
from calculator.estimation.speed.estimate import MTP_ACCEPTANCE
from models_catalog import services
from pricing.gpus import gpu_by_slug
from tests.calculator.estimate_cli import run
from tests.calculator.estimation_specs import hub_spec
from tests.calculator.test_launch import ACCEPTED, flags_of
from tests.models_catalog.html import parse

DEEPSEEK, GLM, LLAMA = "deepseek-ai/DeepSeek-V3", "zai-org/GLM-5.3-Flash", "meta-llama/Llama-3.1-8B-Instruct"
SHIPPED = Path(services.__file__).resolve().parent / "data" / "hub"


def test_the_draft_loads_its_decoder_layer_but_shares_the_embedding_and_head():
    """DeepSeek-V3's MTP module stores the embedding and the head again (2 × 129,280 × 7,168 parameters): the
    engines share the model's, so the draft is the module less those; its attention caches like a 62nd layer."""
    spec = hub_spec(DEEPSEEK)
    assert (spec.mtp_layers, spec.mtp_shared_params) == (1, 2 * 129_280 * 7_168)
    plain = estimate(spec, Workload())
    drafted = estimate(spec, Workload(mtp_draft=True))
    draft = next(t for t in drafted.terms if t.key == "draft_weights")
    assert draft.inputs["params"] == spec.params_not_loaded - spec.mtp_shared_params
    assert drafted.bytes_of("kv_cache") == plain.bytes_of("kv_cache") * 62 // 61
    assert drafted.total_bytes == plain.total_bytes + draft.bytes + drafted.bytes_of("kv_cache") - plain.bytes_of(
        "kv_cache"
    )
    # the stored module, duplicates included, is what the reference page's rule counts: more than the draft
    stored = estimate(spec, Workload(load_mtp_layers=True)).weights_bytes - plain.weights_bytes
    assert stored > draft.bytes


def test_only_engines_that_run_the_draft_count_it():
    spec = hub_spec(GLM)
    assert estimate(spec, Workload(mtp_draft=True, engine="sglang")).bytes_of("draft_weights") > 0
    for workload in (Workload(mtp_draft=True, engine="llama.cpp"), Workload(mtp_draft=True, mode="lora")):
        assert estimate(spec, workload).bytes_of("draft_weights") == 0
    assert estimate(hub_spec(LLAMA), Workload(mtp_draft=True)).bytes_of("draft_weights") == 0  # it has none


def test_decoding_speeds_up_at_the_published_acceptance():
    """One draft token a step accepted 85 % of the time (DeepSeek-V3 report, §5.4.3): at one request a step reads
    the dense weights once whatever it verifies, so 1.85 tokens a step at a step a little dearer (1/61 for the draft
    layer, and the experts the second token routes to besides)."""
    spec, h200 = hub_spec(DEEPSEEK), gpu_by_slug("h200-sxm")
    assert h200 is not None
    plain = speed(spec, Workload(), h200, 8)
    drafted = speed(spec, Workload(mtp_draft=True), h200, 8)
    assert drafted.speculative is not None and drafted.speculative.acceptance == MTP_ACCEPTANCE
    assert plain.decode_per_request and drafted.decode_per_request
    gain = drafted.decode_per_request / plain.decode_per_request
    assert 1.4 < gain < (1 + MTP_ACCEPTANCE) / (1 + 1 / 61) + 0.01


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_the_command_carries_the_engines_own_flags(engine):
    launch = launch_command(LaunchConfig(engine=engine, model=DEEPSEEK, tensor_parallel=8, mtp_draft=True))
    names = flags_of(launch.argv[3:] if engine == "sglang" else launch.argv[2:])
    assert set(names) <= ACCEPTED[engine][1]
    if engine == "vllm":
        config = json.loads(launch.argv[launch.argv.index("--speculative-config") + 1])
        assert config == {"method": "mtp", "num_speculative_tokens": 1}
    else:
        assert launch.argv[launch.argv.index("--speculative-algorithm") + 1] == "EAGLE"
        assert launch.argv[launch.argv.index("--speculative-num-draft-tokens") + 1] == "2"


def test_the_command_line_sizes_and_starts_the_draft():
    data = run(DEEPSEEK, "--gpu", "h200-sxm", "--mtp", "--launch", "sglang", "--engine", "sglang")
    assert data["workload"]["mtp_draft"] is True
    assert any(term["key"] == "draft_weights" for term in data["terms"])
    assert "--speculative-algorithm EAGLE" in data["launch"]["command"]


@pytest.fixture
def site(db):
    services.model_import_offline(SHIPPED, only=[DEEPSEEK, LLAMA])
    call_command("loaddata", "seed_offers_2026-11-13", verbosity=0)


@pytest.mark.django_db
def test_the_page_offers_the_draft_only_where_the_model_has_one(client, site):
    page = parse(client.get(f"/en/models/{DEEPSEEK}/", {"mtp": "1"}).content)
    assert page.one("select", id="f-mtp").one("option", selected=True).attrs["value"] == "1"
    assert page.one("tr", data_term="draft_weights")
    assert "its MTP layer as the speculative draft" in page.one("p", data_setting=True).text
    data = json.loads(client.get("/api/v1/estimate", {"model": DEEPSEEK, "mtp": "1"}).content)
    assert "--speculative-config" in (data["commands"]["cloud"] or "")
    llama = parse(client.get(f"/en/models/{LLAMA}/", {"mtp": "1"}).content)
    assert llama.select("select", id="f-mtp") == [] and not llama.select("tr", data_term="draft_weights")
    refused = client.get("/api/v1/estimate", {"model": LLAMA, "mtp": "1"})
    assert refused.status_code == 400 and "multi-token-prediction" in refused.content.decode()
