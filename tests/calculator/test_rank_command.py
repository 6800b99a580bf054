"""manage.py rank: the ranking from the current offers, as text and JSON."""

import json
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from calculator.estimation import Workload, estimate, speed
from calculator.estimation.engines.kernels import startable_gpus
from calculator.estimation.plan.cost import cost_per_million_tokens
from calculator.management.options import load_spec
from pricing.gpus import BYTES_PER_GB, gpu_by_slug, load_gpus
from tests.calculator.estimate_cli import manage

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
        ("MI300X 192GB", "RunPod", "9.56"),  # the reference page: 5 needed, 8x at $19.12 (docs/methodology.md §4.10)
        ("H200 NVL 141GB", "RunPod", "30.32"),  # the reference page's "H200 141GB" row
        ("B300 288GB", "RunPod", "35.96"),
        ("H200 SXM 141GB", "Nebius", "43.2"),  # priced apart from the NVL (pricing/gpus.py SHORT_NAMES)
        ("B200 180GB", "Lambda", "61.52"),
    ]
    assert [(r["provider"], r["per_hour_usd"]) for r in data["by_provider"]] == [
        ("RunPod", "9.56"),
        ("Vultr", "31.92"),
        ("Nebius", "43.2"),
        ("CoreWeave", "50.44"),
        ("Lambda", "61.52"),
        ("AWS", "63.296"),
    ]
    assert data["several_nodes"] == [
        {"gpu": "A40 48GB", "gpu_family": "a40-48gb", "gpus_needed": 17, "nodes": 3, "gpus_run": 24}
    ]
    assert data["by_gpu"][0]["instance_gpus"] == 4 and data["by_gpu"][0]["gpus_needed"] == 4
    assert data["by_gpu"][0]["captured_at"].startswith("2026-11-13")


def test_rank_text_shows_rows_per_gpu_per_provider_and_the_several_node_list():
    text = run("--memory-gb", "708")
    assert "4 × MI300X 192GB" in text and "$    9.56/h" in text and "6,979/month" in text
    assert "8 × H200 NVL 141GB" in text and "8 × H200 SXM 141GB" in text and "(the memory needs 6)" in text
    assert "AWS" in text and "$   63.30/h" in text and "46,206/month" in text
    assert "several nodes needed: A40 48GB (24 on 3 nodes)" in text


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


# --- a model and the calculator's options instead of a number of GB ------------------------------------------


def test_rank_for_a_model_ranks_its_estimated_need():
    by_model = json.loads(run("ZAI-ORG/glm-5.3-flash", "--json"))
    # as released: FP8 (the page's, the API's and the command's default)
    need = estimate(load_spec("zai-org/GLM-5.3-Flash", None, None)[1], Workload(precision="fp8")).total_bytes
    by_memory = json.loads(run("--memory-gb", str(Decimal(need) / BYTES_PER_GB), "--json"))
    assert by_model["model"] == "zai-org/GLM-5.3-Flash"
    assert by_model["need_gb"] == by_memory["need_gb"]
    # by model, only the GPUs its sparse attention starts on in vLLM, as on its page (engines/kernels.py); by memory
    # alone every GPU that holds the bytes
    spec = load_spec("zai-org/GLM-5.3-Flash", None, None)[1]
    startable = {gpu.slug for gpu in startable_gpus(spec, "vllm", load_gpus())}
    assert [(r["gpu"], r["per_hour_usd"]) for r in by_model["by_gpu"]] == [
        (r["gpu"], r["per_hour_usd"]) for r in by_memory["by_gpu"] if r["gpu_slug"] in startable
    ]
    assert {r["gpu_slug"] for r in by_memory["by_gpu"]} - startable  # the A40 and MI300X rows by memory alone
    assert by_model["workload"] == {
        "mode": "inference",
        "precision": "fp8",
        "context": 8192,
        "concurrency": 1,
        "engine": "vllm",
        "kv_dtype": "fp16",
    }


def test_rank_for_a_model_takes_precision_context_concurrency_and_engine():
    args = ("meta-llama/Llama-3.3-70B-Instruct", "--precision", "fp8", "--context", "32K", "--concurrency", "4")
    data = json.loads(run(*args, "--engine", "sglang", "--json"))
    workload = Workload(precision="fp8", context=32_768, concurrency=4, engine="sglang")
    spec = load_spec("meta-llama/Llama-3.3-70B-Instruct", None, None)[1]
    assert Decimal(data["need_gb"]) * BYTES_PER_GB == estimate(spec, workload).total_bytes
    first = data["by_gpu"][0]
    gpu = gpu_by_slug(first["gpu_slug"])
    running = min(first["tensor_parallel"] or first["gpus_needed"], first["instance_gpus"])
    tokens = speed(spec, workload, gpu, running).decode_tokens_per_s_low
    assert first["tokens_per_s"] == tokens
    assert first["per_million_tokens_usd"] == cost_per_million_tokens(float(first["per_hour_usd"]), tokens)


def test_rank_text_for_a_model_reports_a_mode_that_does_not_apply():
    text = run("meta-llama/Llama-3.1-8B-Instruct", "--mode", "lora", "--precision", "int4")
    assert "qlora" in text.splitlines()[0]
    assert "note: LoRA on a 4-bit base is QLoRA" in text
    assert "/M tokens" in text


# --- bad values: one line, exit 2, no traceback ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "argument"),
    [
        (["--memory-gb", "abc"], "--memory-gb"),
        (["--memory-gb", "NaN"], "--memory-gb"),
        (["--memory-gb", "inf"], "--memory-gb"),
        (["--memory-gb", "-inf"], "--memory-gb"),
        (["--memory-gb", "1e400"], "--memory-gb"),
        (["--memory-gb", "-1"], "--memory-gb"),
        (["--memory-gb", "0"], "--memory-gb"),
        (["--memory-gb", ""], "--memory-gb"),
        (["--memory-gb", "708", "--kind", "bogus"], "--kind"),
        ([], "model"),
        (["meta-llama/Llama-3.1-8B-Instruct", "--memory-gb", "16"], "model"),
        (["nobody/nothing"], "model"),
        (["meta-llama/Llama-3.1-8B-Instruct", "--context", "lots"], "--context"),
        (["meta-llama/Llama-3.1-8B-Instruct", "--precision", "fp3"], "--precision"),
        (["meta-llama/Llama-3.1-8B-Instruct", "--concurrency", "0"], "--concurrency"),
    ],
)
def test_rank_bad_values_give_one_line_and_exit_code_2(args, argument):
    with pytest.raises(CommandError) as caught:
        run(*args)
    message = str(caught.value)
    # argparse itself answers "-inf" (it reads as a flag): "argument --memory-gb: expected one argument"
    assert message.split(":")[0].endswith(argument) and "\n" not in message
    assert caught.value.returncode == 2


@pytest.mark.slow
@pytest.mark.parametrize("value", ["abc", "NaN", "inf", "1e400", "-1"])
def test_rank_bad_memory_from_the_shell_prints_one_line_and_exits_2(value, tmp_path):
    done = manage("rank", "--memory-gb", value, database=tmp_path / "empty.sqlite3")
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().startswith("CommandError: --memory-gb:")
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


@pytest.mark.slow
def test_rank_unknown_flag_from_the_shell_prints_one_line_and_exits_2(tmp_path):
    done = manage("rank", "--memory-gb", "708", "--nope", database=tmp_path / "empty.sqlite3")
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


@pytest.mark.slow
def test_rank_on_an_unmigrated_database_says_to_run_migrate(tmp_path):
    database = tmp_path / "fresh.sqlite3"
    done = manage("rank", "--memory-gb", "708", database=database)
    assert done.returncode == 1
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert "manage.py migrate" in done.stderr
