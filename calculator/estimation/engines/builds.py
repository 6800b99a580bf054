"""Published builds of a model (a GGUF file, an MLX folder, an AWQ or FP8 repository): which generic precision
sizes what the file does not say (KV cache, overhead), and which runtimes load each format."""

from __future__ import annotations

from ..precision import PRECISIONS, gguf_key

# Which runtimes load a build of each format (docs/methodology.md §2 and §4).
RUNTIMES_BY_FORMAT: dict[str, tuple[str, ...]] = {
    "GGUF": ("llama.cpp", "Ollama", "LM Studio"),
    "MLX": ("MLX (mlx-lm)", "LM Studio on a Mac"),
    "AWQ": ("vLLM", "SGLang", "Transformers"),
    "GPTQ": ("vLLM", "SGLang", "Transformers"),
    "FP8": ("vLLM", "SGLang", "TensorRT-LLM"),
    "NVFP4": ("vLLM", "SGLang", "TensorRT-LLM"),
    "NF4": ("Transformers + bitsandbytes",),
    "EXL2": ("ExLlamaV2", "TabbyAPI"),
    "BF16": ("vLLM", "SGLang", "llama.cpp (after conversion)", "Transformers"),
}

# Which engines we size load a build of each format as published (docs/methodology.md §4.14): llama.cpp and Ollama
# read GGUF files only; MLX-LM reads MLX folders and 16-bit safetensors repositories (mlx_lm converts them as it
# loads); vLLM and SGLang read safetensors checkpoints (16-bit, FP8, AWQ, GPTQ, W8A8, NVFP4) and neither MLX folders
# nor, as sized here, GGUF files. NVFP4: vLLM and SGLang on NVIDIA GPUs from Turing on (FP4 kernels on Blackwell,
# Marlin weight-only elsewhere) and TensorRT-LLM, §2.11. A build no engine of a verdict loads is not offered on that
# hardware.
FORMATS_LOADED: dict[str, frozenset[str]] = {
    "vllm": frozenset({"BF16", "FP8", "AWQ", "GPTQ", "W8A8", "NVFP4"}),
    "sglang": frozenset({"BF16", "FP8", "AWQ", "GPTQ", "W8A8", "NVFP4"}),
    "tensorrt-llm": frozenset({"BF16", "FP8", "AWQ", "GPTQ", "W8A8", "NVFP4"}),
    "transformers": frozenset({"BF16", "FP8", "AWQ", "GPTQ", "W8A8", "NF4"}),
    "llama.cpp": frozenset({"GGUF"}),
    "ollama": frozenset({"GGUF"}),
    "mlx": frozenset({"MLX", "BF16"}),
}


def engine_loads(engine: str, file_format: str) -> bool:
    """Whether ``engine`` loads a build of ``file_format`` as published (an unknown engine: any)."""
    loaded = FORMATS_LOADED.get(engine.lower())
    return loaded is None or file_format.upper() in loaded


_PRECISION_BY_FORMAT = {
    "AWQ": "awq",
    "GPTQ": "gptq",
    "W8A8": "w8a8",
    "FP8": "fp8",
    "NVFP4": "nvfp4",
    "NF4": "nf4",
    "BF16": "fp16",
}


def build_precision(file_format: str, label: str, bits_per_weight: float | None) -> str:
    """The generic precision whose rules size everything but a build's weights: its GGUF file type or MLX bit width
    where we know it, the format's precision, else the nearest width to its bits per weight."""
    if file_format == "GGUF" and gguf_key(label) in PRECISIONS:
        return gguf_key(label)
    if file_format == "MLX" and bits_per_weight and f"mlx-{int(bits_per_weight)}bit" in PRECISIONS:
        return f"mlx-{int(bits_per_weight)}bit"
    if file_format in _PRECISION_BY_FORMAT:
        return _PRECISION_BY_FORMAT[file_format]
    bits = bits_per_weight or 16
    return "fp16" if bits >= 12 else "int8" if bits >= 7 else "int4"


def build_bits(published: float | None, file_size_bytes: int | None, params_total: int) -> float | None:
    """Bits per weight of a build: as published, else as its files say (size × 8 ÷ parameters)."""
    if published is not None:
        return float(published)
    if file_size_bytes and params_total > 0:
        return file_size_bytes * 8 / params_total
    return None


def build_runtimes(file_format: str) -> tuple[str, ...]:
    return RUNTIMES_BY_FORMAT.get(file_format, ())


# The precision a model is assumed to run in unless the reader picks another: the one its own repository ships
# (its native dtype from config.json's quantization_config or torch_dtype, or a reference where the config is
# partial). 16-bit and 32-bit releases run in 16 bits: vLLM's default --dtype "auto" loads an FP32 checkpoint as FP16
# and a BF16 one as BF16 (docs.vllm.ai, engine arguments, --dtype), and the page's "fp16" sizes both 16-bit types.
_RELEASED_PRECISIONS = {
    "fp8": "fp8",
    "mxfp4": "mxfp4",
    "nvfp4": "nvfp4",
    "int8": "int8",
    "int4": "int4",
    "nf4": "nf4",
}


def released_precision(native_dtype: str) -> str:
    """The page precision of a model's released weights: "fp8" for an FP8 repository, "mxfp4" for MXFP4 experts,
    "nvfp4" for an NVFP4 checkpoint, "fp16" for BF16 / FP16 / FP32 (and an unknown dtype)."""
    return _RELEASED_PRECISIONS.get(native_dtype.strip().lower(), "fp16")
