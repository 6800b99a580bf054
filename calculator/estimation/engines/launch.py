"""The command that runs a configuration, per engine, generated from the same numbers the estimate used.

Flag names as each engine documents them (the accepted-flag table and its sources are in tests/calculator/
test_launch.py; SOURCES.md "Launch commands"):
- vLLM ``vllm serve`` (vllm ``vllm/engine/arg_utils.py`` ``EngineArgs.add_cli_args``, v0.11);
- SGLang ``python -m sglang.launch_server`` (sglang ``python/sglang/srt/server_args.py``, v0.5; ``--pp-size`` as
  ``ServerArgs.pp_size`` names it, alias ``--pipeline-parallel-size``, read at commit 001067ff);
- llama.cpp ``llama-server`` (ggml-org/llama.cpp ``common/arg.cpp`` at commit 145b6280d6aa1890e22457143dad0badb3fd6820);
- Ollama Modelfile ``PARAMETER num_ctx`` / ``num_gpu`` (ollama ``docs/modelfile.md``) and the server's
  ``OLLAMA_NUM_PARALLEL`` / ``OLLAMA_KV_CACHE_TYPE`` / ``OLLAMA_FLASH_ATTENTION`` (``envconfig/config.go``);
- mlx-lm ``mlx_lm.server`` (ml-explore/mlx-lm ``mlx_lm/server.py``) and ``sudo sysctl iogpu.wired_limit_mb``
(memory/fit.py). Every model id and path is quoted for a POSIX shell (``shlex.quote``). Pure Python, no I/O.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from .releases import llama_cpp_release

ENGINES = ("vllm", "sglang", "llama.cpp", "ollama", "mlx")
# KV-cache dtype keys (engines/profiles.py) → each engine's spelling
_VLLM_KV = {"fp8": "fp8", "fp8_e4m3": "fp8_e4m3", "fp8_e5m2": "fp8_e5m2"}
_SGLANG_KV = {"fp8": "fp8_e4m3", "fp8_e4m3": "fp8_e4m3", "fp8_e5m2": "fp8_e5m2"}
_LLAMA_KV = {"q8_0": "q8_0", "q4_0": "q4_0", "fp8": "q8_0", "int8": "q8_0"}


@dataclass(frozen=True, slots=True)
class LaunchConfig:
    """One configuration to run. ``model``: a Hub id or local folder (vLLM, SGLang, MLX), a GGUF path or, with
    ``from_hub``, "<repo>:<quant>" (llama.cpp), what an Ollama Modelfile's FROM names; ``quantization``: the engine's
    on-the-fly method for a 16-bit checkpoint ("fp8", "bitsandbytes"; engines/sourcing.py), ``prepare``: the shell lines
    that make the weights first (a conversion); ``offload``: llama.cpp's placement ("gpu", "experts_cpu",
    "n_cpu_moe", "layers") with ``gpu_layers`` / ``cpu_moe_layers`` (plan/offload.py's OffloadSplit fields)."""

    engine: str
    model: str
    context: int = 8192
    concurrency: int = 1
    quantization: str = ""  # vLLM / SGLang --quantization: an on-the-fly method, never a checkpoint's own
    kv_dtype: str = "fp16"
    tensor_parallel: int = 1
    gpu_memory_utilization: float | None = None  # vLLM gpu_memory_utilization / SGLang mem_fraction_static
    max_num_seqs: int | None = None
    offload: str = "gpu"
    gpu_layers: int | None = None
    cpu_moe_layers: int = 0
    mmproj: str = ""  # path of the vision projector file
    draft_model: str = ""  # draft model (llama.cpp -md, mlx-lm --draft-model)
    wired_limit_mb: int | None = None  # Macs: the sysctl value memory/fit.py's apple_fit gives when raising is needed
    pipeline_parallel: int = 1  # pipeline stages (vLLM --pipeline-parallel-size, SGLang --pp-size)
    from_hub: bool = False  # llama.cpp: ``model`` is "<repo>:<quant>", downloaded with -hf
    nodes: int = 1  # machines one replica spans (vLLM over a Ray cluster, SGLang --nnodes)
    # GPUs that each run attention for their own requests (engines/dp_attention.py): vLLM --data-parallel-size N
    # --enable-expert-parallel (one engine per GPU, --max-num-seqs each), SGLang --tp N --dp-size N
    # --enable-dp-attention (--max-running-requests for all of them)
    attention_data_parallel: int = 1
    prepare: tuple[str, ...] = ()  # shell lines run before everything else (sourcing.WeightsSource.prepare)
    engine_release: str = ""  # the engine's release line (engines/releases.py): llama.cpp's flags follow it
    # speculative decoding with the model's own MTP layers as the draft, one token a step: vLLM --speculative-config
    # method "mtp" (vllm-project/recipes GLM/GLM5.md: num_speculative_tokens 1), SGLang --speculative-algorithm EAGLE
    # with one step (sglang docs basic_usage/deepseek_v3.md, "Multi-token Prediction")
    mtp_draft: bool = False


@dataclass(frozen=True, slots=True)
class Launch:
    engine: str
    argv: tuple[str, ...]  # the server command, one token per element (unquoted)
    setup: tuple[str, ...] = ()  # shell lines to run first (sysctl, environment)
    modelfile: str = ""  # Ollama: the Modelfile's text
    after: tuple[str, ...] = ()  # shell lines to run after writing the Modelfile

    @property
    def command(self) -> str:
        """The server command as one shell line, every token quoted."""
        return shlex.join(self.argv)

    @property
    def script(self) -> str:
        """Everything to paste into a shell, in order."""
        lines = [*self.setup]
        if self.modelfile:
            lines.append("cat > Modelfile <<'EOF'\n" + self.modelfile + "EOF")
        if self.argv:
            lines.append(self.command)
        lines += self.after
        return "\n".join(lines)


def launch_command(config: LaunchConfig) -> Launch:
    """The command that runs ``config`` on its engine; ValueError for an engine not in ENGINES."""
    engine = config.engine.lower()
    builders = {"vllm": _vllm, "sglang": _sglang, "llama.cpp": _llama_cpp, "ollama": _ollama, "mlx": _mlx}
    if engine not in builders:
        raise ValueError(f"no launch command for engine {config.engine!r}")
    return builders[engine](config)


def _vllm(c: LaunchConfig) -> Launch:
    argv = ["vllm", "serve", c.model, "--max-model-len", str(c.context)]
    ranks = max(1, c.attention_data_parallel)
    if ranks > 1:
        argv[3:3] = ["--data-parallel-size", str(ranks), "--enable-expert-parallel"]
    if c.pipeline_parallel > 1:
        argv[3:3] = ["--pipeline-parallel-size", str(c.pipeline_parallel)]
    if c.tensor_parallel > 1 and ranks == 1:
        argv[3:3] = ["--tensor-parallel-size", str(c.tensor_parallel)]
    if c.gpu_memory_utilization is not None:
        argv += ["--gpu-memory-utilization", _fraction(c.gpu_memory_utilization)]
    if c.kv_dtype in _VLLM_KV:
        argv += ["--kv-cache-dtype", _VLLM_KV[c.kv_dtype]]
    if c.quantization:
        argv += ["--quantization", c.quantization]
    if c.mtp_draft:
        argv += ["--speculative-config", '{"method": "mtp", "num_speculative_tokens": 1}']
    seqs = c.max_num_seqs or (c.concurrency if c.concurrency > 1 else None)
    if seqs and ranks > 1:
        seqs = -(-seqs // ranks)  # each data-parallel engine schedules its own share
    if seqs:
        argv += ["--max-num-seqs", str(seqs)]
    setup = c.prepare
    if c.nodes > 1:  # vLLM's multi-node serving runs on a Ray cluster (docs: serving/distributed_serving)
        argv += ["--distributed-executor-backend", "ray"]
        setup += (
            f"# a Ray cluster of {c.nodes} nodes: on the first (HEAD_IP is its address)",
            "ray start --head --port=6379",
            "# on each other node",
            "ray start --address=HEAD_IP:6379",
            "# then on the first node",
        )
    return Launch("vllm", tuple(argv), setup)


def _sglang(c: LaunchConfig) -> Launch:
    argv = ["python", "-m", "sglang.launch_server", "--model-path", c.model, "--context-length", str(c.context)]
    if c.tensor_parallel > 1:
        argv += ["--tp", str(c.tensor_parallel)]
    if c.attention_data_parallel > 1:
        argv += ["--dp-size", str(c.attention_data_parallel), "--enable-dp-attention"]
    if c.pipeline_parallel > 1:
        argv += ["--pp-size", str(c.pipeline_parallel)]
    if c.gpu_memory_utilization is not None:
        argv += ["--mem-fraction-static", _fraction(c.gpu_memory_utilization)]
    if c.kv_dtype in _SGLANG_KV:
        argv += ["--kv-cache-dtype", _SGLANG_KV[c.kv_dtype]]
    if c.quantization:
        argv += ["--quantization", c.quantization]
    if c.mtp_draft:
        argv += ["--speculative-algorithm", "EAGLE", "--speculative-num-steps", "1", "--speculative-eagle-topk", "1"]
        argv += ["--speculative-num-draft-tokens", "2"]
    seqs = c.max_num_seqs or (c.concurrency if c.concurrency > 1 else None)
    if seqs:
        argv += ["--max-running-requests", str(seqs)]
    setup = c.prepare
    if c.nodes > 1:  # the same command on every node, NODE_RANK 0 … nodes − 1 (SGLang docs: multi-node deployment)
        argv += ["--nnodes", str(c.nodes), "--node-rank", "NODE_RANK", "--dist-init-addr", "HEAD_IP:5000"]
        setup += (f"# on each of the {c.nodes} nodes, NODE_RANK 0 on the first (HEAD_IP is its address)",)
    return Launch("sglang", tuple(argv), setup)


def _llama_cpp(c: LaunchConfig) -> Launch:
    parallel = max(1, c.concurrency)
    line = llama_cpp_release(c.engine_release)
    # -c is the context of all slots together; llama-server gives each of -np slots an equal share
    argv = ["llama-server", "-hf" if c.from_hub else "-m", c.model, "-c", str(c.context * parallel)]
    argv += ["-ngl", str(c.gpu_layers if c.offload == "layers" and c.gpu_layers is not None else 999)]
    if c.offload == "experts_cpu":
        argv += ["-ot", "exps=CPU"]
    elif c.offload == "n_cpu_moe" and c.cpu_moe_layers > 0:
        if line.n_cpu_moe:
            argv += ["--n-cpu-moe", str(c.cpu_moe_layers)]
        else:  # the override --n-cpu-moe writes (common/arg.cpp, ggml-org/llama.cpp#15077), as one -ot pattern
            layers = "|".join(str(i) for i in range(c.cpu_moe_layers))
            argv += ["-ot", rf"blk\.({layers})\.ffn_(up|down|gate)_exps=CPU"]
    if c.kv_dtype in _LLAMA_KV:
        kind = _LLAMA_KV[c.kv_dtype]
        # a quantized V cache needs Flash Attention
        argv += ["-ctk", kind, "-ctv", kind, *(["-fa", "on"] if line.flash_attention_valued else ["-fa"])]
    if c.mmproj:
        argv += ["--mmproj", c.mmproj]
    if c.draft_model:
        argv += ["-md", c.draft_model]
    # always said: without -np, llama-server from b6925 runs 4 slots on one shared cache (docs/methodology.md §4.12)
    argv += ["-np", str(parallel)]
    return Launch("llama.cpp", tuple(argv), c.prepare)


def _ollama(c: LaunchConfig) -> Launch:
    lines = [f"FROM {c.model}", f"PARAMETER num_ctx {c.context}"]
    if c.offload == "layers" and c.gpu_layers is not None:
        lines.append(f"PARAMETER num_gpu {c.gpu_layers}")
    setup: list[str] = [*c.prepare]
    if c.concurrency > 1:
        setup.append(f"export OLLAMA_NUM_PARALLEL={c.concurrency}")
    if c.kv_dtype in ("q8_0", "q4_0"):
        setup += ["export OLLAMA_FLASH_ATTENTION=1", f"export OLLAMA_KV_CACHE_TYPE={c.kv_dtype}"]
    name = "local-" + "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in c.model.split("/")[-1].lower())
    after = (shlex.join(["ollama", "create", name, "-f", "Modelfile"]), shlex.join(["ollama", "run", name]))
    return Launch("ollama", (), tuple(setup), "\n".join(lines) + "\n", after)


def _mlx(c: LaunchConfig) -> Launch:
    setup = c.prepare
    if c.wired_limit_mb:
        setup += (f"sudo sysctl iogpu.wired_limit_mb={int(c.wired_limit_mb)}",)
    argv = ["mlx_lm.server", "--model", c.model]
    if c.draft_model:
        argv += ["--draft-model", c.draft_model]
    return Launch("mlx", tuple(argv), setup)


def _fraction(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")
