"""``manage.py estimate``: what the command reads (page units, catalog ids, the names of GPUs and Macs) and the
one-line error, exit status 2, for every value it refuses."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from calculator.estimation import GIB
from calculator.management.commands.estimate import Command
from calculator.state import parse_tokens
from pricing.gpus import load_gpus
from tests.calculator.estimate_cli import MODEL, manage, run


@pytest.mark.parametrize(
    ("args", "argument"),
    [
        (["meta-llama/Llama-3.1-8B-Instruct", "--precision", "fp3"], "--precision"),
        (["meta-llama/Llama-3.1-8B-Instruct", "--engine", "nope"], "--engine"),
        (["meta-llama/Llama-3.1-8B-Instruct", "--kv-dtype", "q2"], "--kv-dtype"),
        (["meta-llama/Llama-3.1-8B-Instruct", "--mode", "train"], "--mode"),
        (["meta-llama/Llama-3.1-8B-Instruct", "--context", "0"], "--context"),
        (["meta-llama/Llama-3.1-8B-Instruct", "--concurrency", "many"], "--concurrency"),
        (["meta-llama/Llama-3.1-8B-Instruct", "--params", "lots"], "--params"),
        (["meta-llama/Llama-3.1-8B-Instruct", "--gpu", "h900"], "--gpu"),
        (["nobody/nothing"], "model"),
        (["/nonexistent/config.json"], "model"),
    ],
)
def test_bad_arguments_give_a_one_line_error_naming_the_argument_and_exit_code_2(args, argument):
    with pytest.raises(CommandError) as caught:
        call_command("estimate", *args, stdout=StringIO())
    message = str(caught.value)
    assert message.startswith(f"{argument}:")
    assert "\n" not in message
    assert caught.value.returncode == 2


# --- units, ids and hardware names --------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "tokens"), [("8K", 8192), ("128k", 131_072), ("1M", 1_048_576), ("32768", 32_768)])
def test_context_takes_the_page_units(text, tokens):
    result = run("meta-llama/Llama-3.1-8B-Instruct", "--context", text, "--gpu", "h100-sxm")
    assert result["workload"]["context"] == tokens == parse_tokens(text)
    assert result["kv_cache_bytes"] == 131_072 * tokens


def test_model_ids_are_case_insensitive_and_print_the_catalog_spelling():
    result = run("META-LLAMA/llama-3.1-8b-INSTRUCT", "--gpu", "h100-sxm")
    assert result["model"] == "meta-llama/Llama-3.1-8B-Instruct"
    assert result["params_total"] == 8_030_261_248


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("H100 SXM 80GB", "h100-sxm"),
        ("H100 PCIe 80GB", "h100-pcie"),
        ("NVIDIA H200 NVL 141GB", "h200-nvl"),
        ("h200 nvl 141gb", "h200-nvl"),
        ("A100 PCIe 40GB", "a100-40gb-pcie"),
        # names printed before the form factors were told apart stand for the SXM part (pricing/gpus.py)
        ("H100 80GB", "h100-sxm"),
        ("h200 141gb", "h200-sxm"),
        ("h200-141gb", "h200-sxm"),
        ("A100 80GB", "a100-80gb-sxm"),
        ("V100 16GB", "v100-sxm2-16gb"),
        ("RTX 4090 24GB", "rtx-4090"),
        ("MI300X 192GB", "mi300x"),
        ("a40", "a40"),
    ],
)
def test_gpu_accepts_the_names_the_output_prints(name, slug):
    result = run("meta-llama/Llama-3.1-8B-Instruct", "--gpu", name)
    assert [row["slug"] for row in result["gpus"]] == [slug]


def test_every_printed_gpu_name_is_accepted_back():
    printed = run("meta-llama/Llama-3.1-8B-Instruct")
    for row in printed["gpus"] + printed["machines"]:
        again = run("meta-llama/Llama-3.1-8B-Instruct", "--gpu", row["name"])
        assert [r["slug"] for r in again["gpus"] + again["machines"]] == [row["slug"]]


def test_a_mac_chip_takes_the_memory_size_its_name_gives():
    result = run("meta-llama/Llama-3.1-8B-Instruct", "--gpu", "Apple M3 Ultra 256 GB")
    assert [(row["slug"], row["memory_bytes"]) for row in result["machines"]] == [("apple-m3-ultra", 256 * GIB)]


def test_help_lists_every_gpu_slug():
    text = Command().create_parser("manage.py", "estimate").format_help()
    flat = "".join(text.split())  # help text wraps at hyphens
    for gpu in load_gpus():
        assert gpu.slug in flat


# --- every bad value: one line, exit 2 ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "argument"),
    [
        ([MODEL, "--context", "8Q"], "--context"),
        ([MODEL, "--context", "NaN"], "--context"),
        ([MODEL, "--context", "inf"], "--context"),
        ([MODEL, "--context", "1e400"], "--context"),
        ([MODEL, "--context", "-1"], "--context"),
        ([MODEL, "--context", "32M"], "--context"),
        ([MODEL, "--concurrency", "NaN"], "--concurrency"),
        ([MODEL, "--params", "1e400"], "--params"),
        ([MODEL, "--params", "inf"], "--params"),
        ([MODEL, "--gpus", "0"], "--gpus"),
        ([MODEL, "--mac", "4"], "--mac"),
        ([MODEL, "--mac", "lots"], "--mac"),
        ([MODEL, "--gpu", "mac-1"], "--gpu"),
        ([MODEL, "--max-context"], "--max-context"),
        ([MODEL, "--speed"], "--speed"),
        ([MODEL, "--gpu", "h100-sxm", "--price-per-gpu-hour", "NaN"], "--price-per-gpu-hour"),
        ([MODEL, "--gpu", "h100-sxm", "--price-per-gpu-hour", "-2"], "--price-per-gpu-hour"),
        ([MODEL, "--gpu", "h100-sxm", "--price-per-gpu-hour", "2", "--api-price", "1"], "--api-price"),
        ([MODEL, "--gpu", "h100-sxm", "--price-per-gpu-hour", "2", "--api-price", "1,inf"], "--api-price"),
        ([MODEL, "--api-price", "1,2"], "--api-price"),
        ([MODEL, "--gpu", "h100-sxm", "--tp", "0"], "--tp"),
        ([MODEL, "--gpu", "h100-sxm", "--gpu-memory-utilization", "1.5"], "--gpu-memory-utilization"),
        ([MODEL, "--gpu", "h100-sxm", "--gpu-memory-utilization", "NaN"], "--gpu-memory-utilization"),
        ([MODEL, "--gpu", "h100-sxm", "--max-model-len", "0"], "--max-model-len"),
        ([MODEL, "--gpu", "h100-sxm", "--max-num-seqs", "many"], "--max-num-seqs"),
        ([MODEL, "--gpu", "h100-sxm", "--price-per-gpu-hour", "2", "--api-price", "1,2", "--cached-share", "101"], ""),
    ],
)
def test_more_bad_values_give_one_line_and_exit_code_2(args, argument):
    with pytest.raises(CommandError) as caught:
        call_command("estimate", *args, stdout=StringIO())
    assert str(caught.value).startswith(argument or "--cached-share")
    assert "\n" not in str(caught.value) and caught.value.returncode == 2


@pytest.mark.parametrize("name", ["H100", "A100 SXM"])
def test_a_name_that_fits_several_gpus_asks_which(name):
    with pytest.raises(CommandError, match="names several GPUs") as caught:
        call_command("estimate", MODEL, "--gpu", name, stdout=StringIO())
    assert caught.value.returncode == 2


def test_unknown_gpu_suggests_slugs():
    with pytest.raises(CommandError, match="did you mean h100-sxm"):
        call_command("estimate", MODEL, "--gpu", "h100-sx", stdout=StringIO())


@pytest.mark.slow
@pytest.mark.parametrize(
    "args",
    [
        [MODEL, "--context", "NaN"],
        [MODEL, "--gpu", "h900"],
        [MODEL, "--no-such-flag"],
        [],
        [MODEL, "--context"],
    ],
)
def test_from_the_shell_bad_values_print_one_line_and_exit_2(args):
    done = manage("estimate", *args)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


def test_offload_needs_a_gpu_and_the_ram():
    with pytest.raises(CommandError, match="--ram"):
        call_command("estimate", "qwen/qwen3-32b", "--gpu", "rtx-4090", "--offload", "auto", stdout=StringIO())
    with pytest.raises(CommandError, match="--offload"):
        call_command("estimate", "qwen/qwen3-32b", "--offload", "auto", "--ram", "64GB", stdout=StringIO())
