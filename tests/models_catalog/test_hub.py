"""The Hub client against recorded Hub responses replayed at the httpx layer."""

from __future__ import annotations

import httpx
import pytest

from models_catalog import hub
from tests.models_catalog.hub_replay import ENDPOINT, mount, recording

QWEN = "Qwen/Qwen3-30B-A3B"
LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


def test_model_info_reads_safetensors_counts_licence_and_file_sizes(hub_client, hub_mock):
    route = mount(hub_mock, "model_info_Qwen3-30B-A3B")

    info = hub_client.model_info(QWEN)

    assert info.safetensors_total == 30_532_122_624
    assert info.safetensors_by_dtype == {"BF16": 30_532_122_624}
    assert info.license == "apache-2.0"
    assert info.created_at.date().isoformat() == "2025-04-29"
    shards = info.files_matching(".safetensors")
    assert len(shards) == 16
    assert sum(f.size_bytes for f in shards) == 30_532_122_624 * 2
    assert route.calls.last.request.url.params["blobs"] in {"true", "True"}


def test_config_is_downloaded_at_the_revision_asked_for(hub_client, hub_mock):
    mount(hub_mock, "config_Qwen3-30B-A3B")
    sha = recording("model_info_Qwen3-30B-A3B")["json"]["sha"]

    config = hub_client.config(QWEN, revision=sha)

    assert config["model_type"] == "qwen3_moe"
    assert config["num_experts"] == 128


def test_quantized_sibling_repos_are_discovered_through_base_model_filter(hub_client, hub_mock):
    route = mount(hub_mock, "quantized_Qwen3-30B-A3B")

    ids = hub_client.quantized_repo_ids(QWEN)

    assert ids == [f"{QWEN}-GGUF", f"{QWEN}-FP8", "mlx-community/Qwen3-30B-A3B-4bit"]
    assert route.calls.last.request.url.params["filter"] == f"base_model:quantized:{QWEN}"


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("model_info_Qwen3-30B-A3B-GGUF", "GGUF"),
        ("model_info_Qwen3-30B-A3B-FP8", "FP8"),
        ("model_info_Qwen3-30B-A3B-4bit-mlx", "MLX"),
        ("model_info_Qwen3-30B-A3B", None),
    ],
)
def test_quantized_format_is_read_from_tags_library_and_name(hub_client, hub_mock, name, fmt):
    mount(hub_mock, name)
    repo_id = recording(name)["json"]["id"]

    assert hub_client.model_info(repo_id).quantized_format == fmt


@pytest.mark.parametrize("name", ["config_Llama-3.1-8B-Instruct_401_gated", "config_Llama-3.1-8B-Instruct_403_gated"])
def test_gated_config_is_a_gated_state_not_a_crash(hub_client, hub_mock, name):
    mount(hub_mock, name)
    sha = recording("model_info_Llama-3.1-8B-Instruct_gated")["json"]["sha"]

    with pytest.raises(hub.HubGated) as raised:
        hub_client.config(LLAMA, revision=sha)

    assert raised.value.state == "gated"
    assert "gated" in raised.value.detail


@pytest.mark.parametrize("name", ["model_info_404_not_found", "model_info_401_not_found_anonymous"])
def test_missing_repo_is_not_on_the_hub(hub_client, hub_mock, name, sleeps):
    route = mount(hub_mock, name)

    with pytest.raises(hub.HubNotFound) as raised:
        hub_client.model_info("zai-org/GLM-9-Flash")

    assert raised.value.state == "not_found"
    assert route.call_count == 1  # not retried
    assert sleeps.waits == []


def test_repo_without_config_json_says_so(hub_client, hub_mock):
    mount(hub_mock, "config_404_entry_not_found")
    sha = recording("model_info_Qwen3-30B-A3B")["json"]["sha"]

    with pytest.raises(hub.HubNotFound, match=r"no config\.json"):
        hub_client.config(QWEN, revision=sha)


def test_rate_limit_waits_retry_after_then_succeeds(hub_client, hub_mock, sleeps):
    route = hub_mock.get(f"{ENDPOINT}/api/models/{QWEN}")
    route.side_effect = [
        httpx.Response(**_kwargs("model_info_429_rate_limited")),
        httpx.Response(**_kwargs("model_info_Qwen3-30B-A3B")),
    ]

    info = hub_client.model_info(QWEN)

    assert info.safetensors_total == 30_532_122_624
    assert sleeps.waits == [2.0]  # the Retry-After the Hub sent, not our own backoff


def test_rate_limit_that_never_lifts_ends_rate_limited(hub_client, hub_mock, sleeps):
    route = mount(hub_mock, "model_info_429_rate_limited")

    with pytest.raises(hub.HubRateLimited) as raised:
        hub_client.model_info(QWEN)

    assert raised.value.retry_after_s == 2.0
    assert route.call_count == 4  # one try and three retries
    assert sleeps.waits == [2.0, 2.0, 2.0]


def test_retry_after_longer_than_we_wait_gives_up_at_once(hub_client, hub_mock, sleeps):
    hub_mock.get(f"{ENDPOINT}/api/models/{QWEN}").respond(429, headers={"Retry-After": "3600"})

    with pytest.raises(hub.HubRateLimited) as raised:
        hub_client.model_info(QWEN)

    assert raised.value.retry_after_s == 3600
    assert sleeps.waits == []


def test_timeouts_are_retried_with_exponential_backoff(hub_client, hub_mock, sleeps):
    route = hub_mock.get(f"{ENDPOINT}/api/models/{QWEN}")
    route.side_effect = [
        httpx.ReadTimeout("read timed out"),
        httpx.ConnectTimeout("connect timed out"),
        httpx.Response(**_kwargs("model_info_Qwen3-30B-A3B")),
    ]

    assert hub_client.model_info(QWEN).hub_id == QWEN
    assert sleeps.waits == [0.5, 1.0]


def test_persistent_timeout_ends_unavailable(hub_client, hub_mock, sleeps):
    hub_mock.get(f"{ENDPOINT}/api/models/{QWEN}").mock(side_effect=httpx.ReadTimeout("read timed out"))

    with pytest.raises(hub.HubUnavailable, match="timed out"):
        hub_client.model_info(QWEN)

    assert sleeps.waits == [0.5, 1.0, 2.0]


def test_server_errors_are_retried(hub_client, hub_mock, sleeps):
    route = hub_mock.get(f"{ENDPOINT}/api/models/{QWEN}")
    route.side_effect = [httpx.Response(503), httpx.Response(**_kwargs("model_info_Qwen3-30B-A3B"))]

    assert hub_client.model_info(QWEN).safetensors_total == 30_532_122_624
    assert route.call_count == 2


def _kwargs(name: str) -> dict:
    from tests.models_catalog.hub_replay import body_bytes

    rec = recording(name)
    return {"status_code": rec["status"], "headers": rec["headers"], "content": body_bytes(rec)}


def _info(hub_id: str, quantization: dict | None = None) -> hub.HubModelInfo:
    return hub.HubModelInfo(
        hub_id=hub_id,
        sha=None,
        created_at=None,
        last_modified=None,
        gated=None,
        private=False,
        downloads=None,
        likes=None,
        pipeline_tag=None,
        library_name="transformers",
        tags=(),
        license=None,
        base_models=(),
        safetensors_total=None,
        safetensors_by_dtype=None,
        api_config={"quantization_config": quantization} if quantization else None,
    )


# The scheme llm-compressor writes for INT8 W8A8 (vLLM's docs, features/quantization/int8: GPTQModifier with
# scheme="W8A8", targets="Linear", ignore=["lm_head"]): int8 weights per output channel, int8 activations per token
W8A8_CONFIG = {
    "quant_method": "compressed-tensors",
    "format": "int-quantized",
    "config_groups": {
        "group_0": {
            "targets": ["Linear"],
            "weights": {"num_bits": 8, "type": "int", "symmetric": True, "strategy": "channel"},
            "input_activations": {
                "num_bits": 8,
                "type": "int",
                "symmetric": True,
                "strategy": "token",
                "dynamic": True,
            },
        }
    },
    "ignore": ["lm_head"],
}


def test_compressed_tensors_checkpoints_are_told_apart_by_their_scheme():
    assert _info("someone/Llama-3.1-8B-Instruct-INT8", W8A8_CONFIG).quantized_format == "W8A8"
    fp8 = {**W8A8_CONFIG, "format": "float-quantized"}
    fp8["config_groups"] = {"group_0": {"weights": {"num_bits": 8, "type": "float"}, "input_activations": None}}
    assert _info("someone/Llama-3.1-8B-Instruct-dynamic", fp8).quantized_format == "FP8"
    w4a16 = {**W8A8_CONFIG, "config_groups": {"group_0": {"weights": {"num_bits": 4, "type": "int"}}}}
    assert _info("someone/Llama-3.1-8B-Instruct-int4", w4a16).quantized_format is None
    # RedHatAI's repositories name the scheme
    assert _info("RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w8a8").quantized_format == "W8A8"
