"""The sources and the change log of the methodology page, as readers cite them.

Publisher or project, title or file, commit or date, link; what each one backs is a catalog message. The rules
themselves live in calculator/estimation (its SOURCES.md maps each rule to these sources).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _


@dataclass(frozen=True, slots=True)
class Source:
    key: str  # the anchor on the page: #source-<key>
    publisher: str | Promise
    title: str | Promise
    version: str | Promise  # the date of the source as read (its commit is in the link), or the date of the page
    url: str
    backs: Promise


GH = "https://github.com"

SOURCES: tuple[Source, ...] = (
    Source(
        "reviewramble",
        "ReviewRamble",
        _("“GLM-5.3-Flash GPU-Anforderungen: VRAM und günstigste GPU” (German model page)"),
        _("prices captured on 2026-11-13"),
        "",
        _(
            "Runtime overhead: weights and KV cache + 10 %, plus 1 GB; generic INT8/INT4: their bits + 5 %; "
            "GPUs filled up to 90 %, at most 8 per node; 730 hours a month; every stored parameter counted."
        ),
    ),
    Source(
        "vllm",
        "vLLM",
        "vllm/v1/kv_cache_interface.py, vllm/config/cache.py, vllm/v1/core/kv_cache_utils.py, "
        "vllm/v1/worker/gpu_worker.py, vllm/v1/worker/gpu_model_runner.py, "
        "vllm/model_executor/models/config.py, vllm/model_executor/layers/quantization/awq.py and gptq.py; "
        "docs/features/quantization/int8 (INT8 W8A8: llm-compressor's scheme, lm_head ignored)",
        _("versions of 2026"),
        f"{GH}/vllm-project/vllm",
        _(
            "KV cache in 16-token blocks, sliding-window and hybrid-model pages, KV heads per GPU, the profiled "
            "activation peak, AWQ and GPTQ layouts."
        ),
    ),
    Source(
        "llm-d",
        "llm-d benchmark",
        "config_explorer/empirical-vllm-memory-results.md",
        _("2025"),
        f"{GH}/llm-d/llm-d-benchmark/blob/25933486/config_explorer/empirical-vllm-memory-results.md",
        _("vLLM start-up logs on an H100: loaded weights, activation peak and KV-cache memory per model."),
    ),
    Source(
        "sglang",
        "SGLang",
        "python/sglang/srt/server_args.py, python/sglang/srt/model_executor/model_runner.py",
        _("versions of 2026"),
        f"{GH}/sgl-project/sglang",
        _("Memory SGLang reserves per GPU size, one-token pages, sliding-window and sparse-attention caches."),
    ),
    Source(
        "tensorrt-llm",
        "NVIDIA",
        _("TensorRT-LLM documentation: KvCacheConfig reference, memory usage, KV cache"),
        "2026",
        "https://nvidia.github.io/TensorRT-LLM/",
        _("KV cache in 32-token blocks, filling 0.9 of the free memory."),
    ),
    Source(
        "ggml",
        "ggml",
        "src/ggml-common.h",
        _("Aug 21, 2026"),
        f"{GH}/ggml-org/ggml/blob/d99724f2/src/ggml-common.h",
        _("The block size of every GGUF quantization type."),
    ),
    Source(
        "llama-cpp",
        "llama.cpp",
        "src/llama-quant.cpp, tools/quantize/quantize.cpp, src/llama-kv-cache.cpp, src/llama-kv-cache-iswa.cpp, "
        "src/llama-context.cpp, src/llama-memory-recurrent.cpp",
        _("May 2026"),
        f"{GH}/ggml-org/llama.cpp/tree/ec98e2002",
        _(
            "Which tensors each GGUF type stores at which precision, context padding to 256 tokens, sliding-window "
            "and recurrent state sizes, the compute buffer."
        ),
    ),
    Source(
        "llama-cpp-19067",
        "llama.cpp",
        _("pull request 19067"),
        "2026-01",
        f"{GH}/ggml-org/llama.cpp/pull/19067",
        _("The MLA cache of DeepSeek-style models keeps no separate V."),
    ),
    Source(
        "ollama",
        "Ollama",
        "fs/ggml/ggml.go (GraphSize, kvCacheBytesPerElement), envconfig/config.go, docs/faq.mdx",
        _("Aug 21, 2026"),
        f"{GH}/ollama/ollama/blob/fb307609/fs/ggml/ggml.go",
        _("Ollama’s compute-graph estimate and bytes per element of quantized KV caches."),
    ),
    Source(
        "mlx",
        "MLX (ml-explore/mlx, ml-explore/mlx-lm)",
        "mlx: python/src/ops.cpp; mlx-lm: mlx_lm/utils.py, mlx_lm/models/cache.py, mlx_lm/generate.py",
        _("Aug 22, 2026"),
        f"{GH}/ml-explore/mlx-lm/blob/d78bf58e/mlx_lm/models/cache.py",
        _("MLX quantization in groups of 64 with a 16-bit scale and bias, KV cache in 256-token steps."),
    ),
    Source(
        "transformers",
        "Hugging Face Transformers",
        "models/deepseek_v3/modeling_deepseek_v3.py, utils/quantization_config.py (BitsAndBytesConfig)",
        _("versions of 2026"),
        f"{GH}/huggingface/transformers",
        _("The full per-head cache of MLA models in Transformers, 4-bit loading defaults."),
    ),
    Source(
        "hub",
        "Hugging Face Hub client",
        "src/huggingface_hub/hf_api.py (get_safetensors_metadata)",
        _("Aug 20, 2026"),
        f"{GH}/huggingface/huggingface_hub/blob/ee0a4510/src/huggingface_hub/hf_api.py",
        _("Parameter counts read from a checkpoint’s safetensors headers."),
    ),
    Source(
        "deepseek-v3",
        "DeepSeek-AI, DeepSeek-V3 repository",
        "README.md, README_WEIGHTS.md",
        "2024-12",
        f"{GH}/deepseek-ai/DeepSeek-V3/blob/main/README_WEIGHTS.md",
        _("FP8 weights with one fp32 scale per 128 × 128 block; the multi-token-prediction layers."),
    ),
    Source(
        "gpt-oss",
        _("OpenAI, gpt-oss model card, as reproduced in NVIDIA’s NeMo and Megatron-Bridge documentation"),
        "gpt-oss-20b and gpt-oss-120b",
        "2025-08",
        "https://openai.com/index/introducing-gpt-oss/",
        _("MXFP4 on the expert weights only, every other tensor in BF16."),
    ),
    Source(
        "bitsandbytes",
        "bitsandbytes",
        "bitsandbytes/functional.py, bitsandbytes/nn/modules.py, bitsandbytes/optim/optimizer.py",
        _("Aug 19, 2026"),
        f"{GH}/bitsandbytes-foundation/bitsandbytes/tree/95f9af30",
        _("NF4 with double quantization; 8-bit optimizer states in blocks of 256."),
    ),
    Source(
        "peft",
        "Hugging Face PEFT",
        "src/peft/tuners/lora/layer.py, src/peft/tuners/lora/config.py, src/peft/utils/other.py",
        _("Aug 21, 2026"),
        f"{GH}/huggingface/peft/tree/5d602fdb",
        _("LoRA rank 8 by default, adapters in fp32, other tensors cast to fp32 for QLoRA."),
    ),
    Source(
        "deepspeed",
        "DeepSpeed",
        "docs/code-docs/source/memory.rst, deepspeed/runtime/zero/",
        _("Aug 22, 2026"),
        f"{GH}/deepspeedai/DeepSpeed/blob/edaa7221/docs/code-docs/source/memory.rst",
        _("What ZeRO stages 1, 2 and 3 split across GPUs."),
    ),
    Source(
        "papers-training",
        "Rajbhandari et al.; Korthikanti et al.; Hu et al.; Dettmers et al.",
        "“ZeRO” (arXiv:1910.02054); “Reducing Activation Recomputation in Large Transformer Models” "
        "(arXiv:2205.05198); “LoRA” (arXiv:2106.09685); “QLoRA” (arXiv:2305.14314); "
        "“8-bit Optimizers via Block-wise Quantization” (arXiv:2110.02861)",
        "2019–2023",
        "https://arxiv.org/abs/2205.05198",
        _("16 bytes per parameter for mixed-precision Adam, activation memory per layer, LoRA and QLoRA."),
    ),
    Source(
        "papers-speed",
        "Kaplan et al.; Chowdhery et al.; DeepSeek-AI; Databricks",
        "“Scaling Laws for Neural Language Models” (arXiv:2001.08361); “PaLM” (arXiv:2204.02311); "
        "“DeepSeek-V2” (arXiv:2405.04434); “LLM Inference Performance Engineering: Best Practices”",
        "2020–2023",
        "https://arxiv.org/abs/2001.08361",
        _(
            "Two FLOPs per parameter and token, model FLOPs and bandwidth utilisation, the latent cache of "
            "multi-head latent attention."
        ),
    ),
    Source(
        "speed-measurements",
        _("llama.cpp pull request 1642; geerlingguy/ai-benchmarks issue 48"),
        _("GEMV bandwidth on an M1 Max; llama-bench on an M1 Ultra"),
        "2023–2025",
        f"{GH}/ggml-org/llama.cpp/pull/1642",
        _("How much of its memory bandwidth a GPU reaches while decoding."),
    ),
    Source(
        "kernel-measurements",
        "NVIDIA aiconfigurator",
        _("Measured kernel latencies per GPU and engine release (Apache-2.0)"),
        "2026-08-21",
        f"{GH}/ai-dynamo/aiconfigurator",
        _(
            "What one step costs where the engine's own kernels were measured: matrix products, the "
            "mixture-of-experts kernel, attention and the all-reduce, per GPU and engine release."
        ),
    ),
    Source(
        "serving-benchmarks",
        _("GPUStack performance lab; SGLang cookbook; vLLM recipes; Lambda vLLM benchmarks"),
        _("Serving benchmarks with throughput, time to first token and time per output token"),
        "2024–2026",
        f"{GH}/gpustack/gpustack/tree/main/docs/performance-lab",
        _(
            "How close the speed model comes under load, by engine, GPU family and kind of model, and the "
            "engine's own costs beside its kernels."
        ),
    ),
    Source(
        "apple",
        _(
            "ggml-org/llama.cpp issues 1870 and 3213 and pull request 2011; ollama/ollama issue 434; h2oai/h2ogpt "
            "issue 1359; exo-explore/exo pull request 1672; AlexsJones/llmfit pull request 754; antirez/ds4 pull "
            "request 893; osaurus-ai/osaurus pull request 1958; sgl-project/sglang pull request 29949; "
            "gpustack/gpustack issue 1375; instructlab/instructlab pull request 308; antirez/ds4 issue 46; "
            "exo-explore/exo configure_mlx.sh; notatestuser/ds4-control Feasibility.swift"
        ),
        _("Measured GPU working-set limits of Apple Silicon Macs, by RAM and macOS version"),
        "2023–2026",
        f"{GH}/antirez/ds4/pull/893",
        _("How much of a Mac’s unified memory the GPU may use by default."),
    ),
)


@dataclass(frozen=True, slots=True)
class Change:
    day: date
    text: Promise


# Method changes readers can see, newest first (from the history of calculator/estimation).
CHANGES: tuple[Change, ...] = (
    Change(
        date(2026, 12, 5),
        _(
            "Speed under load from measured kernels where NVIDIA publishes them (A100 to B300, L40S, RTX PRO 6000 "
            "under vLLM, SGLang and TensorRT-LLM) plus what the engine spends around them, with each engine’s own "
            "scheduler: checked on 1,167 published figures of 348 serving runs, throughput within 30 %: 64 % (vLLM) "
            "and 57 % (SGLang) of the rows (Qwen3-235B on 8 × B200 under SGLang at 100 requests: 2,739 output "
            "tokens/s published, 2,191 estimated). Every row of the planner now says how close that came for its "
            "engine on its GPU family, and what the month costs at either end."
        ),
    ),
    Change(
        date(2026, 12, 4),
        _(
            "One plan per configuration: where no instance is named (the FAQ, the “can it run” and GPU pages) the "
            "split runs on exactly the GPUs the memory needs, as a rented instance of that size runs it (GLM-5.3-Flash "
            "at FP8: 5 × H100 as five pipeline stages everywhere, not “tensor parallel on 8”), and beyond one node on "
            "whole nodes of 8 (DeepSeek-V3 at FP16: 16 × H100 on two nodes, not 10)."
        ),
    ),
    Change(
        date(2026, 12, 4),
        _(
            "Speculative decoding with a model’s own multi-token-prediction layer can be switched on (DeepSeek-V3, "
            "GLM, Qwen3-Next): its layer and cache count, the embedding and head it stores again do not, decoding "
            "speeds up at DeepSeek’s published acceptance (estimated), and the command carries vLLM’s or SGLang’s "
            "flags. Casting a 16-bit release to FP8 as it loads needs the 16-bit weights where the engine loads them "
            "first (SGLang): Llama-3.3-70B at FP8 needs 141 GB to start there, 80 GB under vLLM."
        ),
    ),
    Change(
        date(2026, 12, 4),
        _(
            "Hugging Face Transformers and PEFT runs are sized from what autograd keeps for each layer, the loss’s "
            "three full-precision copies of the logits and AdamW’s first-step temporaries: a 7B full fine-tuning "
            "reads 169 GB (was 161 GB, and ran out of a 140 GB card), Llama-3.1-8B LoRA at the defaults 37 GB (was "
            "42 GB); generate’s prefill counts for a batch of prompts."
        ),
    ),
    Change(
        date(2026, 12, 4),
        _(
            "Active parameters per token are our own count from the model’s config; a model card’s or review "
            "page’s figure is listed beside it among the sources. GLM-5.3-Flash: 16.7 B (a review page gives 25.4 B); "
            "speed, throughput and the planner read ours."
        ),
    ),
    Change(
        date(2026, 12, 4),
        _(
            "The need is what the engine allocates: vLLM’s start-up budget for its release instead of the larger of "
            "it and the reference page’s 10 % + 1 GB, without the multi-token-prediction layers engines skip, and "
            "counted on every GPU of a split. Llama-3.3-70B in BF16 reads 148 GB on 2 × H100 (was 159 GB on 3, run "
            "as 4); GLM-5.3-Flash at FP16 633 GB (was 708 GB). The reference page’s figures are shown beside ours."
        ),
    ),
    Change(
        date(2026, 12, 4),
        _(
            "A GPU an engine has no kernels for is not recommended: DeepSeek-style sparse attention (GLM-5.3-Flash, "
            "DeepSeek-V3.2) starts in vLLM only on Hopper and data-centre Blackwell GPUs, in SGLang also on MI300 "
            "and MI350; an MLX build is not offered on a data-centre GPU, nor an AWQ or FP8 repository on a Mac."
        ),
    ),
    Change(
        date(2026, 12, 3),
        _(
            "On GPU pages and in the “can it run” answers for vLLM and SGLang, 8-bit integer weights are sized as the "
            "INT8 W8A8 checkpoints those engines load (embeddings and output head in 16 bit) instead of 8.4 bits on "
            "every tensor: Llama-3.1-8B’s weights 7.9 → 8.5 GiB, where vLLM logs 8.49 GiB for such a build. W8A8 "
            "builds on the Hub are recognised as such."
        ),
    ),
    Change(
        date(2026, 12, 3),
        _(
            "The planner’s time per output token is now the mean over the steps a replica runs, with and without a "
            "prompt beside the decode tokens, instead of the step at the mean prompt load, which came out up to a "
            "third too fast and let a replica take more requests than a step-by-step simulation sustains. Targets can "
            "now hold at the 95th percentile, and owned servers are priced beside APIs and rented GPUs."
        ),
    ),
    Change(
        date(2026, 12, 2),
        _(
            "Raising a Mac’s GPU memory limit now leaves macOS an eighth of its memory, at least 4 GB and at most "
            "16 GB, as the settings people report and the tools that compute one do (before: at least 8 GB, no upper "
            "end). A 16 GB Mac can now raise its limit to 12 GB; a 512 GB Mac to 496 GB instead of 448 GB."
        ),
    ),
    Change(
        date(2026, 12, 2),
        _(
            "DeepSeek-class models (latent attention with experts) on vLLM and SGLang: where every tensor-parallel GPU "
            "would hold the whole latent cache and overflow, the plan runs data-parallel attention, each GPU caching "
            "only its own requests, as both engines recommend; before, it fell back to fewer GPUs per stage."
        ),
    ),
    Change(
        date(2026, 12, 2),
        _(
            "A Mac’s default GPU share follows its macOS version: two thirds up to 32 GB and three quarters above "
            "up to macOS 15, more on macOS 26 (74 % at 16 GB, 84 % at 128 GB). Before, one curve mixed both."
        ),
    ),
    Change(
        date(2026, 12, 2),
        _(
            "GPUs are counted on the memory their runtime reports (an H100 80GB: 85.0 GB to CUDA, an MI300X: 206.1 GB "
            "to ROCm) under the engine’s own budget, instead of filling the size on the box to 90 %. The reference "
            "page’s 708 GB at FP16 now fits 4 MI300X instead of 5, and the cheapest instance that holds them has 4."
        ),
    ),
    Change(
        date(2026, 12, 1),
        _(
            "A cloud offer is run on exactly the GPUs its price is for: 5 rented GPUs as 5 pipeline stages, not as "
            "tensor parallel over 8. Its tokens/s, the break-even against hosted APIs and the launch command follow "
            "that split."
        ),
    ),
    Change(
        date(2026, 12, 1),
        _(
            "GGUF k-quants of gpt-oss keep the experts in their released MXFP4, as llama-quantize does: a Q4_K_M of "
            "gpt-oss-20b is 11.6 GB, not 15.8 GB. GPU + RAM splits are checked against published llama.cpp logs."
        ),
    ),
    Change(
        date(2026, 12, 1),
        _(
            "A checkpoint that stores its output head although it shares the embedding table (Qwen3-0.6B, for one) is "
            "counted once, as engines load it: Qwen3-0.6B’s weights under vLLM were 25 % too high."
        ),
    ),
    Change(
        date(2026, 11, 30),
        _(
            "Speed from a step-time model per engine: bandwidth and compute limits, fixed costs per layer and per "
            "step, communication between GPUs; shown as a range of ±20 %."
        ),
    ),
    Change(
        date(2026, 11, 30),
        _("Validation matrix published: our formulas against published measurements, each with its source."),
    ),
    Change(
        date(2026, 11, 30),
        _(
            "llama.cpp’s and Ollama’s MLA cache (DeepSeek-style models) now counts no separate V (llama.cpp PR "
            "19067); vLLM pads the linear-attention state of hybrid models to its attention page."
        ),
    ),
    Change(
        date(2026, 11, 30),
        _(
            "On a Mac, the longest context that fits uses the raised GPU memory limit; hybrid and sliding-window "
            "models say which layers keep a KV cache."
        ),
    ),
    Change(
        date(2026, 11, 30),
        _("A quantized build that publishes its files is sized by those files instead of by our formula."),
    ),
    Change(
        date(2026, 11, 30),
        _("Every rule names its primary source: engine source file and commit, paper or documentation page."),
    ),
    Change(
        date(2026, 11, 29),
        _(
            "Tensor-parallel splits, Apple Silicon memory limits, the longest context and the most requests that "
            "fit, speed and cost."
        ),
    ),
    Change(
        date(2026, 11, 29),
        _(
            "First published method: weights per precision and format, KV cache and runtime overhead per engine, "
            "fine-tuning memory, GPUs filled to 90 % with at most 8 per node."
        ),
    ),
)
