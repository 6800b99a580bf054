"""Run it yourself on the model page: the reader's GPU + RAM split, the commands that start each configuration,
and the machine remembered in a cookie."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import call_command

from models_catalog import services
from tests.models_catalog.html import parse

SHIPPED = Path(services.__file__).resolve().parent / "data" / "hub"
GLM = "/en/models/zai-org/GLM-5.3-Flash/"

pytestmark = pytest.mark.django_db


@pytest.fixture
def site():
    services.model_import_offline(
        SHIPPED, only=["zai-org/GLM-5.3-Flash", "openai/gpt-oss-120b", "meta-llama/Llama-3.1-8B-Instruct"]
    )
    call_command("loaddata", "seed_offers_2026-11-13", verbosity=0)


def _rows(page):
    return {r.attrs["data-file-type"]: r for r in page.one("table", id="rig-table").select("tr", data_file_type=True)}


def test_an_moe_model_runs_on_one_rtx_4090_with_its_experts_in_ram(client, site):
    page = parse(client.get("/en/models/openai/gpt-oss-120b/?rig=rtx-4090&ram=128").content)

    q4 = _rows(page)["Q4_K_M"]
    assert q4.attrs["data-fits"] == "true" and q4.attrs["data-placement"] in ("n_cpu_moe", "experts_cpu")
    # no GGUF build of gpt-oss is in the catalog: the script converts the released MXFP4 checkpoint, then starts it
    script = page.one("pre", id="cmd-rig").text
    assert script.startswith("hf download openai/gpt-oss-120b --local-dir gpt-oss-120b ")
    # the converter keeps the MXFP4 experts, so the file it writes is named for them
    quantize = "llama-quantize gpt-oss-120b-MXFP4.gguf gpt-oss-120b-Q8_0.gguf Q8_0 "
    command = script[script.index(quantize) + len(quantize) :]
    assert command.startswith("llama-server -m gpt-oss-120b-Q8_0.gguf") and (
        "--n-cpu-moe" in command or "-ot" in command
    )


def test_glm_needs_two_bit_files_and_system_ram_on_a_4090(client, site):
    page = parse(client.get(GLM + "?ram=128").content)
    rows = _rows(page)
    assert rows["Q8_0"].attrs["data-fits"] == "false"
    assert rows["Q2_K"].attrs["data-fits"] == "true"
    # released in FP8 with no GGUF build in the catalog: no command naming a file nobody can make from it
    assert page.select("pre", id="cmd-rig") == []
    assert "No command: no published GGUF Q2_K build of this model is known to us" in page.one(id="my-machine").text
    assert parse(client.get(GLM + "?ram=16").content).select("pre", id="cmd-rig") == []  # nothing fits 16 GB of RAM


def test_a_dense_model_that_fits_the_card_stays_on_the_gpu(client, site):
    rows = _rows(parse(client.get("/en/models/meta-llama/Llama-3.1-8B-Instruct/?rig=rtx-4090").content))
    assert rows["Q8_0"].attrs["data-placement"] == "gpu"


def test_commands_start_the_cheapest_configuration_and_the_smallest_mac(client, site):
    page = parse(client.get(GLM).content)

    # the FP8 repository as released: no on-the-fly --quantization flag; the cheapest GPU its sparse attention starts
    # on in vLLM, every GPU of the instance as TP 8
    assert page.one("tr", data_cheapest="true").select("th")[0].text.startswith("8 × H200 NVL 141GB")
    cloud = page.one("pre", id="cmd-cloud").text
    assert (
        cloud
        == "vllm serve zai-org/GLM-5.3-Flash --tensor-parallel-size 8 --max-model-len 8192 --gpu-memory-utilization 0.9"
    )
    assert "own repository, zai-org/GLM-5.3-Flash, as released (FP8)" in page.one(id="commands").text
    # BF16 of a model released in FP8: no 16-bit build is published, so no command loads the FP8 repository for it
    fp16 = parse(client.get(GLM + "?precision=fp16").content)
    assert fp16.select("pre", id="cmd-cloud") == []
    assert "No command: the model is released in FP8 and no 16-bit build of it is published" in (
        fp16.one(id="commands").text
    )
    # the Mac runs a published MLX build, never a repository name made up from the model's
    mac = page.one("pre", id="cmd-mac").text
    assert "mlx_lm.server --model orcarouter/GLM-5.3-Flash-MLX" in mac and "mlx-community" not in mac
    sglang = parse(client.get(GLM + "?engine=sglang").content).one("pre", id="cmd-cloud").text
    assert sglang.startswith("python -m sglang.launch_server --model-path zai-org/GLM-5.3-Flash")


def test_the_remembered_machine_answers_every_page_until_forgotten(client, site):
    response = client.post("/en/my-machine/", {"rig": "rtx-5090", "rig_gpus": "2", "ram": "256", "next": GLM})
    assert response.status_code == 302 and response["Location"] == GLM
    page = parse(client.get("/en/models/openai/gpt-oss-120b/").content)
    assert "2 × RTX 5090 32GB with 256 GB of RAM" in page.one(id="rig-caption").text
    assert page.one("select", name="rig").one("option", selected=True).attrs["value"] == "rtx-5090"
    # a permalink that names a machine wins over the cookie
    named = parse(client.get("/en/models/openai/gpt-oss-120b/?rig=rtx-3090&ram=64").content)
    assert "1 × RTX 3090 24GB with 64 GB of RAM" in named.one(id="rig-caption").text
    client.post("/en/my-machine/", {"forget": "1", "next": GLM})
    assert "1 × RTX 4090 24GB with 64 GB of RAM" in parse(client.get(GLM).content).one(id="rig-caption").text


def test_remembering_refuses_bad_values_and_foreign_redirects(client, site):
    response = client.post(
        "/en/my-machine/", {"rig": "warp-core", "rig_gpus": "2", "ram": "64", "next": "https://evil.example/"}
    )
    assert response["Location"] == "/"
    assert "gpufit_rig" not in response.cookies


def test_the_remembered_machine_carries_the_macs_macos_version(client, site):
    """Remembered with macOS 26, every page sizes Macs for it until a permalink names another version; a cookie
    written before the version existed reads as macOS 15."""
    client.post("/en/my-machine/", {"rig": "rtx-4090", "rig_gpus": "1", "ram": "64", "macos": "26", "next": GLM})
    assert client.cookies["gpufit_rig"].value == "rtx-4090,1,64,26"
    macs = GLM + "?show=local-macs-body"
    page = parse(client.get(macs).content)
    assert page.one("select", id="f-macos").one("option", selected=True).attrs["value"] == "26"
    assert page.one("tr", data_mac_gib="128").attrs["data-verdict"] == "fits"
    named = parse(client.get(GLM + "?macos=15&show=local-macs-body").content)
    assert named.one("tr", data_mac_gib="128").attrs["data-verdict"] == "raise"
    client.cookies["gpufit_rig"] = "rtx-4090,1,64"
    assert parse(client.get(macs).content).one("tr", data_mac_gib="128").attrs["data-verdict"] == "raise"
    response = client.post("/en/my-machine/", {"rig": "rtx-4090", "rig_gpus": "1", "ram": "64", "macos": "14"})
    assert "gpufit_rig" not in response.cookies  # not a version we size for


@pytest.mark.parametrize(
    ("engine", "program"),
    [
        ("vllm", "vllm serve"),
        ("sglang", "python -m sglang.launch_server"),
        ("llama.cpp", "llama-server"),
        ("ollama", "ollama"),
    ],
)
def test_the_cloud_command_starts_the_engine_the_page_is_set_to(client, site, engine, program):
    """Engine Ollama or llama.cpp once printed `vllm serve`: the command runs the engine the page sized for."""
    page = parse(client.get(f"/en/models/meta-llama/Llama-3.1-8B-Instruct/?engine={engine}").content)
    cloud = page.one("pre", id="cmd-cloud").text
    assert program in cloud, cloud
    others = {"vllm serve", "sglang.launch_server", "llama-server", "ollama run"} - {program, "ollama run"}
    assert not [o for o in others if o in cloud and o not in program], cloud
