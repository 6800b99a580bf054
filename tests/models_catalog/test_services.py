"""Importing models: the shipped recorded folder, live Hub responses (replayed), history, atomicity."""

from __future__ import annotations

import json
import shutil
from decimal import Decimal
from pathlib import Path

import pytest

from models_catalog import hub, hub_import, services
from models_catalog.hub_ids import InvalidHubId
from models_catalog.models import Model, ModelFact, ModelRevision, QuantizedBuild
from tests.models_catalog.hub_replay import QWEN_SET, mount, recording

SHIPPED = Path(services.__file__).resolve().parent / "data" / "hub"
GLM = "zai-org/GLM-5.3-Flash"
QWEN = "Qwen/Qwen3-30B-A3B"

pytestmark = pytest.mark.django_db


def shipped_count() -> int:
    return len(list(SHIPPED.glob("*/*/meta.json")))


def test_offline_import_loads_every_shipped_model():
    result = services.model_import_offline(SHIPPED)

    assert result.failed == {}
    assert len(result.created) == shipped_count() == 56
    assert Model.objects.count() == 56
    assert not Model.objects.filter(params_total__isnull=True).exists()


def test_offline_import_twice_changes_nothing():
    services.model_import_offline(SHIPPED)
    facts, builds = ModelFact.objects.count(), QuantizedBuild.objects.count()

    again = services.model_import_offline(SHIPPED)

    assert len(again.unchanged) == 56
    assert again.created == again.updated == []
    assert ModelRevision.objects.count() == 0
    assert (ModelFact.objects.count(), QuantizedBuild.objects.count()) == (facts, builds)


def test_missing_meta_count_is_stored_as_computed_from_config():
    services.model_import_offline(SHIPPED, only=["Qwen/Qwen3-4B"])  # meta.json total_params is null

    model = Model.objects.get(hub_id="Qwen/Qwen3-4B")
    assert model.params_total_source == "computed"
    assert model.params_total == model.params_computed
    assert 3.5e9 < model.params_total < 4.5e9
    assert model.facts.get(kind="params_total").source == "computed"


def test_safetensors_count_is_kept_and_computed_count_shown_beside_it():
    services.model_import_offline(SHIPPED, only=["meta-llama/Llama-3.1-8B-Instruct"])

    model = Model.objects.get(hub_id="meta-llama/Llama-3.1-8B-Instruct")
    assert (model.params_total, model.params_total_source) == (8_030_261_248, "safetensors")
    sources = set(model.facts.filter(kind="params_total").values_list("source", flat=True))
    assert sources == {"safetensors", "computed"}
    assert model.attention_kind == "gqa"


def test_glm_53_flash_keeps_both_reference_figures_and_the_computed_one():
    services.model_import_offline(SHIPPED, only=[GLM])

    model = Model.objects.get(hub_id=GLM)
    totals = {(f.source, f.value_int) for f in model.facts.filter(kind="params_total")}
    assert ("reference", 321_300_000_000) in totals
    assert ("reference", 320_000_000_000) in totals
    assert any(source == "computed" for source, _ in totals)
    actives = {f.value_int for f in model.facts.filter(kind="params_active", source="reference")}
    assert actives == {25_400_000_000, 18_000_000_000}
    # active: our own count from the config, the two review pages' figures kept beside it (docs/methodology.md §4.14)
    assert (model.params_active, model.params_active_source) == (model.params_active_computed, "computed")
    assert model.facts.get(kind="params_active", is_primary=True).source == "computed"
    assert round(model.params_active / 1e8) == 167
    assert (model.params_total, model.params_total_source) == (321_300_000_000, "reference")
    assert (model.max_context, model.licence, model.modality, model.native_dtype) == (1_048_576, "mit", "vision", "fp8")
    assert model.release_date.isoformat() == "2026-08-26"
    assert model.experts_routed == 288 and model.experts_per_token == 8
    assert model.config_status == "partial"


def test_glm_53_flash_ships_the_fp8_reference_and_five_mlx_builds():
    services.model_import_offline(SHIPPED, only=[GLM])

    builds = list(QuantizedBuild.objects.filter(model__hub_id=GLM).order_by("sort_order"))
    assert [(b.format, b.label) for b in builds] == [
        ("FP8", "FP8 reference"),
        ("MLX", "6-bit"),
        ("MLX", "4-bit"),
        ("MLX", "3-bit"),
        ("MLX", "2-bit"),
        ("MLX", "2bit-lite"),
    ]
    lite = builds[-1]
    assert (lite.file_size_bytes, lite.min_ram_bytes) == (102 * 10**9, 112 * 10**9)
    assert lite.bits_per_weight is None  # the source gives no bit width for 2bit-lite
    assert "+141 %" in lite.quality_note
    assert builds[2].bits_per_weight == Decimal("4.00") and "+2.96 %" in builds[2].quality_note
    assert all(b.size_is_approximate and b.source for b in builds)


def _copy_model(tmp_path: Path, hub_id: str) -> Path:
    target = tmp_path / hub_id
    shutil.copytree(SHIPPED / hub_id, target)
    return target


def test_changed_config_updates_the_model_and_keeps_a_history_entry(tmp_path):
    folder = _copy_model(tmp_path, "Qwen/Qwen3-8B")
    services.model_import_offline(tmp_path)
    before = Model.objects.get(hub_id="Qwen/Qwen3-8B")
    config = json.loads((folder / "config.json").read_text())
    config["max_position_embeddings"] = 131072
    (folder / "config.json").write_text(json.dumps(config))

    result = services.model_import_offline(tmp_path)

    assert result.updated == ["Qwen/Qwen3-8B"]
    after = Model.objects.get(pk=before.pk)
    assert after.config["max_position_embeddings"] == 131072
    revision = ModelRevision.objects.get(model=after)
    assert revision.config["max_position_embeddings"] == 40960
    assert revision.config_sha256 == before.config_sha256 != after.config_sha256
    assert "config.json changed" in revision.reason


def test_failed_import_leaves_no_half_written_model(tmp_path, monkeypatch):
    _copy_model(tmp_path, "Qwen/Qwen3-8B")

    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(services, "_replace_builds", broken)
    with pytest.raises(RuntimeError):
        services.model_import_offline(tmp_path)

    assert not Model.objects.exists()
    assert not ModelFact.objects.exists()


def test_failed_update_keeps_the_previous_version(tmp_path, monkeypatch):
    folder = _copy_model(tmp_path, "Qwen/Qwen3-8B")
    services.model_import_offline(tmp_path)
    config = json.loads((folder / "config.json").read_text())
    config["num_hidden_layers"] = 48
    (folder / "config.json").write_text(json.dumps(config))
    monkeypatch.setattr(services, "_replace_builds", lambda *a, **k: (_ for _ in ()).throw(RuntimeError("boom")))

    with pytest.raises(RuntimeError):
        services.model_import_offline(tmp_path)

    model = Model.objects.get(hub_id="Qwen/Qwen3-8B")
    assert model.config["num_hidden_layers"] == 36
    assert not ModelRevision.objects.exists()
    assert model.facts.exists()


def test_hub_ids_differing_only_in_case_are_one_model():
    services.model_import_offline(SHIPPED, only=["Qwen/Qwen3-8B"])
    with pytest.raises(Exception):  # noqa: B017 - the database constraint, whatever the backend calls it
        from django.db import transaction

        with transaction.atomic():
            Model.objects.create(
                hub_id="qwen/qwen3-8b",
                slug="other",
                display_name="x",
                organisation="qwen",
                fetched_at=Model.objects.get().fetched_at,
            )


# --- from the Hub (recorded responses) ------------------------------------------------------------------------
def test_hub_import_stores_counts_sources_and_quantized_builds(hub_client, hub_mock):
    for name in QWEN_SET:
        mount(hub_mock, name)

    model = hub_import.model_import(QWEN, client=hub_client)

    assert (model.params_total, model.params_total_source) == (30_532_122_624, "safetensors")
    assert model.params_by_dtype == {"BF16": 30_532_122_624}
    assert (model.family, model.experts_routed, model.experts_per_token) == ("qwen3_moe", 128, 8)
    assert (model.licence, model.origin, model.downloads) == ("apache-2.0", "hub", 1000)
    assert model.hub_sha == recording("model_info_Qwen3-30B-A3B")["json"]["sha"]
    builds = {(b.format, b.label): b for b in model.builds.all()}
    assert set(builds) == {("GGUF", "Q4_K_M"), ("GGUF", "Q8_0"), ("FP8", "FP8"), ("MLX", "4-bit")}
    q4 = builds[("GGUF", "Q4_K_M")]
    assert q4.repo_id == f"{QWEN}-GGUF"
    assert q4.file_size_bytes == round(30_532_122_624 * 4.89 / 8)
    assert q4.bits_per_weight == Decimal("4.89")
    assert not q4.size_is_approximate and "file listing" in q4.size_source
    assert builds[("MLX", "4-bit")].repo_id == "mlx-community/Qwen3-30B-A3B-4bit"


def test_hub_import_again_is_idempotent(hub_client, hub_mock):
    for name in QWEN_SET:
        mount(hub_mock, name)
    hub_import.model_import(QWEN, client=hub_client)
    counts = (Model.objects.count(), ModelFact.objects.count(), QuantizedBuild.objects.count())

    hub_import.model_import(QWEN, client=hub_client)

    assert (Model.objects.count(), ModelFact.objects.count(), QuantizedBuild.objects.count()) == counts
    assert not ModelRevision.objects.exists()


def test_hub_import_of_a_recorded_model_keeps_history(hub_client, hub_mock):
    services.model_import_offline(SHIPPED, only=[QWEN])
    for name in QWEN_SET:
        mount(hub_mock, name)

    hub_import.model_import(QWEN, client=hub_client)

    model = Model.objects.get(hub_id=QWEN)
    assert model.origin == "hub"
    assert ModelRevision.objects.filter(model=model).count() == 1


def test_gated_repo_fails_as_gated_and_writes_nothing(hub_client, hub_mock):
    mount(hub_mock, "model_info_Llama-3.1-8B-Instruct_gated")
    mount(hub_mock, "config_Llama-3.1-8B-Instruct_401_gated")

    with pytest.raises(hub.HubGated, match="gated"):
        hub_import.model_import("meta-llama/Llama-3.1-8B-Instruct", client=hub_client)

    assert not Model.objects.exists()


def test_config_without_sizes_is_not_a_transformer_we_can_size(hub_client, hub_mock):
    mount(hub_mock, "model_info_Qwen3-30B-A3B")
    sha = recording("model_info_Qwen3-30B-A3B")["json"]["sha"]
    hub_mock.get(f"https://huggingface.co/{QWEN}/resolve/{sha}/config.json").respond(
        200, json={"_class_name": "UNet2DConditionModel", "in_channels": 4}
    )

    with pytest.raises(hub_import.NotSizable) as raised:
        hub_import.model_import(QWEN, client=hub_client)

    assert "hidden_size" in raised.value.detail and "num_hidden_layers" in raised.value.detail
    assert not Model.objects.exists()


@pytest.mark.parametrize("bad", ["../../etc", "a" * 300, "org/" + "n" * 300, "оrg/name", "", "org/na..me"])
def test_bad_ids_are_rejected_before_any_request(hub_client, hub_mock, bad):
    with pytest.raises(InvalidHubId):
        hub_import.model_import(bad, client=hub_client)

    assert hub_mock.calls.call_count == 0


def test_a_catalog_that_chose_a_review_pages_active_count_takes_its_own_on_the_next_load():
    services.model_import_offline(SHIPPED, only=[GLM])
    Model.objects.filter(hub_id=GLM).update(params_active=25_400_000_000, params_active_source="reference")

    again = services.model_import_offline(SHIPPED, only=[GLM])

    assert again.updated == [GLM]
    model = Model.objects.get(hub_id=GLM)
    assert (model.params_active, model.params_active_source) == (model.params_active_computed, "computed")
    assert ModelRevision.objects.filter(model=model, params_active=25_400_000_000).exists()
