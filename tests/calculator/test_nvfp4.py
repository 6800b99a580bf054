"""NVFP4 checkpoints (NVIDIA ModelOpt ``quant_algo: "NVFP4"``, llm-compressor ``nvfp4-pack-quantized``) as a precision,
end to end: bits and bytes, the release dtype read from config.json, published builds, the engines that load them,
where the weights come from, the FLOPs the speed model uses and the command line (docs/methodology.md §2.11)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import models_catalog
from calculator.estimation import GIB, PRECISIONS, Workload, estimate, weights_only_bytes
from calculator.estimation.engines.builds import (
    build_precision,
    build_runtimes,
    engine_loads,
    released_precision,
)
from calculator.estimation.engines.sourcing import KnownBuild, Missing, SourceKind, weights_source
from calculator.estimation.facts import spec_facts
from calculator.estimation.speed.work import peak_flops
from calculator.management.options import as_hardware
from models_catalog import hub
from models_catalog.architecture import ModelSpec
from pricing.gpus import gpu_by_slug
from tests.calculator.estimate_cli import MODEL, run
from tests.calculator.estimation_specs import hub_spec, llama_31_8b

HUB = Path(models_catalog.__file__).parent / "data" / "hub"

# What ModelOpt writes into config.json for an NVFP4 export (nvidia/*-FP4 repositories)
MODELOPT_NVFP4 = {
    "quant_method": "modelopt",
    "quant_algo": "NVFP4",
    "group_size": 16,
    "exclude_modules": ["lm_head"],
}
# llm-compressor's NVFP4 scheme (compressed-tensors): FP4 weights and activations in groups of 16
COMPRESSED_NVFP4 = {
    "quant_method": "compressed-tensors",
    "format": "nvfp4-pack-quantized",
    "config_groups": {
        "group_0": {
            "format": "nvfp4-pack-quantized",
            "targets": ["Linear"],
            "weights": {"num_bits": 4, "type": "float", "strategy": "tensor_group", "group_size": 16},
            "input_activations": {"num_bits": 4, "type": "float", "strategy": "tensor_group", "group_size": 16},
        }
    },
    "ignore": ["lm_head"],
}

LLAMA_LINEAR = 32 * (4096 * 4096 + 2 * 1024 * 4096 + 4096 * 4096 + 3 * 14336 * 4096)  # 6,979,321,856
LLAMA_WIDE = 2 * 128256 * 4096 + 32 * 2 * 4096 + 4096  # embedding + head + norms: 1,050,939,392
LLAMA_NVFP4_BYTES = 6_027_747_328


def _llama_config(quantization: dict) -> dict:
    config = json.loads((HUB / MODEL / "config.json").read_text())
    return {**config, "quantization_config": quantization}


def test_nvfp4_is_4_5_bits_on_the_linear_layers_and_16_on_the_rest():
    nvfp4 = PRECISIONS["nvfp4"]
    bits = nvfp4.bits(spec_facts(llama_31_8b()).counts, spec_facts(llama_31_8b()).layer_facts)

    assert (nvfp4.label, nvfp4.family) == ("NVFP4", "nvfp4")
    assert bits.attn_k == bits.ffn_down == bits.other == 4 + 8 / 16
    assert bits.experts == bits.experts_down == 4.5  # routed experts are linear layers too
    assert bits.embedding == bits.lm_head == bits.norms == bits.router == bits.vision == 16


def test_llama_3_1_8b_in_nvfp4_weighs_6_03_gb():
    """Llama-3.1-8B (h 4096, 32 layers, 8 KV heads × 128, MLP 14336, vocab 128256, untied):
    linear weights 32 × (4096·4096 + 2·1024·4096 + 4096·4096 + 3·14336·4096) = 6,979,321,856 at 4.5 bits
    = 3,925,868,544 B; embedding + head 2 × 128256 × 4096 = 1,050,673,152 and norms 32 × 2 × 4096 + 4096 = 266,240,
    together 1,050,939,392 at 2 B = 2,101,878,784 B; in all 6,027,747,328 B = 5.61 GiB."""
    spec = llama_31_8b()

    assert LLAMA_LINEAR + LLAMA_WIDE == spec.params_total == 8_030_261_248
    assert weights_only_bytes(spec, "nvfp4") == LLAMA_NVFP4_BYTES == LLAMA_LINEAR * 9 // 16 + LLAMA_WIDE * 2
    assert round(LLAMA_NVFP4_BYTES / GIB, 2) == 5.61


def test_a_moe_model_in_nvfp4_quantizes_its_experts():
    spec = hub_spec("Qwen/Qwen3-30B-A3B")
    # every linear layer, experts included, at 4.5 bits: just above AWQ's 4.156 and far below FP8
    assert weights_only_bytes(spec, "awq") < weights_only_bytes(spec, "nvfp4") < weights_only_bytes(spec, "fp8") / 1.7


def _without_format_names(quantization: dict) -> dict:
    groups = {name: {k: v for k, v in g.items() if k != "format"} for name, g in quantization["config_groups"].items()}
    return {**{k: v for k, v in quantization.items() if k != "format"}, "config_groups": groups}


@pytest.mark.parametrize("quantization", [MODELOPT_NVFP4, COMPRESSED_NVFP4, _without_format_names(COMPRESSED_NVFP4)])
def test_nvfp4_release_is_read_from_config_json(quantization):
    spec = ModelSpec.from_hf_config(_llama_config(quantization))

    assert spec.native_dtype == "nvfp4"
    assert released_precision(spec.native_dtype) == "nvfp4"


def test_modelopt_fp8_is_not_read_as_nvfp4():
    spec = ModelSpec.from_hf_config(_llama_config({**MODELOPT_NVFP4, "quant_algo": "FP8"}))
    assert spec.native_dtype != "nvfp4"


def _repo(hub_id: str, tags: tuple[str, ...] = (), quantization: dict | None = None) -> hub.HubModelInfo:
    return hub.HubModelInfo(
        hub_id=hub_id,
        sha=None,
        created_at=None,
        last_modified=None,
        gated=None,
        private=False,
        downloads=None,
        likes=None,
        pipeline_tag=None,
        library_name="transformers",
        tags=tags,
        license=None,
        base_models=(),
        safetensors_total=None,
        safetensors_by_dtype=None,
        api_config={"quantization_config": quantization} if quantization else None,
    )


def test_published_nvfp4_builds_are_recognised_by_name_tag_or_config():
    assert _repo("RedHatAI/Llama-3.1-8B-Instruct-NVFP4").quantized_format == "NVFP4"
    assert _repo("someone/Llama-3.1-8B-Instruct-w4a4", tags=("nvfp4",)).quantized_format == "NVFP4"
    assert _repo("nvidia/Llama-3.1-8B-Instruct-FP4", quantization=MODELOPT_NVFP4).quantized_format == "NVFP4"
    assert _repo("someone/Llama-3.1-8B-Instruct-fp4", quantization=COMPRESSED_NVFP4).quantized_format == "NVFP4"
    scheme_only = _without_format_names(COMPRESSED_NVFP4)
    assert _repo("someone/Llama-3.1-8B-Instruct-fp4", quantization=scheme_only).quantized_format == "NVFP4"
    assert (
        _repo("someone/Llama-3.1-8B-Instruct-q", quantization={**MODELOPT_NVFP4, "quant_algo": "FP8"}).quantized_format
        is None
    )


def test_an_nvfp4_build_is_sized_as_nvfp4_and_runs_on_the_gpu_servers():
    assert build_precision("NVFP4", "NVFP4", 4.9) == "nvfp4"
    assert build_runtimes("NVFP4") == ("vLLM", "SGLang", "TensorRT-LLM")


@pytest.mark.parametrize(
    ("engine", "loads"),
    [("vllm", True), ("sglang", True), ("tensorrt-llm", True), ("llama.cpp", False), ("ollama", False), ("mlx", False)],
)
def test_vllm_sglang_and_tensorrt_llm_load_nvfp4_and_llama_cpp_and_mlx_do_not(engine, loads):
    refused = f"does not load {PRECISIONS['nvfp4'].label} weights"
    warnings = estimate(llama_31_8b(), Workload(precision="nvfp4", engine=engine)).warnings

    assert engine_loads(engine, "NVFP4") is loads
    assert any(refused in w for w in warnings) is not loads


def test_vllm_takes_a_published_nvfp4_build_or_the_release_itself():
    build = KnownBuild("NVFP4", "NVFP4", "RedHatAI/Llama-3.1-8B-Instruct-NVFP4", "nvfp4")
    published = weights_source("vllm", MODEL, "fp16", "nvfp4", [build])
    released = weights_source("sglang", "nvidia/Llama-3.1-8B-Instruct-FP4", "nvfp4", "nvfp4")
    none = weights_source("vllm", MODEL, "fp16", "nvfp4")

    assert (published.kind, published.repo) == (SourceKind.PUBLISHED, build.repo_id)
    assert released.kind is SourceKind.RELEASED
    assert (none.kind, none.missing) == (SourceKind.NONE, Missing.NO_BUILD)  # no on-the-fly NVFP4 in vLLM


def test_nvfp4_uses_the_fp4_figure_on_blackwell_and_the_16_bit_figure_elsewhere():
    b200, h100 = gpu_by_slug("b200"), gpu_by_slug("h100-sxm")
    assert b200 is not None and h100 is not None

    assert peak_flops(b200, "nvfp4") == 9000e12  # gpus.json b200 fp4_dense_tflops
    assert peak_flops(b200, "fp8") == 4500e12
    assert peak_flops(h100, "nvfp4") == peak_flops(h100, "fp16") == 989e12  # Marlin: weight-only, 16-bit math
    spark = gpu_by_slug("dgx-spark-gb10")  # a unified-memory machine: the command line's Machine carries the figure
    assert spark is not None and peak_flops(as_hardware(spark), "nvfp4") == 500e12


def test_the_estimate_command_sizes_nvfp4():
    result = run(MODEL, "--precision", "nvfp4")

    assert result["workload"]["precision"] == "nvfp4"
    assert result["weights_bytes"] == LLAMA_NVFP4_BYTES
