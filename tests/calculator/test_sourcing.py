"""Commands name weights that hold the precision they were sized for (calculator/estimation/engines/sourcing.py).

The rules one by one, then every launch script the model page, its API twin and the command line hand out for five
models (BF16 dense, BF16 MoE, FP8-released MLA, FP8 with published MLX builds, MXFP4) × precisions × engines, checked
line by line: each program's flags are ones it documents (tests/calculator/test_launch.py's table, and the
conversion tools' table below), and every model a server loads is the model's own repository, a published build the
catalog knows, or a file or folder an earlier line of the same script made.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from django.core.management import call_command

from calculator.estimation.engines.sourcing import KnownBuild, Missing, SourceKind, weights_source
from models_catalog import services
from tests.calculator.estimate_cli import run
from tests.calculator.test_launch import ACCEPTED
from tests.models_catalog.html import parse
from tests.support import module_rows

SHIPPED = Path(services.__file__).resolve().parent / "data" / "hub"
LLAMA, QWEN_MOE = "meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3-30B-A3B"
GLM, DEEPSEEK, GPT_OSS = "zai-org/GLM-5.3-Flash", "deepseek-ai/DeepSeek-V3", "openai/gpt-oss-120b"
MODELS = (LLAMA, QWEN_MOE, GLM, DEEPSEEK, GPT_OSS)

pytestmark = [pytest.mark.django_db, pytest.mark.xdist_group("sourcing")]


# --- the rules ----------------------------------------------------------------------------------------------------

AWQ = KnownBuild("AWQ", "4-bit", "example-org/Llama-3.1-8B-Instruct-AWQ", "awq")
GGUF = KnownBuild("GGUF", "Q4_K_M", "example-org/Llama-3.1-8B-Instruct-GGUF", "q4_k_m")
MLX_4, MLX_6 = (KnownBuild("MLX", f"{b}-bit", "orcarouter/GLM-5.3-Flash-MLX", f"mlx-{b}bit") for b in (4, 6))

RULES = [
    # engine, released, precision, builds → kind, model, quantization / missing
    ("vllm", "fp16", "fp16", (), SourceKind.RELEASED, LLAMA, ""),
    ("vllm", "fp16", "bf16", (), SourceKind.RELEASED, LLAMA, ""),
    ("vllm", "fp16", "fp8", (), SourceKind.ON_THE_FLY, LLAMA, "fp8"),
    ("sglang", "fp16", "fp8", (), SourceKind.ON_THE_FLY, LLAMA, "fp8"),
    ("vllm", "fp16", "nf4", (), SourceKind.ON_THE_FLY, LLAMA, "bitsandbytes"),
    ("sglang", "fp16", "nf4", (), SourceKind.NONE, "", Missing.NO_BUILD),
    ("vllm", "fp16", "int4", (), SourceKind.NONE, "", Missing.NO_BUILD),
    ("vllm", "fp16", "awq", (), SourceKind.NONE, "", Missing.NO_BUILD),
    ("vllm", "fp16", "int8", (), SourceKind.NONE, "", Missing.NO_BUILD),
    ("vllm", "fp16", "int4", (AWQ,), SourceKind.PUBLISHED, AWQ.repo_id, ""),
    ("vllm", "fp16", "awq", (AWQ,), SourceKind.PUBLISHED, AWQ.repo_id, ""),
    ("vllm", "fp16", "q4_k_m", (GGUF,), SourceKind.NONE, "", Missing.WRONG_FORMAT),
    ("vllm", "fp8", "fp16", (), SourceKind.NONE, "", Missing.NO_WIDER_BUILD),
    ("vllm", "fp8", "fp8", (), SourceKind.RELEASED, LLAMA, ""),
    ("vllm", "mxfp4", "mxfp4", (), SourceKind.RELEASED, LLAMA, ""),
    ("vllm", "mxfp4", "fp16", (), SourceKind.NONE, "", Missing.NO_WIDER_BUILD),
    ("vllm", "mxfp4", "fp8", (), SourceKind.NONE, "", Missing.NO_BUILD),
    ("llama.cpp", "fp16", "q4_k_m", (GGUF,), SourceKind.PUBLISHED, f"{GGUF.repo_id}:Q4_K_M", ""),
    ("ollama", "fp16", "q4_k_m", (GGUF,), SourceKind.PUBLISHED, f"hf.co/{GGUF.repo_id}:Q4_K_M", ""),
    ("llama.cpp", "fp16", "q4_k_m", (), SourceKind.CONVERTED, "Llama-3.1-8B-Instruct-Q4_K_M.gguf", ""),
    ("llama.cpp", "fp16", "fp16", (), SourceKind.CONVERTED, "Llama-3.1-8B-Instruct-BF16.gguf", ""),
    ("llama.cpp", "mxfp4", "q8_0", (), SourceKind.CONVERTED, "Llama-3.1-8B-Instruct-Q8_0.gguf", ""),
    # the MXFP4 release as released: the converter keeps its MXFP4 experts (gpt-oss under llama.cpp)
    ("llama.cpp", "mxfp4", "mxfp4", (), SourceKind.CONVERTED, "Llama-3.1-8B-Instruct-MXFP4.gguf", ""),
    ("ollama", "mxfp4", "mxfp4", (), SourceKind.CONVERTED, "./Llama-3.1-8B-Instruct-MXFP4.gguf", ""),
    ("llama.cpp", "fp16", "mxfp4", (), SourceKind.NONE, "", Missing.WRONG_FORMAT),
    ("llama.cpp", "fp8", "q2_k", (), SourceKind.NONE, "", Missing.NOT_FROM_RELEASE),
    ("llama.cpp", "fp16", "awq", (), SourceKind.NONE, "", Missing.WRONG_FORMAT),
    ("mlx", "fp16", "mlx-4bit", (), SourceKind.CONVERTED, "Llama-3.1-8B-Instruct-4bit", ""),
    ("mlx", "fp16", "fp16", (), SourceKind.RELEASED, LLAMA, ""),
    ("mlx", "fp8", "mlx-4bit", (MLX_4, MLX_6), SourceKind.PUBLISHED, MLX_4.repo_id, ""),
    ("mlx", "fp8", "mlx-8bit", (MLX_4, MLX_6), SourceKind.NONE, "", Missing.NOT_FROM_RELEASE),
]


@pytest.mark.parametrize(("engine", "released", "precision", "builds", "kind", "model", "detail"), RULES)
def test_each_engine_gets_each_precision_from_a_place_that_holds_it(
    engine, released, precision, builds, kind, model, detail
):
    source = weights_source(engine, LLAMA, released, precision, builds)
    assert (source.kind, source.model) == (kind, model)
    if kind is SourceKind.NONE:
        assert source.missing is detail and not source.runnable
    else:
        assert source.quantization == detail and source.missing is None


def test_conversions_start_from_the_released_weights_and_iq_types_read_an_importance_matrix():
    q4 = weights_source("llama.cpp", LLAMA, "fp16", "q4_k_m")
    assert q4.prepare == (
        "hf download meta-llama/Llama-3.1-8B-Instruct --local-dir Llama-3.1-8B-Instruct",
        "python llama.cpp/convert_hf_to_gguf.py Llama-3.1-8B-Instruct --outtype bf16 "
        "--outfile Llama-3.1-8B-Instruct-BF16.gguf",
        "llama-quantize Llama-3.1-8B-Instruct-BF16.gguf Llama-3.1-8B-Instruct-Q4_K_M.gguf Q4_K_M",
    )
    iq2 = weights_source("llama.cpp", LLAMA, "fp16", "iq2_xxs")
    assert iq2.needs_calibration and "--imatrix imatrix.gguf" in iq2.prepare[-1]
    assert iq2.prepare[-2] == "llama-imatrix -m Llama-3.1-8B-Instruct-BF16.gguf -f calibration.txt -o imatrix.gguf"
    mlx = weights_source("mlx", LLAMA, "fp16", "mlx-4bit")
    assert mlx.prepare == (
        "mlx_lm.convert --hf-path meta-llama/Llama-3.1-8B-Instruct -q --q-bits 4 --mlx-path Llama-3.1-8B-Instruct-4bit",
    )
    assert weights_source("mlx", GLM, "fp8", "mlx-4bit", (MLX_4, MLX_6)).shared_repo


# --- every script the surfaces hand out -----------------------------------------------------------------------------

# The conversion tools' options, from their argument definitions: huggingface_hub `hf download` (docs
# huggingface.co/docs/huggingface_hub/guides/cli, --local-dir); llama.cpp convert_hf_to_gguf.py (--outtype,
# --outfile) and tools/quantize/quantize.cpp (--imatrix), tools/imatrix (-m, -f, -o), ggml-org/llama.cpp
# docs/models.md and tools/quantize/README.md; mlx-lm mlx_lm/convert.py configure_parser (--hf-path, -q, --q-bits,
# --mlx-path).
TOOLS: dict[str, frozenset[str]] = {
    "hf download": frozenset({"--local-dir"}),
    "python llama.cpp/convert_hf_to_gguf.py": frozenset({"--outtype", "--outfile"}),
    "llama-quantize": frozenset({"--imatrix"}),
    "llama-imatrix": frozenset({"-m", "-f", "-o"}),
    "mlx_lm.convert": frozenset({"--hf-path", "-q", "--q-bits", "--mlx-path"}),
    "ray start": frozenset({"--head", "--port", "--address"}),  # ray CLI (docs.ray.io, ray start)
}
SERVERS = {"vllm serve": "vllm", "python -m sglang.launch_server": "sglang", "llama-server": "llama.cpp"}
SERVERS |= {"mlx_lm.server": "mlx"}
ON_THE_FLY = {"fp8", "bitsandbytes"}


def _program(tokens: list[str]) -> str:
    for length in (3, 2, 1):
        name = " ".join(tokens[:length])
        if name in TOOLS or name in SERVERS:
            return name
    raise AssertionError(f"unknown program in {shlex.join(tokens)!r}")


def _options(tokens: list[str]) -> dict[str, str]:
    """Option → its value (the next token, or "" for a flag followed by another option or nothing)."""
    found = {}
    for i, token in enumerate(tokens):
        if token.startswith("-") and not token[1:2].isdigit():
            name, equals, value = token.partition("=")
            following = tokens[i + 1] if i + 1 < len(tokens) else ""
            found[name] = value if equals else "" if following.startswith("-") else following
    return found


def check_script(script: str, hub_id: str, published: set[str], released_16bit: bool) -> list[str]:
    """What is wrong with one script; [] when every line runs."""
    problems: list[str] = []
    made: set[str] = set()
    for line in script.splitlines():
        if line.startswith(("sudo sysctl iogpu.wired_limit_mb=", "#")):
            continue
        tokens = shlex.split(line)
        program = _program(tokens)
        rest = tokens[len(program.split()) :]
        options = _options(rest)
        accepted = TOOLS[program] if program in TOOLS else ACCEPTED[SERVERS[program]][1] | {"-hf", "--model-path"}
        problems += [f"{program}: {flag} is not an option it has" for flag in set(options) - accepted]
        if program == "ray start":
            continue
        if program == "hf download":
            problems += [] if rest[0] == hub_id else [f"downloads {rest[0]}, not {hub_id}"]
            made.add(options["--local-dir"])
        elif program in TOOLS:
            inputs = {options.get(flag) for flag in ("-m", "--hf-path")} | {rest[0], rest[-3] if len(rest) > 2 else ""}
            if program == "mlx_lm.convert":
                problems += [] if options["--hf-path"] == hub_id else [f"converts {options['--hf-path']}"]
            elif not inputs & made:
                problems.append(f"{program} reads nothing an earlier line made: {line}")
            made |= {options.get(f, "") for f in ("--outfile", "-o", "--mlx-path")} | {
                rest[-2] if len(rest) > 2 else ""
            }
        else:
            model = options.get("-m") or options.get("-hf") or options.get("--model-path") or options.get("--model")
            if program == "vllm serve":
                model = rest[0]
            repo = (model or "").rsplit(":", 1)[0] if "-hf" in options else model
            if repo != hub_id and repo not in published and repo not in made:
                problems.append(f"{program} loads {model!r}: neither the release, a published build nor made above")
            method = options.get("--quantization")
            if method is not None and not (method in ON_THE_FLY and repo == hub_id and released_16bit):
                problems.append(f"--quantization {method} on {repo}, which is not a 16-bit release")
    return problems


def _write_site() -> None:
    services.model_import_offline(SHIPPED, only=list(MODELS))
    call_command("loaddata", "seed_offers_2026-11-13", verbosity=0)


_site_rows = module_rows(_write_site)


@pytest.fixture
def site(_site_rows, db):
    """The five models and the seed offers, written once for the module."""


PRECISIONS = ("", "fp16", "fp8", "int8", "int4", "awq", "nf4", "mxfp4", "q4_k_m", "mlx-4bit")


@pytest.mark.parametrize("hub_id", MODELS)
def test_every_script_the_page_api_gives_runs_the_build_it_names(client, site, hub_id):
    from models_catalog.models import QuantizedBuild

    published = set(QuantizedBuild.objects.filter(model__hub_id=hub_id).values_list("repo_id", flat=True))
    checked = 0
    for precision in PRECISIONS:
        for engine in ("vllm", "sglang"):
            query = {"model": hub_id, "engine": engine, "rig": "rtx-4090", "ram": "128"}
            if precision:
                query["precision"] = precision
            response = client.get("/api/v1/estimate", query)
            if response.status_code == 400 and "precision" in json.loads(response.content)["error"]["parameters"]:
                continue  # a precision this model's page does not offer
            assert response.status_code == 200, response.content[:300]
            data = json.loads(response.content)
            commands, rig = data["commands"], data["rig"]
            released_16bit = (commands["cloud_source"] or commands["mac_source"] or {}).get("released") == "fp16"
            for script, source in (
                (commands["cloud"], commands["cloud_source"]),
                (commands["mac"], commands["mac_source"]),
                (rig["command"] if rig else None, rig["source"] if rig else None),
            ):
                if source is not None and source["kind"] == "none":
                    assert script is None and source["missing"], (hub_id, precision, engine, source)
                if script:
                    assert check_script(script, hub_id, published, released_16bit) == [], (hub_id, precision, script)
                    checked += 1
    assert checked >= 4  # DeepSeek-V3 (FP8, no published build): the released repository on vLLM and SGLang


def test_the_check_finds_a_command_that_loads_the_release_for_a_narrower_setting():
    """The bug class: INT4 on vLLM once launched the BF16 repository; a made-up MLX repository; an on-the-fly FP8
    cast of an FP8 checkpoint; a converter reading a file nothing made."""
    assert check_script(f"vllm serve {LLAMA} --max-model-len 8192", LLAMA, set(), True) == []
    assert check_script(f"mlx_lm.server --model mlx-community/{LLAMA[11:]}-4bit", LLAMA, set(), True)
    assert check_script(f"vllm serve {GLM} --quantization fp8", GLM, set(), False)
    assert check_script("llama-quantize x-BF16.gguf x-Q4_K_M.gguf Q4_K_M", LLAMA, set(), True)
    assert check_script(f"vllm serve {LLAMA} --tensor-parallel 2", LLAMA, set(), True)


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        # BF16 of a model released in FP8 / MXFP4: no 16-bit build, no command loading the narrower repository
        (f"/en/models/{GLM}/?precision=fp16", "No command: the model is released in FP8"),
        (f"/en/models/{GPT_OSS}/?precision=fp16", "No command: the model is released in MXFP4"),
        (f"/de/models/{GLM}/?precision=fp16", "Kein Befehl: Das Modell wird in FP8 veröffentlicht"),
        # INT4 of a BF16 model with no published 4-bit build: no vLLM command at all
        (f"/en/models/{LLAMA}/?precision=int4", "No command: no published INT4"),
        # FP8 of a BF16 model: vLLM casts as it loads, and the page says so
        (f"/en/models/{LLAMA}/?precision=fp8", "vLLM casts the released 16-bit weights to FP8"),
        (f"/de/models/{LLAMA}/?precision=fp8", "vLLM wandelt die veröffentlichten 16-Bit-Gewichte beim Laden"),
    ],
)
def test_the_page_says_where_the_weights_come_from_or_why_there_is_no_command(client, site, path, expected):
    page = parse(client.get(path).content)
    text = " ".join(page.one(id="commands").text.split())
    assert expected in text
    if expected.startswith(("No command", "Kein Befehl")):
        assert page.select("pre", id="cmd-cloud") == []


def test_the_command_line_refuses_a_launch_no_build_backs_and_names_the_source_of_one_it_gives():
    refused = run(LLAMA, "--precision", "int4", "--gpu", "rtx-4090", "--launch", "vllm")["launch"]
    assert refused["script"] is None and refused["missing"] == "no_build"
    cast = run(LLAMA, "--precision", "fp8", "--gpu", "h100-sxm", "--launch", "vllm")["launch"]
    assert cast["source"] == "on_the_fly" and "--quantization fp8" in cast["command"]
    released = run(GLM, "--gpu", "h100-sxm", "--launch", "vllm")["launch"]
    assert released["source"] == "released" and "--quantization" not in released["command"]
    gpt_oss = run(GPT_OSS, "--gpu", "rtx-4090", "--launch", "llama.cpp")  # sized and started under llama.cpp
    assert gpt_oss["workload"]["engine"] == "llama.cpp" and gpt_oss["launch"]["source"] == "converted"
    assert gpt_oss["launch"]["command"].startswith("llama-server -m gpt-oss-120b-MXFP4.gguf")
    mac = run(GLM, "--precision", "mlx-4bit", "--gpu", "mac-256", "--launch", "mlx")["launch"]
    assert mac["source"] == "published" and "orcarouter/GLM-5.3-Flash-MLX" in mac["command"]


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_a_need_beyond_one_node_gets_a_multi_node_command_the_check_accepts(engine):
    """Qwen3-235B-A22B at BF16 takes 13 × A40 under vLLM (each holding its start-up budget): two whole nodes run as
    8 × 2 (tensor × pipeline parallel)."""
    hub_id = "Qwen/Qwen3-235B-A22B"
    data = run(hub_id, "--gpu", "a40", "--launch", engine)
    row = data["gpus"][0]
    # SGLang's reserve lies outside its pool, not repeated on every GPU: its memory needs 12
    assert (row["count"], row["memory_count"], row["nodes"]) == (16, {"vllm": 13, "sglang": 12}[engine], 2)
    assert (row["tensor_parallel"], row["pipeline_parallel"]) == (8, 2)
    script = data["launch"]["script"]
    assert ("--pipeline-parallel-size 2" in script) if engine == "vllm" else ("--pp-size 2" in script)
    assert ("ray start --head" in script) if engine == "vllm" else ("--nnodes 2" in script)
    assert check_script(script, hub_id, set(), True) == []
