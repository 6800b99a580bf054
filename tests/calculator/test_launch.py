"""Launch commands (calculator/estimation/engines/launch.py): every flag one an engine documents, every token quoted."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path

import pytest

from calculator.estimation import GIB, Workload, apple_fit, estimate
from calculator.estimation.engines.builds import released_precision
from calculator.estimation.engines.launch import ENGINES, LaunchConfig, launch_command
from calculator.estimation.engines.sourcing import weights_source
from calculator.estimation.plan.offload_fit import best_quant_verdict
from models_catalog.specs import spec_from_recorded_folder
from pricing.gpus import gpu_by_slug

HUB = Path(__file__).resolve().parents[2] / "models_catalog" / "data" / "hub"

# Accepted option names per engine and version, from each engine's argument definitions:
# vLLM 0.11 vllm/engine/arg_utils.py EngineArgs.add_cli_args + vllm/entrypoints/openai/cli_args.py;
# SGLang 0.5 python/sglang/srt/server_args.py ServerArgs.add_cli_args (--pp-size: ServerArgs.pp_size, alias
# --pipeline-parallel-size, sgl-project/sglang at 001067fffe33427bee0ed2f007fb7551a1d76b44);
# llama.cpp common/arg.cpp at commit 145b6280d6aa1890e22457143dad0badb3fd6820 (llama-server);
# mlx-lm 0.28 mlx_lm/server.py main() argparse; Ollama docs/modelfile.md PARAMETER names.
ACCEPTED: dict[str, tuple[str, frozenset[str]]] = {
    "vllm": (
        "0.11",
        frozenset(
            {
                "--tensor-parallel-size",
                "-tp",
                "--max-model-len",
                "--gpu-memory-utilization",
                "--kv-cache-dtype",
                "--quantization",
                "-q",
                "--max-num-seqs",
                "--pipeline-parallel-size",
                "--enable-expert-parallel",
                "--data-parallel-size",  # EngineArgs data_parallel_size, one engine per rank (arg_utils.py at 99d7eb5d)
                "--distributed-executor-backend",  # EngineArgs.distributed_executor_backend ("ray" across nodes)
                # EngineArgs.speculative_config, a JSON object: method "mtp" (vllm-project/recipes GLM/GLM5.md)
                "--speculative-config",
            }
        ),
    ),
    "sglang": (
        "0.5",
        frozenset(
            {
                "--model-path",
                "--tp",
                "--tp-size",
                "--pp-size",
                "--pipeline-parallel-size",
                "--context-length",
                "--mem-fraction-static",
                "--kv-cache-dtype",
                "--quantization",
                "--max-running-requests",
                "--dp-size",  # ServerArgs.dp_size (docs/advanced_features/server_arguments.md at b36e8e19)
                "--enable-dp-attention",
                "--nnodes",  # ServerArgs.nnodes, node_rank, dist_init_addr: multi-node deployment
                "--node-rank",
                "--dist-init-addr",
                # ServerArgs.speculative_algorithm, speculative_num_steps, speculative_eagle_topk,
                # speculative_num_draft_tokens (docs basic_usage/deepseek_v3.md, "Multi-token Prediction")
                "--speculative-algorithm",
                "--speculative-num-steps",
                "--speculative-eagle-topk",
                "--speculative-num-draft-tokens",
            }
        ),
    ),
    "llama.cpp": (
        "145b6280",
        frozenset(
            {
                "-m",
                "--model",
                "-c",
                "--ctx-size",
                "-ngl",
                "--n-gpu-layers",
                "-ot",
                "--override-tensor",
                "--cpu-moe",
                "-cmoe",
                "--n-cpu-moe",
                "-ncmoe",
                "-ctk",
                "--cache-type-k",
                "-ctv",
                "--cache-type-v",
                "-fa",
                "--flash-attn",
                "--mmproj",
                "-md",
                "--model-draft",
                "-np",
                "--parallel",
            }
        ),
    ),
    "mlx": ("0.28", frozenset({"--model", "--draft-model", "--host", "--port"})),
    "ollama": ("modelfile", frozenset({"num_ctx", "num_gpu"})),
}
PROGRAM = {"vllm": 3, "sglang": 3, "llama.cpp": 1, "mlx": 1}  # tokens before the options (program, subcommand, model)


def flags_of(argv: Sequence[str]) -> list[str]:
    """The option names an argv uses (tokens that start with '-' and are not negative numbers)."""
    return [token.split("=", 1)[0] for token in argv if token.startswith("-") and not token[1:2].isdigit()]


CONFIGS = [
    LaunchConfig("vllm", "Qwen/Qwen3-235B-A22B", 32768, 8, "fp8", "fp8", 8, 0.9),
    LaunchConfig("sglang", "openai/gpt-oss-120b", 131072, 4, "", "fp8", 2, 0.85, max_num_seqs=16),
    LaunchConfig(
        "llama.cpp",
        "/models/it's here/gpt-oss-120b.gguf",
        16384,
        2,
        kv_dtype="q8_0",
        offload="n_cpu_moe",
        cpu_moe_layers=25,
        mmproj="/models/mmproj.gguf",
        draft_model="/models/draft.gguf",
    ),
    LaunchConfig("llama.cpp", "model.gguf", 8192, offload="experts_cpu"),
    LaunchConfig("llama.cpp", "model.gguf", 8192, offload="layers", gpu_layers=15),
    LaunchConfig("ollama", "qwen3:235b", 8192, 4, kv_dtype="q8_0", offload="layers", gpu_layers=20),
    LaunchConfig("mlx", "mlx-community/gpt-oss-120b-4bit", wired_limit_mb=110592),
    LaunchConfig("vllm", "zai-org/GLM-5.3-Flash", 8192, 1, "", "fp16", 1, 0.9, pipeline_parallel=5),
    LaunchConfig("sglang", "zai-org/GLM-5.3-Flash", 8192, 1, "", "fp16", 2, 0.9, pipeline_parallel=3),
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: c.engine)
def test_every_generated_flag_is_one_the_engine_documents(config: LaunchConfig):
    launch = launch_command(config)
    accepted = ACCEPTED[launch.engine][1]
    if launch.engine == "ollama":
        names = [line.split()[1] for line in launch.modelfile.splitlines() if line.startswith("PARAMETER")]
    else:
        names = flags_of(launch.argv[PROGRAM[launch.engine] :])
        if launch.engine == "sglang":
            names = flags_of(launch.argv[3:])
    assert names and set(names) <= accepted


def test_model_paths_are_quoted_for_the_shell():
    launch = launch_command(CONFIGS[2])
    assert shlex.split(launch.command) == list(launch.argv)
    assert "'/models/it'\"'\"'s here/gpt-oss-120b.gguf'" in launch.command


def test_llama_server_command_carries_the_offload_and_cache():
    argv = launch_command(CONFIGS[2]).argv
    assert argv[argv.index("-c") + 1] == "32768"  # -c is all slots together: 2 × 16384
    assert argv[argv.index("--n-cpu-moe") + 1] == "25"
    assert argv[argv.index("-ctk") + 1] == "q8_0" and argv[argv.index("-np") + 1] == "2"
    assert "exps=CPU" in launch_command(CONFIGS[3]).argv
    layers = launch_command(CONFIGS[4]).argv
    assert layers[layers.index("-ngl") + 1] == "15"


def test_vllm_sglang_ollama_and_mlx_spell_their_own_options():
    vllm = launch_command(CONFIGS[0]).command
    assert vllm.startswith("vllm serve Qwen/Qwen3-235B-A22B --tensor-parallel-size 8 --max-model-len 32768")
    assert "--kv-cache-dtype fp8" in vllm and "--quantization fp8" in vllm and "--max-num-seqs 8" in vllm
    sglang = launch_command(CONFIGS[1]).command
    assert "--kv-cache-dtype fp8_e4m3" in sglang and "--mem-fraction-static 0.85" in sglang
    ollama = launch_command(CONFIGS[5])
    assert "PARAMETER num_ctx 8192" in ollama.modelfile and "PARAMETER num_gpu 20" in ollama.modelfile
    assert "export OLLAMA_KV_CACHE_TYPE=q8_0" in ollama.script and "ollama create" in ollama.script
    mlx = launch_command(CONFIGS[6])
    assert mlx.script.splitlines()[0] == "sudo sysctl iogpu.wired_limit_mb=110592"


def test_every_engine_has_a_command_and_an_unknown_one_is_refused():
    assert all(launch_command(LaunchConfig(engine, "m")).script for engine in ENGINES)
    with pytest.raises(ValueError):
        launch_command(LaunchConfig("tgi", "m"))


# The done-when: three models × (RTX 4090 + 128 GiB RAM, a 128 GiB Mac, 8 × H100) each give a verdict
# and a command.
MODELS = ["zai-org/GLM-5.3-Flash", "openai/gpt-oss-120b", "Qwen/Qwen3-235B-A22B"]
MLX_LADDER = ("mlx-8bit", "mlx-6bit", "mlx-4bit", "mlx-3bit", "mlx-2bit")


def verdicts(model: str) -> dict[str, tuple[str, str]]:
    spec = spec_from_recorded_folder(HUB / model)
    found: dict[str, tuple[str, str]] = {}
    rtx, h100 = gpu_by_slug("rtx-4090"), gpu_by_slug("h100-sxm")
    assert rtx is not None and h100 is not None
    local = best_quant_verdict(
        spec,
        Workload(engine="llama.cpp"),
        gpu_capacity_bytes=rtx.capacity_bytes,
        gpu_bandwidth_gbps=rtx.memory_bandwidth_gbps,
        ram_bytes=128 * GIB,
    )
    split = local.split
    command = launch_command(
        LaunchConfig(
            "llama.cpp",
            f"{model.split('/')[-1]}-{split.ftype}.gguf",
            offload=split.placement.value,
            gpu_layers=split.gpu_layers,
            cpu_moe_layers=split.cpu_moe_layers,
        )
    ).command
    rate = local.speed.tokens_per_s or 0
    found["rtx-4090+128GiB"] = (f"{split.placement.value} {split.ftype} {rate:.1f} tok/s", command)
    for precision in MLX_LADDER:
        need = estimate(spec, Workload(engine="mlx", precision=precision)).total_bytes
        mac = apple_fit(need, 128 * GIB)
        if mac.fits_default or mac.fits_after_raise:
            verdict = "fits" if mac.fits_default else "raise"
            launch = launch_command(
                LaunchConfig(
                    "mlx", f"mlx-community/{model.split('/')[-1]}-{precision[4:]}", wired_limit_mb=mac.wired_limit_mb
                )
            )
            found["mac-128"] = (f"{verdict} {precision} {need / GIB:.1f} GiB", launch.script)
            break
    else:
        found["mac-128"] = ("no", "")
    # gpt-oss is served in its released MXFP4; the others cast to FP8 on load
    precision = "mxfp4" if spec.native_dtype == "mxfp4" else "fp8"
    need = estimate(spec, Workload(engine="vllm", precision=precision, tensor_parallel=8)).total_bytes
    fits = need <= 8 * 0.9 * h100.memory_bytes
    source = weights_source("vllm", model, released_precision(spec.native_dtype), precision)
    assert source.runnable
    config = LaunchConfig(
        "vllm",
        source.model,
        8192,
        quantization=source.quantization,
        tensor_parallel=8,
        gpu_memory_utilization=0.9,
    )
    found["8xh100"] = (f"{'fits' if fits else 'no'} {precision} {need / 1e9:.0f} GB", launch_command(config).command)
    return found


@pytest.mark.parametrize("model", MODELS)
def test_done_when_models_give_a_verdict_and_a_command_on_each_machine(model: str):
    found = verdicts(model)
    assert set(found) == {"rtx-4090+128GiB", "mac-128", "8xh100"}
    for verdict, command in found.values():
        assert verdict
        if not verdict.startswith("no"):
            assert command
    assert found["8xh100"][0].startswith("fits")
    assert not found["rtx-4090+128GiB"][0].startswith("none")


def test_pipeline_stages_spelled_per_engine():
    vllm = launch_command(LaunchConfig("vllm", "m/x", tensor_parallel=1, pipeline_parallel=5)).argv
    assert vllm[vllm.index("--pipeline-parallel-size") + 1] == "5" and "--tensor-parallel-size" not in vllm
    sglang = launch_command(LaunchConfig("sglang", "m/x", tensor_parallel=2, pipeline_parallel=3)).argv
    assert sglang[sglang.index("--tp") + 1] == "2" and sglang[sglang.index("--pp-size") + 1] == "3"
    assert "--pipeline-parallel-size" not in launch_command(LaunchConfig("vllm", "m/x", tensor_parallel=8)).argv


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_a_replica_over_several_nodes_gets_its_multi_node_command(engine):
    launch = launch_command(
        LaunchConfig(engine, "Qwen/Qwen3-235B-A22B", tensor_parallel=8, pipeline_parallel=2, nodes=2)
    )
    start = 1 if engine == "vllm" else 3
    assert set(flags_of(launch.argv[start:])) <= ACCEPTED[engine][1] | {"--model-path"}
    if engine == "vllm":
        assert launch.setup[1] == "ray start --head --port=6379" and "ray start --address=HEAD_IP:6379" in launch.setup
        assert launch.argv[-2:] == ("--distributed-executor-backend", "ray")
    else:
        argv = launch.argv
        assert argv[argv.index("--nnodes") + 1] == "2" and argv[argv.index("--dist-init-addr") + 1] == "HEAD_IP:5000"
    single = launch_command(LaunchConfig(engine, "m", tensor_parallel=8))
    assert not any("ray" in line or "nnodes" in line for line in (*single.setup, *single.argv))
