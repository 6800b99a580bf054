"""``manage.py estimate``: the estimation core from the shell, for a catalog id or a config.json path."""

from __future__ import annotations

import json
import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from calculator.estimation import GB

HUB = Path(__file__).resolve().parents[2] / "models_catalog" / "data" / "hub"


def run(*args: str) -> dict:
    out = StringIO()
    call_command("estimate", *args, "--json", stdout=out)
    return json.loads(out.getvalue())


def test_json_has_every_documented_field():
    result = run("meta-llama/Llama-3.1-8B-Instruct")
    for key in (
        "params_total",
        "params_active",
        "params_source",
        "weights_bytes",
        "kv_cache_bytes",
        "activations_bytes",
        "overhead_bytes",
        "total_bytes",
        "estimated_fields",
        "gpus",
    ):
        assert key in result
    assert result["params_total"] == 8_030_261_248
    assert result["params_source"] == "safetensors"
    assert result["kv_cache_bytes"] == 131_072 * 8192
    gpu = next(row for row in result["gpus"] if row["slug"] == "h100-sxm")
    assert set(gpu) >= {"name", "memory_bytes", "count", "nodes"}
    assert gpu["memory_bytes"] == 80 * GB and gpu["count"] == 1 and gpu["nodes"] == 1


def test_catalog_model_without_hub_counts_uses_the_reference_figures():
    result = run("zai-org/GLM-5.3-Flash", "--gpu", "mi300x", "--gpu", "a40")
    assert result["params_total"] == 321_300_000_000
    assert result["params_source"] == "reference"
    assert round(result["total_bytes"] / GB) == 708
    assert [(row["count"], row["nodes"]) for row in result["gpus"]] == [(5, 1), (17, 3)]


def test_config_path_needs_no_catalog_and_accepts_param_overrides(tmp_path):
    # no django_db mark: any database access would raise here
    config = tmp_path / "config.json"
    shutil.copy(HUB / "meta-llama" / "Llama-3.1-8B-Instruct" / "config.json", config)
    result = run(str(config), "--params", "8.03B", "--active-params", "8.03e9", "--gpu", "rtx-4090")
    assert result["params_total"] == 8_030_000_000
    assert result["params_active"] == 8_030_000_000
    assert result["params_source"] == "override"
    assert result["weights_bytes"] == 2 * 8_030_000_000


def test_engine_kv_dtype_context_and_concurrency_are_spelled_as_engines_spell_them():
    result = run(
        "meta-llama/Llama-3.1-8B-Instruct",
        "--precision",
        "Q4_K_M",
        "--engine",
        "llama.cpp",
        "--kv-dtype",
        "q8_0",
        "--context",
        "4096",
        "--concurrency",
        "4",
    )
    # llama.cpp -c 16384 -np 4: 16,384 cells of 32 layers × 8 KV heads × 256 values × 34/32 B
    assert result["kv_cache_bytes"] == 16_384 * 32 * 8 * 256 * 34 // 32
    assert result["workload"]["engine"] == "llama.cpp"
    assert "weights" not in result["estimated_fields"]


def test_fine_tuning_mode_reports_activations():
    result = run("meta-llama/Llama-3.1-8B-Instruct", "--mode", "qlora")
    assert result["activations_bytes"] > 0
    assert result["kv_cache_bytes"] == 0


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


def test_text_output_lists_terms_with_their_formulas_and_the_gpus():
    out = StringIO()
    call_command("estimate", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "h100-sxm", stdout=out)
    text = out.getvalue()
    assert "Weights" in text and "KV cache" in text and "Runtime overhead" in text
    assert "1 × H100 80GB" in text
