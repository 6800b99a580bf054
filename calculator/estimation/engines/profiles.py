"""Inference engines: how each one pages the KV cache, reserves memory and what it runs on.

Each rule names its source in docs/methodology.md (see SOURCES.md for the table). Engine and KV-dtype
keys are spelled as the engines spell them (``vllm``, ``llama.cpp``; ``fp16``, ``fp8``, ``q8_0``, ``q4_0``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class KvDtype:
    key: str
    label: str
    bytes_per_element: float
    source: str


KV_DTYPES: Mapping[str, KvDtype] = {
    k.key: k
    for k in (
        KvDtype("fp16", "FP16", 2.0, "§3.6: vLLM auto / llama.cpp f16 default"),
        KvDtype("bf16", "BF16", 2.0, "§3.6"),
        KvDtype("fp32", "FP32", 4.0, "§3.6: llama.cpp f32"),
        KvDtype("fp8", "FP8", 1.0, "§3.6: vLLM fp8 / fp8_e4m3 / fp8_e5m2, per-tensor scales"),
        KvDtype("q8_0", "q8_0", 34 / 32, "§3.6: llama.cpp q8_0 block, 34 B per 32 values"),
        KvDtype("q4_0", "q4_0", 18 / 32, "§3.6: llama.cpp q4_0 block, 18 B per 32 values"),
    )
}
KV_DTYPE_ALIASES: Mapping[str, str] = {"f16": "fp16", "auto": "fp16", "f32": "fp32", "fp8_e4m3": "fp8"}


@dataclass(frozen=True, slots=True)
class EngineProfile:
    key: str
    name: str
    platforms: tuple[str, ...]  # "nvidia", "amd", "apple", "cpu"
    formats: frozenset[str]  # precision families it loads
    kv_dtypes: frozenset[str]
    block_tokens: int  # KV paging granularity per sequence, tokens
    pads_total_context: bool  # llama.cpp: n_ctx = context × parallel, padded to 256 per sequence
    mla_cache: str  # "latent" | "latent_plus_value" (llama.cpp before V-less caches) | "decompressed" (HF)
    swa_rule: str  # "vllm" | "llama.cpp" | "window" | "full"
    conv_state_bytes: float  # linear-attention conv state, bytes per element
    ssm_state_bytes: float  # linear-attention recurrent state, bytes per element
    overhead_rule: str  # "vllm" | "sglang" | "reference" | "llama.cpp" | "ollama" | "mlx"
    input_embedding_on_host: bool  # llama.cpp keeps token_embd in CPU memory
    reserves: str  # how it claims memory, in one sentence
    sources: tuple[str, ...]
    overhead_estimated: bool = False


_FLOAT_FORMATS = frozenset({"float", "generic", "fp8"})
_GPU_QUANT = frozenset({"awq", "gptq", "w8a8", "bnb", "mxfp4"})
# NVFP4 checkpoints: vLLM and SGLang run them with FP4 kernels on Blackwell and as weight-only FP4 through Marlin on
# NVIDIA GPUs from Turing (SM75) on (vllm-project/vllm#18000 and #17687, 2025-05; sgl-project/sglang#19652 "NVFP4
# Marlin fallback for non-Blackwell GPUs (SM75+)"); TensorRT-LLM loads ModelOpt's NVFP4 export (docs/methodology.md
# §2.11). llama.cpp, Ollama and mlx-lm: no NVFP4 loader on record.
_NVFP4 = frozenset({"nvfp4"})

ENGINES: Mapping[str, EngineProfile] = {
    e.key: e
    for e in (
        EngineProfile(
            key="vllm",
            name="vLLM",
            platforms=("nvidia", "amd"),
            formats=_FLOAT_FORMATS | _GPU_QUANT | _NVFP4 | {"gguf"},
            kv_dtypes=frozenset({"fp16", "bf16", "fp8"}),
            block_tokens=16,
            pads_total_context=False,
            mla_cache="latent",
            swa_rule="vllm",
            conv_state_bytes=2.0,
            ssm_state_bytes=4.0,
            overhead_rule="vllm",
            input_embedding_on_host=False,
            reserves="claims gpu_memory_utilization (0.9–0.92) of each GPU up front and fills what "
            "weights and profiled activations leave with KV-cache blocks",
            sources=("§3.1", "§3.2", "§3.4", "§3.5", "§3.7", "§4.1", "seed 000"),
        ),
        EngineProfile(
            key="sglang",
            name="SGLang",
            platforms=("nvidia", "amd"),
            formats=_FLOAT_FORMATS | _GPU_QUANT | _NVFP4,
            kv_dtypes=frozenset({"fp16", "bf16", "fp8"}),
            block_tokens=1,
            pads_total_context=False,
            mla_cache="latent",
            swa_rule="window",
            conv_state_bytes=2.0,
            ssm_state_bytes=4.0,
            overhead_rule="sglang",
            input_embedding_on_host=False,
            reserves="mem_fraction_static of the GPU holds weights and the KV pool; the reserved rest holds "
            "activations and CUDA graphs",
            sources=("§3.2", "§3.4", "§3.7", "§4.2"),
        ),
        EngineProfile(
            key="tensorrt-llm",
            name="TensorRT-LLM",
            platforms=("nvidia",),
            formats=_FLOAT_FORMATS | _NVFP4 | {"awq", "gptq", "mxfp4"},
            kv_dtypes=frozenset({"fp16", "bf16", "fp8"}),
            block_tokens=32,
            pads_total_context=False,
            mla_cache="latent",
            swa_rule="window",
            conv_state_bytes=2.0,
            ssm_state_bytes=4.0,
            overhead_rule="reference",
            input_embedding_on_host=False,
            reserves="gives free_gpu_memory_fraction 0.9 of the memory left after loading the engine to the "
            "KV cache; activation buffers are fixed at build time from the maximum shapes",
            sources=("§3.7", "§4.6"),
            overhead_estimated=True,
        ),
        EngineProfile(
            key="llama.cpp",
            name="llama.cpp",
            platforms=("nvidia", "amd", "apple", "cpu"),
            # MXFP4 is a ggml type since "llama : add gpt-oss" (ggml-org/llama.cpp#15091, 2025-08-05; CUDA, Vulkan,
            # Metal, CPU): gpt-oss's GGUF keeps its experts in it
            formats=frozenset({"gguf", "float", "generic", "mxfp4"}),
            kv_dtypes=frozenset({"fp16", "bf16", "fp32", "q8_0", "q4_0"}),
            block_tokens=256,
            pads_total_context=True,
            # MLA layers keep only K (latent + rope) since "kv-cache : support V-less cache" (§3.9)
            mla_cache="latent",
            swa_rule="llama.cpp",
            conv_state_bytes=4.0,
            ssm_state_bytes=4.0,
            overhead_rule="llama.cpp",
            input_embedding_on_host=True,
            reserves="allocates exactly the model, KV and compute buffers it needs; auto-fit keeps 1 GiB per "
            "device free",
            sources=("§2.10", "§3.1", "§3.2", "§3.9", "§3.4", "§3.5", "§3.7", "§4.3"),
            overhead_estimated=True,
        ),
        EngineProfile(
            key="ollama",
            name="Ollama",
            platforms=("nvidia", "amd", "apple", "cpu"),
            formats=frozenset({"gguf", "float", "generic", "mxfp4"}),  # llama.cpp inside (its MXFP4 type)
            kv_dtypes=frozenset({"fp16", "q8_0", "q4_0"}),
            block_tokens=256,
            pads_total_context=True,
            # Ollama builds llama.cpp b10488 (LLAMA_CPP_VERSION, 2026-08), after the V-less cache (§3.9)
            mla_cache="latent",
            swa_rule="llama.cpp",
            conv_state_bytes=4.0,
            ssm_state_bytes=4.0,
            overhead_rule="ollama",
            input_embedding_on_host=True,
            reserves="runs llama.cpp with context × OLLAMA_NUM_PARALLEL cells and its own graph-size estimate",
            sources=("§3.9", "§3.6", "§3.7", "§4.3", "§4.4"),
            overhead_estimated=True,
        ),
        EngineProfile(
            key="mlx",
            name="MLX (mlx-lm)",
            platforms=("apple",),
            formats=frozenset({"mlx", "float", "generic", "mxfp4"}),
            kv_dtypes=frozenset({"fp16", "bf16", "q8_0", "q4_0"}),
            block_tokens=256,
            pads_total_context=False,
            mla_cache="latent",
            swa_rule="window",
            conv_state_bytes=2.0,
            ssm_state_bytes=4.0,
            overhead_rule="mlx",
            input_embedding_on_host=False,
            reserves="allocates on demand inside macOS's GPU working-set limit (iogpu.wired_limit_mb); "
            "prompts run in chunks of 2048 tokens",
            sources=("§3.4", "§3.6", "§3.7", "§4.5"),
            overhead_estimated=True,
        ),
        EngineProfile(
            key="transformers",
            name="HF Transformers",
            platforms=("nvidia", "amd", "apple", "cpu"),
            formats=_FLOAT_FORMATS | _GPU_QUANT,
            kv_dtypes=frozenset({"fp16", "bf16", "fp32"}),
            block_tokens=1,
            pads_total_context=False,
            mla_cache="decompressed",
            swa_rule="window",
            conv_state_bytes=2.0,
            ssm_state_bytes=4.0,
            overhead_rule="reference",
            input_embedding_on_host=False,
            reserves="allocates as it goes (PyTorch caching allocator); the dynamic cache grows per token",
            sources=("§3.2", "§3.4"),
            overhead_estimated=True,
        ),
    )
}
ENGINE_ALIASES: Mapping[str, str] = {
    "trt-llm": "tensorrt-llm",
    "tensorrt_llm": "tensorrt-llm",
    "trtllm": "tensorrt-llm",
    "llamacpp": "llama.cpp",
    "llama-cpp": "llama.cpp",
    "mlx-lm": "mlx",
    "hf": "transformers",
    "hf-transformers": "transformers",
}


def get_engine(name: str) -> EngineProfile | None:
    key = name.strip().lower()
    return ENGINES.get(ENGINE_ALIASES.get(key, key))


def get_kv_dtype(name: str) -> KvDtype | None:
    key = name.strip().lower()
    return KV_DTYPES.get(KV_DTYPE_ALIASES.get(key, key))
