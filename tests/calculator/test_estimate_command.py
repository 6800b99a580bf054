"""``manage.py estimate``: what it answers, in JSON and text, checked against the estimation core: the breakdown, the
hardware rows, modes that do not apply, the inverse questions, speed, cost, engine capacity, offload and launch.
What it reads and the errors it gives: ``test_estimate_command_arguments.py``."""

from __future__ import annotations

import json
import shutil
from datetime import date
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from calculator.estimation import (
    GB,
    GIB,
    HOURS_PER_MONTH,
    ApiPrice,
    EngineSettings,
    TrafficMix,
    Workload,
    apple_fit,
    break_even,
    cost_per_million_tokens,
    engine_capacity,
    estimate,
    max_concurrency,
    max_context,
    speed,
)
from calculator.estimation.memory.applicability import choose_mode
from calculator.estimation.plan.planner import SECONDS_PER_MONTH, Demand, monthly_output_tokens
from calculator.estimation.plan.replica import replica_on
from calculator.management.estimate_output import precision_used
from calculator.management.options import load_spec
from pricing.gpus import gpu_by_slug, load_gpus
from tests.calculator.estimate_cli import HUB, MODEL, run, spec_of, workload_of

H100_TOTAL = 85_045_477_376  # gpu-capacity.json: CUDA total of an H100 80GB


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
    result = run("zai-org/GLM-5.3-Flash", "--precision", "fp16", "--gpu", "mi300x", "--gpu", "a40")
    assert result["params_total"] == 321_300_000_000
    assert result["params_source"] == "reference"
    # what vLLM allocates (the reference page's rule: 708 GB), on what ROCm reports: 4 MI300X; but vLLM has no
    # sparse-attention kernels for an MI300X or an A40, and says so (docs/methodology.md §4.10, §4.14)
    assert round(result["total_bytes"] / GB) == 633
    assert [(row["count"], row["nodes"], row["starts"]) for row in result["gpus"]] == [(4, 1, False), (24, 3, False)]


def test_without_a_precision_the_model_is_sized_as_released():
    assert round(run("zai-org/GLM-5.3-Flash")["total_bytes"] / GB) == 321  # FP8 repository
    gpt_oss = run("openai/gpt-oss-120b")
    assert gpt_oss["workload"]["precision"] == "mxfp4" and 65 < gpt_oss["total_bytes"] / GB < 80
    assert run("meta-llama/Llama-3.1-8B-Instruct")["workload"]["precision"] == "fp16"  # BF16


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


def test_text_output_lists_terms_with_their_formulas_and_the_gpus():
    out = StringIO()
    call_command("estimate", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "h100-sxm", stdout=out)
    text = out.getvalue()
    assert "Weights" in text and "KV cache" in text and "Runtime overhead" in text
    assert "1 × H100 SXM 80GB" in text


# --- unified-memory machines --------------------------------------------------------------------------------


def test_default_list_never_stacks_macs_or_unified_desktops():
    result = run("meta-llama/Llama-3.1-405B")
    unified = {g.slug for g in load_gpus() if g.segment in ("apple", "unified-desktop")}
    assert not unified & {row["slug"] for row in result["gpus"]}
    assert {row["slug"] for row in result["machines"]} == unified
    assert all(row["verdict"] == "no" for row in result["machines"])


def test_mac_rows_follow_apple_fit_with_the_memory_sold_in_gib():
    # Qwen3-32B at 48K tokens needs ~86 GB: above a 96 GB Mac's default GPU limit, below its raised one
    result = run("Qwen/Qwen3-32B", "--context", "48K", "--gpu", "mac-96", "--gpu", "apple-m2-max", "--mac", "64")
    total = result["total_bytes"]
    verdicts = {}
    for row, ram_gib in zip(result["machines"], (96, 96, 64), strict=True):
        expected = apple_fit(total, ram_gib * GIB)
        assert row["memory_bytes"] == ram_gib * GIB
        assert row["gpu_limit_bytes"] == expected.default_limit_bytes
        assert row["wired_limit_mb"] == expected.wired_limit_mb
        assert row["command"] == expected.command
        verdicts[row["slug"]] = row["verdict"]
    assert verdicts == {"mac-96": "raise", "apple-m2-max": "raise", "mac-64": "no"}
    assert result["gpus"] == []
    assert result["machines"][0]["wired_limit_mb"] * 2**20 >= total


def test_macos_26_gives_the_gpu_more_by_default():
    """GLM-5.3-Flash at MLX 2-bit (~112 GB) on a 128 GB Mac: above macOS 15's 96 GiB, below macOS 26's 107.5 GiB."""
    args = ("zai-org/GLM-5.3-Flash", "--precision", "mlx-2bit", "--mac", "128")
    older, newer = run(*args)["machines"][0], run(*args, "--macos", "26")["machines"][0]
    assert older["verdict"] == "raise" and older["command"].startswith("sudo sysctl iogpu.wired_limit_mb=")
    assert newer["verdict"] == "fits" and newer["command"] is None
    assert newer["gpu_limit_bytes"] > older["gpu_limit_bytes"]


def test_mac_text_says_fits_raise_or_does_not_fit():
    out = StringIO()
    call_command(
        "estimate", "Qwen/Qwen3-32B", "--context", "48K", "--mac", "128", "--mac", "96", "--mac", "48", stdout=out
    )
    text = out.getvalue()
    assert "Mac 128 GB: fits (GPU limit" in text
    assert "Mac 96 GB: fits after raising the GPU limit: sudo sysctl iogpu.wired_limit_mb=" in text
    assert "Mac 48 GB: does not fit" in text
    assert " × Mac" not in text and "nodes" not in text


def test_dgx_spark_and_strix_halo_are_one_machine_each():
    result = run("Qwen/Qwen3-32B", "--gpu", "DGX Spark", "--gpu", "Ryzen AI Max+ 395")
    assert [row["slug"] for row in result["machines"]] == ["dgx-spark-gb10", "ryzen-ai-max-plus-395"]
    assert result["gpus"] == []
    assert [row["verdict"] for row in result["machines"]] == ["fits", "fits"]
    assert all(row["command"] is None for row in result["machines"])


# --- modes that do not apply --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "precision", "reason"),
    [
        ("lora", "int4", "lora_on_4bit_is_qlora"),
        ("qlora", "fp16", "qlora_needs_4bit_base"),
        ("full", "int4", "full_needs_16bit"),
        ("lora", "fp16", None),
    ],
)
def test_modes_that_do_not_apply_follow_choose_mode_in_json_and_text(mode, precision, reason):
    result = run("meta-llama/Llama-3.1-8B-Instruct", "--mode", mode, "--precision", precision, "--gpu", "h100-sxm")
    choice = choose_mode(mode, precision)
    assert result["workload"]["mode"] == str(choice.mode)
    assert result["workload"]["precision"] == choice.precision
    change = result["mode_change"]
    assert (change["requested_mode"], change["requested_precision"]) == (mode, precision)
    assert change["applies"] is choice.applies and change["reason"] == reason
    out = StringIO()
    args = ("--mode", mode, "--precision", precision, "--gpu", "h100-sxm")
    call_command("estimate", "meta-llama/Llama-3.1-8B-Instruct", *args, stdout=out)
    assert (f"note: {change['note']}" in out.getvalue()) is (reason is not None)


def test_json_reports_the_precision_the_weights_were_computed_in():
    plain = run("meta-llama/Llama-3.1-8B-Instruct", "--precision", "q4_k_m", "--engine", "llama.cpp", "--gpu", "a40")
    assert plain["precision_used"] == plain["workload"]["precision"]
    full = run("meta-llama/Llama-3.1-8B-Instruct", "--mode", "full", "--precision", "int4", "--gpu", "a40")
    assert full["precision_used"] == precision_used(
        estimate(spec_of("meta-llama/Llama-3.1-8B-Instruct"), workload_of(full, "full"))
    )


def test_qlora_without_a_precision_is_qlora_as_asked():
    result = run("meta-llama/Llama-3.1-8B-Instruct", "--mode", "qlora", "--gpu", "h100-sxm")
    assert result["mode_change"]["applies"] is True and result["mode_change"]["note"] is None


# --- the inverse questions, speed and cost ------------------------------------------------------------------


def test_max_context_and_concurrency_match_the_core_on_gpus_and_a_mac():
    args = ("Qwen/Qwen3-32B", "--precision", "fp8", "--context", "32K", "--concurrency", "4", "--gpus", "2")
    result = run(*args, "--gpu", "h100-sxm", "--mac", "64", "--max-context", "--max-concurrency")
    spec, workload = spec_of("Qwen/Qwen3-32B"), workload_of(result)
    h100, mac = result["gpus"][0], result["machines"][0]
    gpu = gpu_by_slug("h100-sxm")
    assert h100["inverse_gpus"] == 2
    assert h100["max_context"] == max_context(spec, workload, gpu, 2) == 40_960
    assert h100["max_concurrency"] == max_concurrency(spec, workload, gpu, 2)
    budget = apple_fit(0, 64 * GIB).max_raised_limit_bytes
    assert mac["max_context"] == max_context(spec, workload, gpu, 1, budget_bytes=budget)
    assert mac["max_concurrency"] == max_concurrency(spec, workload, gpu, 1, budget_bytes=budget)
    assert 0 < mac["max_concurrency"] < h100["max_concurrency"]


def test_speed_matches_the_core_at_the_tensor_parallel_size():
    # 64 query heads, 8 KV heads: three H100s split no heads evenly, so vLLM runs them as three pipeline stages, and a
    # request passes them one after another at one GPU's tensor-parallel degree
    result = run("meta-llama/Llama-3.3-70B-Instruct", "--context", "32K", "--gpu", "h100-sxm", "--speed")
    row = result["gpus"][0]
    assert (row["count"], row["tensor_parallel"], row["pipeline_parallel"]) == (3, 1, 3)
    found = speed(spec_of("meta-llama/Llama-3.3-70B-Instruct"), workload_of(result), gpu_by_slug("h100-sxm"), 1)
    assert result["speed"] == row["speed"]
    assert (result["speed"]["gpus"], result["speed"]["tensor_parallel"]) == (3, 1)
    assert result["speed"]["decode_per_request"] == {
        "low": found.per_request_tokens_per_s_low,
        "high": found.per_request_tokens_per_s_high,
    }
    assert result["speed"]["decode_total"]["low"] == found.decode_tokens_per_s_low
    assert result["speed"]["prefill"] == found.prefill_tokens_per_s
    assert result["speed"]["ttft_s"] == pytest.approx(32_768 / found.prefill_tokens_per_s)


def test_speed_on_a_mac_chip_uses_its_bandwidth_and_a_bare_mac_size_says_unknown():
    result = run("Qwen/Qwen3-8B", "--gpu", "apple-m4-max", "--mac", "32", "--speed")
    chip, bare = result["machines"]
    assert chip["speed"]["gpus"] == 1 and chip["speed"]["decode_per_request"]["low"] > 0
    assert bare["speed"]["decode_per_request"]["low"] is None


def test_cost_per_million_tokens_and_break_even_match_the_core():
    args = ("Qwen/Qwen3-32B", "--precision", "fp8", "--gpu", "h100-sxm", "--price-per-gpu-hour", "2.49")
    args += ("--api-price", "0.1,0.4,0.05")
    result = run(*args, "--cached-share", "50")
    cost = result["cost"]
    # as the model page's break-even and the planner: one replica's capacity within 50 ms a token and the first
    # token within 2 s, at the average rate of a month sized for peaks of twice it — not the one request asked for
    h100, spec = gpu_by_slug("h100-sxm"), spec_of("Qwen/Qwen3-32B")
    demand = Demand(0.0, input_per_output=3.0, cached_share=0.5)
    held = replica_on(spec, workload_of(result), h100, 1, 1, demand)
    one = speed(spec, workload_of(result), h100, 1).decode_tokens_per_s_low
    assert held is not None and held.concurrency > 1
    tokens = monthly_output_tokens(held, demand) / SECONDS_PER_MONTH
    assert tokens > one and cost["peak_factor"] == 2.0
    assert cost["billed_gpus"] == 1 and cost["tokens_per_s"] == pytest.approx(tokens)
    assert cost["replica"]["concurrency"] == held.concurrency and cost["replica"]["tpot_s"] <= 0.05
    faster = run(*args, "--cached-share", "50", "--min-tokens-per-s", "40")["cost"]
    assert faster["replica"]["tpot_s"] <= 0.025 and faster["tokens_per_s"] < tokens
    impossible = run(*args, "--cached-share", "50", "--min-tokens-per-s", "1000")["cost"]
    assert impossible["replica"] is None and impossible["tokens_per_s"] == one
    assert cost["per_month_usd"] == pytest.approx(2.49 * HOURS_PER_MONTH)
    assert cost["per_million_tokens_usd"] == cost_per_million_tokens(2.49, tokens)
    mix = TrafficMix(input_tokens_per_output_token=3.0, cached_input_share=0.5)
    expected = break_even(2.49 * HOURS_PER_MONTH, ApiPrice(0.1, 0.4, 0.05), mix, date.today(), tokens)
    assert cost["break_even"]["api_per_million_output_usd"] == pytest.approx(0.4 + 3 * 0.075)
    assert cost["break_even"]["break_even_output_tokens_per_month"] == pytest.approx(
        expected.break_even_output_tokens_per_month
    )
    assert cost["break_even"]["self_host_can_reach_break_even"] is expected.self_host_can_reach_break_even


def test_text_prints_the_new_answers():
    out = StringIO()
    # "H100 80GB", as the output printed it before form factors were told apart: the SXM part
    args = ("--gpu", "H100 80GB", "--max-context", "--speed", "--price-per-gpu-hour", "2", "--api-price", "1,4")
    call_command("estimate", "Qwen/Qwen3-32B", "--precision", "fp8", *args, stdout=out)
    text = out.getvalue()
    tokens = run("Qwen/Qwen3-32B", "--precision", "fp8", *args)["gpus"][0]["max_context"]
    assert tokens > 8192
    assert f"longest context on 1 GPU: {tokens:,} tokens" in text
    assert "tokens/s per request" in text and "prefill:" in text
    assert "per million generated tokens" in text and "break-even at" in text
    replica = run("Qwen/Qwen3-32B", "--precision", "fp8", *args)["gpus"][0]["cost"]["replica"]
    assert f"with up to {replica['concurrency']} requests at a time" in text  # the replica the JSON carries


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_engine_capacity_for_the_first_gpu_matches_the_core(engine):
    args = ("--engine", engine, "--gpu", "mac-64", "--gpu", "a100-80gb-sxm", "--gpu", "h100-sxm", "--tp", "2")
    result = run(
        "Qwen/Qwen3-32B", "--precision", "fp8", *args, "--gpu-memory-utilization", "0.85", "--max-model-len", "32K"
    )
    settings = EngineSettings(
        engine=engine,
        tensor_parallel=2,
        gpu_memory_utilization=0.85,
        max_model_len=32_768,
        precision="fp8",
        kv_dtype="fp16",
        gpu_name=gpu_by_slug("a100-80gb-sxm").name,  # an A100 takes vLLM's small batch defaults (§4.12)
    )
    found = engine_capacity(spec_of("Qwen/Qwen3-32B"), gpu_by_slug("a100-80gb-sxm").capacity_bytes, settings)
    capacity = result["engine_capacity"]
    assert (capacity["gpu"], capacity["tensor_parallel"], capacity["max_model_len"]) == ("a100-80gb-sxm", 2, 32_768)
    assert capacity["kv_cache_tokens"] == found.kv_cache_tokens > 0
    assert capacity["max_concurrency"] == found.max_concurrency
    assert "engine_capacity" not in result["gpus"][1]


def test_engine_capacity_text_reads_like_the_start_up_log():
    out = StringIO()
    args = ("--gpu", "h100-sxm", "--max-model-len", "8K", "--max-num-seqs", "256")
    call_command("estimate", "meta-llama/Llama-3.1-8B-Instruct", *args, stdout=out)
    settings = EngineSettings(max_model_len=8192, max_num_seqs=256)
    found = engine_capacity(
        spec_of("meta-llama/Llama-3.1-8B-Instruct"), gpu_by_slug("h100-sxm").capacity_bytes, settings
    )
    line = f"KV cache {found.kv_cache_tokens:,} tokens, maximum concurrency {found.max_concurrency:,.2f}x for 8,192"
    assert line in out.getvalue()


def test_llama_cpp_has_no_engine_capacity():
    assert "engine_capacity" not in run(MODEL, "--engine", "llama.cpp", "--precision", "q4_k_m", "--gpu", "a40")


# --- offload, launch commands, fine-tuning frameworks -------------------------------------------------------


def test_offload_auto_prints_the_split_speed_and_json_matching_the_core():
    from calculator.estimation.plan.offload_fit import offload_verdict

    data = run(
        "openai/gpt-oss-120b",
        "--precision",
        "mxfp4_moe",
        "--engine",
        "llama.cpp",
        "--gpu",
        "rtx-4090",
        "--offload",
        "auto",
        "--ram",
        "128GiB",
        "--launch",
        "llama.cpp",
    )
    _, spec, _ = load_spec("openai/gpt-oss-120b", None, None)
    gpu = gpu_by_slug("rtx-4090")
    assert gpu is not None
    core = offload_verdict(
        spec,
        Workload(engine="llama.cpp", precision="mxfp4_moe"),
        gpu_capacity_bytes=gpu.capacity_bytes,
        gpu_bandwidth_gbps=gpu.memory_bandwidth_gbps,
        ram_bytes=128 * GIB,
    )
    assert data["offload"]["placement"] == core.split.placement.value == "n_cpu_moe"
    assert data["offload"]["host_bytes"] == core.split.host_bytes
    assert data["offload"]["speed"]["tokens_per_s"] == pytest.approx(core.speed.tokens_per_s)
    assert f"--n-cpu-moe {core.split.cpu_moe_layers}" in data["launch"]["command"]
    out = StringIO()
    call_command(
        "estimate",
        "openai/gpt-oss-120b",
        "--precision",
        "mxfp4_moe",
        "--engine",
        "llama.cpp",
        "--gpu",
        "rtx-4090",
        "--offload",
        "auto",
        "--ram",
        "128",
        "--launch",
        "llama.cpp",
        stdout=out,
    )
    text = out.getvalue()
    assert "experts of" in text and "tokens/s (estimated" in text and "llama-server -m" in text


@pytest.mark.parametrize("engine", ["vllm", "sglang", "ollama", "mlx"])
def test_launch_prints_each_engines_command(engine):
    data = run("qwen/qwen3-32b", "--gpu", "h100-sxm", "--launch", engine)
    assert data["launch"]["engine"] == engine and data["launch"]["script"]


def test_framework_flag_changes_a_fine_tuning_estimate_and_refuses_unknown_names():
    from django.core.management import call_command

    def total(*extra: str) -> int:
        out = StringIO()
        call_command("estimate", "meta-llama/Llama-3.1-8B-Instruct", "--mode", "qlora", "--json", *extra, stdout=out)
        return int(json.loads(out.getvalue())["total_bytes"])

    assert total("--framework", "unsloth") < total()  # Unsloth keeps checkpointed activations in host RAM
    with pytest.raises(CommandError) as error:
        total("--framework", "keras")
    assert error.value.returncode == 2
