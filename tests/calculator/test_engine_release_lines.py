"""Release lines of SGLang, llama.cpp and MLX-LM (docs/methodology.md §4.12): each changes what the estimate counts
or the flags a command uses, and the model page, the JSON API and the command line take the same line, name it and
give the same need."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from calculator.estimation import GB, Workload, estimate, launch_command
from calculator.estimation.engines.launch import LaunchConfig
from calculator.estimation.engines.releases import (
    CURRENT_LLAMA_CPP,
    ENGINE_RELEASE_LINES,
    LLAMA_CPP_RELEASES,
    MLX_RELEASES,
    SGLANG_RELEASES,
    is_llama_cpp_release,
    llama_cpp_release,
    mlx_release,
    sglang_release,
)
from calculator.release_names import covered
from models_catalog import services
from tests.calculator.estimate_cli import run
from tests.calculator.estimation_specs import hub_spec
from tests.models_catalog.html import parse
from tests.support import module_rows

SHIPPED = Path(services.__file__).resolve().parent / "data" / "hub"
LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
GEMMA = "google/gemma-3-27b-it"
DEEPSEEK = "deepseek-ai/DeepSeek-V3"


def test_builds_and_releases_find_their_lines():
    assert llama_cpp_release("b7500").key == llama_cpp_release("7500").key == "b7407"
    assert llama_cpp_release("b6089").key == "b5554" and llama_cpp_release("b9999") is CURRENT_LLAMA_CPP
    assert llama_cpp_release("b5000") is CURRENT_LLAMA_CPP and not is_llama_cpp_release("b5000")
    assert not is_llama_cpp_release("b²") and not is_llama_cpp_release("latest")
    assert sglang_release("0.4.10.post2").key == "0.4.8" and mlx_release("0.28.3").key == "0.22.2"
    assert mlx_release("0.31.1").key == "0.30.6"
    # the current line first: the form marks it "(current)"
    assert [next(iter(lines)) for lines in (SGLANG_RELEASES, LLAMA_CPP_RELEASES, MLX_RELEASES)] == [
        "0.5.3",
        "b7832",
        "0.30.6",
    ]


def _total(hub_id: str, **workload) -> float:
    return estimate(hub_spec(hub_id), Workload(context=32768, **workload)).total_bytes / GB


def test_llama_cpp_lines_change_the_sliding_window_cache_the_mla_cache_and_the_margin():
    gemma = {
        key: _total(GEMMA, precision="q4_k_m", engine="llama.cpp", engine_release=key) for key in LLAMA_CPP_RELEASES
    }
    # window + n_batch (2,048) cells on gemma-3's 1,024-token sliding layers before b5554, + n_ubatch (512) after
    assert gemma["b5429"] > gemma["b5554"] == gemma["b6325"]
    # automatic fitting from b7407 keeps 1 GiB free on the device
    assert round(gemma["b7407"] - gemma["b6325"], 2) == round(2**30 / GB, 2)
    # MLA: the latent as K and V (576 + 512) before the V-less cache of b7832, K only after
    older = estimate(
        hub_spec(DEEPSEEK), Workload(precision="q4_k_m", engine="llama.cpp", context=32768, engine_release="b7407")
    )
    current = estimate(hub_spec(DEEPSEEK), Workload(precision="q4_k_m", engine="llama.cpp", context=32768))
    assert older.kv_cache_bytes * 576 == current.kv_cache_bytes * (576 + 512)


def test_mlx_lm_before_0_30_6_cached_every_mla_head():
    older = _total(DEEPSEEK, precision="mlx-4bit", engine="mlx", engine_release="0.22.2")
    assert older - _total(DEEPSEEK, precision="mlx-4bit", engine="mlx") > 150


def test_sglang_lines_reserve_the_rest_beside_their_default_fraction():
    needs = [_total(LLAMA, engine="sglang", engine_release=key) for key in ("0.5.3", "0.4.8", "0.4.6", "0.4.0")]
    assert needs[0] > needs[1] > needs[2] == needs[3]


def test_llama_server_commands_use_the_flags_of_their_build():
    def argv(key: str, **config) -> tuple[str, ...]:
        return launch_command(LaunchConfig(engine="llama.cpp", model="m.gguf", engine_release=key, **config)).argv

    quantized = {"kv_dtype": "q8_0"}
    assert argv("b6325", **quantized)[-4:-2] == ("-fa", "on") and "-fa" in argv("b5554", **quantized)
    assert argv("b5554", **quantized)[argv("b5554", **quantized).index("-fa") + 1] == "-np"
    split = {"offload": "n_cpu_moe", "cpu_moe_layers": 3}
    assert "--n-cpu-moe" in argv("b6325", **split)
    old = argv("b5554", **split)
    assert "--n-cpu-moe" not in old and old[old.index("-ot") + 1] == r"blk\.(0|1|2)\.ffn_(up|down|gate)_exps=CPU"
    # one slot said outright: without -np the server runs 4 on one shared cache
    assert argv(CURRENT_LLAMA_CPP.key)[-2:] == ("-np", "1")


def _write_site() -> None:
    services.model_import_offline(SHIPPED, only=[LLAMA])
    call_command("loaddata", "seed_offers_2026-11-13", verbosity=0)


_site_rows = module_rows(_write_site)


@pytest.fixture
def site(_site_rows, db):
    """The model and the seed offers, written once for the module."""


@pytest.mark.django_db
@pytest.mark.xdist_group("engine-lines")
@pytest.mark.parametrize(
    ("engine", "field", "flag", "key", "label"),
    [
        ("sglang", "sglang", "--sglang-version", "0.4.8", "SGLang 0.4.8–0.5.2"),
        ("llama.cpp", "llamacpp", "--llamacpp-version", "b5554", "llama.cpp b5554–b6324"),
        ("mlx", "mlx_lm", "--mlx-version", "0.22.2", "MLX-LM 0.22.2–0.30.5"),
    ],
)
def test_page_api_and_command_line_give_one_need_for_a_line_and_name_it(client, site, engine, field, flag, key, label):
    query = {"engine": engine, field: key}
    page = parse(client.get(f"/en/models/{LLAMA}/", query).content)
    page_need = int(page.one("h2", id="summary-heading").attrs["data-need-bytes"])
    assert f"({label})" in page.one("p", data_setting=True).text
    select = next(s for s in page.select("select") if s.attrs.get("name") == field)
    assert select.one("option", selected=True).attrs["value"] == key
    api = json.loads(client.get("/api/v1/estimate", {"model": LLAMA, **query}).content)
    assert api["setting"]["engine_version"] == label
    cli = run(LLAMA, "--engine", engine, flag, key)
    assert cli["workload"]["engine_version"] == label
    assert page_need == api["breakdown"]["total_bytes"] == cli["total_bytes"]


@pytest.mark.django_db
@pytest.mark.xdist_group("engine-lines")
def test_a_build_no_line_covers_is_a_clear_message(client, site):
    page = parse(client.get(f"/en/models/{LLAMA}/", {"engine": "llama.cpp", "llamacpp": "b4000"}).content)
    assert "not a llama.cpp build from b5429 on" in page.text
    response = client.get("/api/v1/estimate", {"model": LLAMA, "engine": "llama.cpp", "llamacpp": "b4000"})
    assert response.status_code == 400
    assert json.loads(response.content)["error"]["parameters"] == {"llamacpp": "not a llama.cpp build from b5429 on"}


@pytest.mark.django_db
@pytest.mark.xdist_group("engine-lines")
def test_german_pages_name_the_lines_in_german(client, site):
    page = parse(client.get(f"/de/models/{LLAMA}/", {"engine": "sglang"}).content)
    select = next(s for s in page.select("select") if s.attrs.get("name") == "sglang")
    assert select.one("option", selected=True).text == "SGLang 0.5.3 und neuer (aktuell)"
    assert "and later" not in page.text and "(SGLang 0.5.3 und neuer)" in page.one("p", data_setting=True).text


@pytest.mark.django_db
@pytest.mark.xdist_group("engine-lines")
def test_a_build_no_line_covers_is_told_in_the_readers_language(client, site):
    page = parse(client.get(f"/de/models/{LLAMA}/", {"engine": "llama.cpp", "llamacpp": "b4000"}).content)
    assert "kein llama.cpp-Build ab b5429" in page.text and "not a llama.cpp build" not in page.text


# Values whose digits the lines' own readers would take for a release: each named a line (vLLM 0.34) and answered 200.
NOT_RELEASES = ["-1", "1e9", "<svg/onload=alert(1)>", "0.34<script>", "１.2", "0.2.3.4.5.6", "v" + "9" * 40]


@pytest.mark.parametrize("engine", list(ENGINE_RELEASE_LINES))
def test_every_engine_has_a_release_form_its_own_lines_match(engine):
    lines = ENGINE_RELEASE_LINES[engine]
    assert all(covered(engine, key) for key in lines.lines)
    assert not any(covered(engine, value) for value in NOT_RELEASES)


@pytest.mark.django_db
@pytest.mark.xdist_group("engine-lines")
@pytest.mark.parametrize("value", NOT_RELEASES)
def test_a_value_that_is_no_release_is_a_400_a_notice_and_a_usage_error(client, site, value):
    response = client.get("/api/v1/estimate", {"model": LLAMA, "release": value})
    assert response.status_code == 400
    assert json.loads(response.content)["error"]["parameters"] == {"release": "not a vLLM release from 0.7 on"}
    page = client.get(f"/en/models/{LLAMA}/", {"release": value})
    assert page.status_code == 200
    assert "not a vLLM release from 0.7 on" in parse(page.content).text
    assert "<svg/" not in page.content.decode() and "<script>" not in page.content.decode()  # escaped if shown
    with pytest.raises(CommandError, match="--vllm-version"):
        run(LLAMA, "--vllm-version", value)


@pytest.mark.parametrize(
    ("engine", "value", "line"),
    [("vllm", " v0.19.1 ", "0.18"), ("sglang", "0.4.10.post2", "0.4.8"), ("vllm", "0.11.0rc1", "0.9")],
)
def test_a_release_as_engines_tag_them_still_finds_its_line(engine, value, line):
    assert covered(engine, value) and ENGINE_RELEASE_LINES[engine].line_of(value.strip()) == line
