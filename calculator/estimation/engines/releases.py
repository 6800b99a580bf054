"""vLLM release lines: the start-up rules that changed between releases, each with its source.

What vLLM subtracts before it sizes the KV cache changed several times (docs/methodology.md §4.12, read in the
released sources; docs/research/vllm-start-up-memory.md holds the walk-through): the sampler's profiled peak,
memory outside PyTorch under tensor parallelism, whether the CUDA-graph estimate is subtracted, the batch
defaults per GPU, and in the 0.8 line the formula itself. A line groups the releases that share every rule; the
current line is the default, the others recompute what an older installation reports.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Protocol

from models_catalog.architecture import ModelSpec

from ..workload import GIB
from .profiles import EngineProfile


@dataclass(frozen=True, slots=True)
class VllmRelease:
    key: str  # the line's first release, "0.20"
    label: str  # as a reader reads it: "vLLM 0.20–0.25"
    released: str  # first release of the line, YYYY-MM
    # default --gpu-memory-utilization (vllm/config/cache.py): 0.9 until PR #38284 raised it to 0.92 together with
    # the CUDA-graph estimate (0.20)
    utilization: float
    # the profiled sampler's peak in fp32 logits buffers of min(max_num_batched_tokens, max_num_seqs) × vocabulary:
    # PyTorch's sort-based top-k/top-p (≈ 9.7) until the Triton top-k/top-p kernels of 0.17 (≈ 3.8)
    sampler_buffers: float
    non_torch_one_gpu: int  # bytes outside PyTorch's allocator the profile run adds on one GPU
    non_torch_parallel: int  # the same per GPU under tensor parallelism (NCCL, custom all-reduce)
    subtracts_cudagraph_estimate: bool  # VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS defaults to 1
    a100_small_batches: bool  # A100s take the small batch defaults although they have ≥ 70 GiB
    large_gpu_server_tokens: bool  # ≥ 160 GiB GPUs: `vllm serve` batches 16384 tokens, not 8192
    counts_cuda_context: bool  # 0.8: the absolute peak and every byte outside PyTorch (CUDA context included)
    hidden_states_kept: bool  # from 0.11 the dummy forward's hidden states stay alive through the sampler run
    # the fused-MoE kernels' workspaces stay allocated between calls (vllm/v1/worker/workspace.py WorkspaceManager),
    # so they sit under the sampler's peak too: seen in every MoE start-up of the 0.19 logs, absent from 0.11's
    moe_workspace_kept: bool
    # MXFP4 experts on Hopper re-laid for triton_kernels' swizzled layouts, the scales held twice (memory/weights.py
    # vllm_mxfp4_layout_bytes): vllm mxfp4_utils.py `_swizzle_mxfp4` keeps the plain strided layout on torch < 2.8.1,
    # which the wheels of 0.10–0.11.0 pin (2.8.0); from 0.11.1 they bring PyTorch 2.9
    mxfp4_swizzled: bool
    # a Qwen-VL video dummy as large as max_model_len allows (0.11 on; before, built from max_num_batched_tokens:
    # one frame); the same lines count Qwen2.5-VL's fused gate_up (memory/encoder_profile.py)
    video_dummy_full: bool
    encoder_pixels_held: bool  # the dummy pixel tensor lives through the text profile (freed first from 0.34)
    sources: tuple[str, ...]


# Measured on H100 80GB by llm-d (docs/methodology.md §4.1 [S8], §4.12): 0.13 GiB on one GPU and 0.55 GiB per GPU
# at TP2 before 0.18; 0.25 GiB and 2.06–2.13 GiB per GPU at TP2/TP4 on 0.19 (the CUDA-graph estimate, computed
# inside the profiled window from 0.18, adds to it).
_NON_TORCH_BEFORE_0_18 = (round(0.13 * GIB), round(0.55 * GIB))
_NON_TORCH_FROM_0_18 = (round(0.25 * GIB), round(2.1 * GIB))
# the CUDA context and cuBLAS workspaces the 0.8 line counts (the 0.19 log's init snapshot: 0.51 GiB in use)
CUDA_CONTEXT_BYTES = round(0.51 * GIB)
# CUDA-graph memory at the default capture sizes: llm-d's v0.19 H100 sweep measured pools of 0.51–1.85 GiB, mean
# 1.04 GiB, over the models it ran (§4.12); vLLM's own estimate is a two-graph extrapolation of the same order
CUDAGRAPH_ESTIMATE_BYTES = round(1.04 * GIB)

_SOURCE_FILES = "vllm/v1/worker/gpu_worker.py determine_available_memory; vllm/engine/arg_utils.py batch defaults"

# Each line is the one before it with what changed (the oldest first, so a line reads as its differences).
_V0_8 = VllmRelease(
    key="0.8",
    label="vLLM 0.7–0.8",
    released="2025-02",
    utilization=0.9,
    sampler_buffers=9.7,
    non_torch_one_gpu=_NON_TORCH_BEFORE_0_18[0],
    non_torch_parallel=_NON_TORCH_BEFORE_0_18[1],
    subtracts_cudagraph_estimate=False,
    a100_small_batches=False,
    large_gpu_server_tokens=False,
    counts_cuda_context=True,
    hidden_states_kept=False,
    moe_workspace_kept=False,
    mxfp4_swizzled=False,
    video_dummy_full=False,
    encoder_pixels_held=True,
    sources=("§4.12", "vllm 0.8.5 vllm/v1/worker/gpu_worker.py: total × utilization − absolute peak"),
)
# PyTorch's sort path, as a pip installation runs it: the wheels did not bring FlashInfer before 0.12
_V0_9 = replace(
    _V0_8,
    key="0.9",
    label="vLLM 0.9–0.11",
    released="2025-06",
    a100_small_batches=True,
    counts_cuda_context=False,
    sources=("§4.12", "vllm 0.9.2 vllm/utils/__init__.py memory_profiling", "vllm PR #17885: A100 defaults"),
)
_V0_12 = replace(
    _V0_9,
    key="0.12",
    label="vLLM 0.12–0.16",
    released="2025-12",
    hidden_states_kept=True,
    mxfp4_swizzled=True,
    video_dummy_full=True,
    sources=("§4.12", "vllm 0.12.0 FlashInfer sampler opt-in only: PyTorch sort path", _SOURCE_FILES),
)
_V0_17 = replace(
    _V0_12,
    key="0.17",
    label="vLLM 0.17",
    released="2026-02",
    sampler_buffers=3.8,
    sources=("§4.12", "vllm PR #33538: Triton top-k/top-p sampler kernels", _SOURCE_FILES),
)
_V0_18 = replace(
    _V0_17,
    key="0.18",
    label="vLLM 0.18–0.19",
    released="2026-03",
    non_torch_one_gpu=_NON_TORCH_FROM_0_18[0],
    non_torch_parallel=_NON_TORCH_FROM_0_18[1],
    moe_workspace_kept=True,
    sources=("§4.12", "vllm 0.18.0 profile_cudagraph_memory, estimate logged not subtracted", _SOURCE_FILES),
)
_V0_20 = replace(
    _V0_18,
    key="0.20",
    label="vLLM 0.20–0.25",
    released="2026-04",
    utilization=0.92,
    subtracts_cudagraph_estimate=True,
    sources=("§4.12", "vllm 0.20.0 vllm/envs.py VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS = 1", _SOURCE_FILES),
)
_V0_34 = replace(
    _V0_20,
    key="0.34",
    label="vLLM 0.34",
    released="2026-11",
    large_gpu_server_tokens=True,
    encoder_pixels_held=False,
    sources=(
        "§4.12",
        "vllm 0.34.0 vllm/utils/mem_utils.py memory_profiling (consumed memory from mem_get_info)",
        "vllm 0.34.0 vllm/engine/arg_utils.py: ≥ 160 GiB tier",
    ),
)
VLLM_RELEASES: Mapping[str, VllmRelease] = {r.key: r for r in (_V0_34, _V0_20, _V0_18, _V0_17, _V0_12, _V0_9, _V0_8)}
CURRENT_VLLM = _V0_34


def _version_of(key: str, parts: int = 2) -> tuple[int, ...] | None:
    """'v0.19.1' → (0, 19) (or (0, 19, 1) for ``parts`` 3); a suffix such as '.post2' reads as its digits; None
    when the first part is not a number."""
    numbers: list[int] = []
    for part in key.strip().lower().removeprefix("v").split(".")[:parts]:
        digits = "".join(ch for ch in part if ch in "0123456789")
        if not digits:
            return None if not numbers else (*numbers, *[0] * (parts - len(numbers)))
        numbers.append(int(digits))
    return (*numbers, *[0] * (parts - len(numbers)))


def _version(release: VllmRelease) -> tuple[int, ...]:
    found = _version_of(release.key)
    assert found is not None
    return found


def vllm_release(key: str | None) -> VllmRelease:
    """The release line ``key`` names ("0.20", "0.20.1", "v0.19.0" and "0.19" all find theirs; a release newer
    than the current line takes the current line); the current line when ``key`` is empty or not a release."""
    if not key:
        return CURRENT_VLLM
    known = VLLM_RELEASES.get(key)  # a line's own key: what a workload holds, read on every estimate
    if known is not None:
        return known
    wanted = _version_of(key)
    if wanted is None or wanted < (0, 7):
        return CURRENT_VLLM
    best = _V0_8
    for release in sorted(VLLM_RELEASES.values(), key=_version):
        if _version(release) <= wanted:
            best = release
    return best


def is_vllm_release(key: str) -> bool:
    """Whether ``key`` names a V1-engine release (0.7 or later), which a line covers."""
    wanted = _version_of(key)
    return wanted is not None and wanted >= (0, 7)


def vllm_batch_defaults(release: VllmRelease, gpu_total_bytes: int, gpu_name: str = "") -> tuple[int, int]:
    """(max_num_batched_tokens, max_num_seqs) ``vllm serve`` takes when neither is set: 8192 / 1024 on GPUs of
    ≥ 70 GiB (16384 tokens on ≥ 160 GiB from 0.34), 2048 / 256 on smaller ones and, from 0.9, on A100s."""
    name = gpu_name.lower()
    if gpu_total_bytes >= 70 * GIB and not (release.a100_small_batches and "a100" in name):
        tokens = 16384 if release.large_gpu_server_tokens and gpu_total_bytes >= 160 * GIB else 8192
        return tokens, 1024
    return 2048, 256


ACTIVATION_BYTES = 2  # the profile run's activations, in the model's 16-bit dtype


def vllm_activation_peak(
    release: VllmRelease,
    hidden: int,
    intermediate: int,
    vocab: int,
    batched_tokens: int,
    max_num_seqs: int,
    tp: int = 1,
) -> int:
    """The profile run's PyTorch peak increase (§4.12): the larger of the dummy forward over ``batched_tokens``
    tokens and the dummy sampler run over one logits row per dummy request.

    The forward's largest live set is one decoder layer's MLP: its gate-and-up output (2 × intermediate, split
    over the TP ranks), the activation (1 ×) and the output beside the residual stream (3 × hidden). The sampler
    holds ``release.sampler_buffers`` fp32 buffers of min(batched tokens, max_num_seqs) × vocabulary (logits,
    their sort, softmax and cumulative sums; the full vocabulary is gathered on every rank), and from 0.11 the
    forward's hidden states stay alive beside it."""
    per_rank = -(-max(intermediate, hidden) // max(1, tp))
    forward = batched_tokens * (3 * per_rank + 3 * hidden) * ACTIVATION_BYTES
    sampler = release.sampler_buffers * min(batched_tokens, max_num_seqs) * max(0, vocab) * 4
    if release.hidden_states_kept:
        sampler += batched_tokens * hidden * ACTIVATION_BYTES
    return round(max(forward, sampler))


def moe_workspace_bytes(
    release: VllmRelease, hidden: int, expert_width: int, experts_per_token: int, batched_tokens: int, tp: int = 1
) -> int:
    """The fused-MoE workspaces vLLM keeps between calls (lines with ``moe_workspace_kept``): one buffer for the
    gate-and-up output and the down output, tokens × top-k × max(2 × expert width ÷ TP, hidden), and one for the
    activation, tokens × top-k × expert width ÷ TP, 16-bit (vllm fused_moe `workspace_shapes`); 0 for a dense
    model or a line that frees them."""
    if not release.moe_workspace_kept or expert_width <= 0 or experts_per_token <= 0:
        return 0
    width = -(-expert_width // max(1, tp))
    rows = batched_tokens * experts_per_token
    return rows * (max(2 * width, hidden) + width) * ACTIVATION_BYTES


def expert_width(spec: ModelSpec) -> int:
    """One routed expert's intermediate width, from the routed-expert parameters the config gives (gate, up and
    down projections of hidden × width each); 0 for a dense model."""
    layers, experts, hidden = spec.moe_layers, spec.experts_routed, spec.hidden_size
    if not (layers and experts and hidden):
        return 0
    return spec.components.routed_experts // (layers * experts * 3 * hidden)


def spec_moe_workspace_bytes(release: VllmRelease, spec: ModelSpec, batched_tokens: int, tp: int = 1) -> int:
    return moe_workspace_bytes(
        release, spec.hidden_size, expert_width(spec), spec.experts_per_token, batched_tokens, tp
    )


@dataclass(frozen=True, slots=True)
class SglangRelease:
    """An SGLang release line and the rule its `mem_fraction_static` default follows (python/sglang/srt/
    server_args.py of each release, read in the PyPI wheels; docs/methodology.md §4.12)."""

    key: str
    label: str
    rule: str  # "tp_table" | "tp_pp_table" | "reserved_by_size" | "derived"
    sources: tuple[str, ...]


SGLANG_RELEASES: Mapping[str, SglangRelease] = {
    r.key: r
    for r in (
        SglangRelease("0.5.3", "SGLang 0.5.3 and later", "derived", ("server_args.py _handle_gpu_memory_settings",)),
        SglangRelease("0.4.8", "SGLang 0.4.8–0.5.2", "reserved_by_size", ("server_args.py __post_init__, 0.4.8",)),
        SglangRelease("0.4.6", "SGLang 0.4.6–0.4.7", "tp_pp_table", ("server_args.py __post_init__, 0.4.6",)),
        SglangRelease("0.4.0", "SGLang 0.4.0–0.4.5", "tp_table", ("server_args.py __post_init__, 0.4.0",)),
    )
}
CURRENT_SGLANG = SGLANG_RELEASES["0.5.3"]


def sglang_release(key: str | None) -> SglangRelease:
    """The SGLang line that covers release ``key`` ("0.4.10.post2", "v0.5.1"); the current line for an empty,
    unreadable or newer key, and for releases before 0.4."""
    wanted = _version_of(key, 3) if key else None
    if wanted is None or wanted < (0, 4, 0):
        return CURRENT_SGLANG
    for release in sorted(SGLANG_RELEASES.values(), key=lambda r: _version_of(r.key, 3) or (0, 0, 0), reverse=True):
        if (_version_of(release.key, 3) or (0, 0, 0)) <= wanted:
            return release
    return CURRENT_SGLANG


def is_sglang_release(key: str) -> bool:
    """Whether ``key`` reads as an SGLang release from 0.4 on."""
    wanted = _version_of(key, 3)
    return wanted is not None and wanted >= (0, 4, 0)


def _tp_table(parallel: int) -> float:
    if parallel >= 16:
        return 0.79
    if parallel >= 8:
        return 0.81
    if parallel >= 4:
        return 0.85
    if parallel >= 2:
        return 0.87
    return 0.88


def sglang_mem_fraction(release: SglangRelease, gpu_mem_mib: float, tp: int = 1, pp: int = 1) -> float:
    """`--mem-fraction-static`'s default for a GPU of ``gpu_mem_mib`` (as nvidia-smi reports it): the share that
    holds the weights and the KV pool; the rest is left for activations and CUDA graphs."""
    parallel = max(1, tp) * max(1, pp)
    gib = 1024.0
    if release.rule == "tp_table":
        return _tp_table(max(1, tp))
    if release.rule == "tp_pp_table":
        fraction = _tp_table(parallel) if gpu_mem_mib <= 80 * gib else 0.88
        if gpu_mem_mib > 96 * gib:  # "15 GB + additional 3GB for cuda graph"
            fraction = min(fraction + 48 * gib * (1 - fraction) / gpu_mem_mib, (gpu_mem_mib - 18 * gib) / gpu_mem_mib)
        return fraction
    if release.rule == "reserved_by_size":
        if gpu_mem_mib < 35 * gib:
            reserved = (2.8 + parallel / 10) * gib
        elif gpu_mem_mib < 90 * gib:
            reserved = (9.5 + parallel / 2) * gib
        elif gpu_mem_mib < 160 * gib:
            reserved = (12 + parallel / 2) * gib
        else:
            reserved = 32 * gib
        return round((gpu_mem_mib - reserved) / gpu_mem_mib, 3)
    return round((gpu_mem_mib - sglang_reserved_mib(gpu_mem_mib, tp, pp)) / gpu_mem_mib, 3)


def sglang_gpu_defaults(gpu_mem_mib: float, tp: int = 1) -> tuple[int, int]:
    """(chunked_prefill_size, cuda_graph_max_bs) SGLang takes on a GPU of ``gpu_mem_mib`` (0.5.5 on; §4.2)."""
    if gpu_mem_mib < 20 * 1024:
        return 2048, 8
    if gpu_mem_mib < 35 * 1024:
        return 2048, 24 if tp < 4 else 80
    if gpu_mem_mib < 60 * 1024:
        return 4096, 32 if tp < 4 else 160
    if gpu_mem_mib < 160 * 1024:
        return 8192, 256 if tp < 4 else 512
    return 16384, 512


def sglang_reserved_mib(gpu_mem_mib: float, tp: int = 1, pp: int = 1) -> float:
    """The memory SGLang 0.5.3 on leaves outside its static pool: 512 MiB + 1.5 × chunked prefill + 2 × the
    CUDA-graph batch + TP × PP ÷ 8 GiB, at least 10 GiB on GPUs over 60 GiB (§4.2)."""
    chunked, graph_bs = sglang_gpu_defaults(gpu_mem_mib, tp)
    reserved = 512 + 1.5 * max(chunked, 2048) + 2 * graph_bs + max(1, tp) * max(1, pp) / 8 * 1024
    if gpu_mem_mib > 60 * 1024:
        reserved = max(reserved, 10 * 1024)
    return reserved


@dataclass(frozen=True, slots=True)
class LlamaCppRelease:
    """A llama.cpp release line: the builds between two changes of what llama-server allocates or accepts
    (docs/methodology.md §4.12; each change's pull request and merge build in ``sources``). Build numbers count the
    commits on master (release tag ``b<N>``)."""

    key: str  # the line's first build, "b7832"
    label: str  # "llama.cpp b7832 and later"
    first_build: int
    mla_cache: str  # engines/profiles.py EngineProfile.mla_cache: "latent" (K only) | "latent_plus_value"
    swa_rule: str  # memory/kv.py sliding_cells: "llama.cpp" (window + n_ubatch) | "llama.cpp-batch" (window + n_batch)
    fit_margin: bool  # automatic fitting (--fit, on by default) keeps 1 GiB free per device
    flash_attention_valued: bool  # `-fa on|off|auto`; before, `-fa` was a switch
    n_cpu_moe: bool  # `--n-cpu-moe N`; before, the same placement is an `-ot` pattern
    sources: tuple[str, ...]


_LLAMA_B5429 = LlamaCppRelease(
    key="b5429",
    label="llama.cpp b5429–b5553",
    first_build=5429,
    mla_cache="latent_plus_value",
    swa_rule="llama.cpp-batch",
    fit_margin=False,
    flash_attention_valued=False,
    n_cpu_moe=False,
    sources=(
        "ggml-org/llama.cpp#13194 (b5429): sliding-window layers cache window + n_batch cells, --swa-full",
        "ggml-org/llama.cpp#12801 (b5137): MLA caches the latent as K and V",
    ),
)
_LLAMA_B5554 = replace(
    _LLAMA_B5429,
    key="b5554",
    label="llama.cpp b5554–b6324",
    first_build=5554,
    swa_rule="llama.cpp",
    sources=("ggml-org/llama.cpp#13833 (b5554): window + n_ubatch cells", "ggml-org/llama.cpp#15077 (b6089)"),
)
_LLAMA_B6325 = replace(
    _LLAMA_B5554,
    key="b6325",
    label="llama.cpp b6325–b7406",
    first_build=6325,
    flash_attention_valued=True,
    n_cpu_moe=True,
    sources=("ggml-org/llama.cpp#15434 (b6325): -fa on|off|auto, every layer on the GPU by default",),
)
_LLAMA_B7407 = replace(
    _LLAMA_B6325,
    key="b7407",
    label="llama.cpp b7407–b7831",
    first_build=7407,
    fit_margin=True,
    sources=("ggml-org/llama.cpp#16653 (b7407): --fit on by default, 1024 MiB kept free per device",),
)
_LLAMA_B7832 = replace(
    _LLAMA_B7407,
    key="b7832",
    label="llama.cpp b7832 and later",
    first_build=7832,
    mla_cache="latent",
    sources=("ggml-org/llama.cpp#19067 (b7832): V-less cache, MLA layers keep K only",),
)
LLAMA_CPP_RELEASES: Mapping[str, LlamaCppRelease] = {
    r.key: r for r in (_LLAMA_B7832, _LLAMA_B7407, _LLAMA_B6325, _LLAMA_B5554, _LLAMA_B5429)
}
CURRENT_LLAMA_CPP = _LLAMA_B7832


def _build_number(key: str) -> int | None:
    """'b7500', '7500' or 'B7500' → 7500; None for anything else."""
    text = key.strip().lower().removeprefix("b")
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 6 else None


def llama_cpp_release(key: str | None) -> LlamaCppRelease:
    """The line that covers build ``key`` ("b7500", "7500"); the current line for an empty or unreadable key."""
    if not key:
        return CURRENT_LLAMA_CPP
    known = LLAMA_CPP_RELEASES.get(key)
    if known is not None:
        return known
    build = _build_number(key)
    if build is None or build < _LLAMA_B5429.first_build:
        return CURRENT_LLAMA_CPP
    return max((r for r in LLAMA_CPP_RELEASES.values() if r.first_build <= build), key=lambda r: r.first_build)


def is_llama_cpp_release(key: str) -> bool:
    """Whether ``key`` names a build a line covers (b5429 on: llama-server's sliding-window cache)."""
    build = _build_number(key)
    return build is not None and build >= _LLAMA_B5429.first_build


@dataclass(frozen=True, slots=True)
class MlxRelease:
    """An MLX-LM release line (docs/methodology.md §4.12)."""

    key: str  # the line's first release, "0.30.6"
    label: str
    mla_cache: str  # "latent" | "decompressed" (every head's keys and values)
    sources: tuple[str, ...]


_MLX_0_22_2 = MlxRelease(
    key="0.22.2",
    label="MLX-LM 0.22.2–0.30.5",
    mla_cache="decompressed",
    sources=("ml-explore/mlx-lm#40 (0.22.2): prompts run in steps of 2,048 tokens",),
)
_MLX_0_30_6 = replace(
    _MLX_0_22_2,
    key="0.30.6",
    label="MLX-LM 0.30.6 and later",
    mla_cache="latent",
    sources=("ml-explore/mlx-lm#839 (0.30.6): DeepSeek-V3's cache keeps the MLA latent",),
)
MLX_RELEASES: Mapping[str, MlxRelease] = {r.key: r for r in (_MLX_0_30_6, _MLX_0_22_2)}
CURRENT_MLX = _MLX_0_30_6


def mlx_release(key: str | None) -> MlxRelease:
    """The MLX-LM line that covers release ``key`` ("0.28.3"); the current line for an empty, unreadable, newer
    or older key."""
    if not key:
        return CURRENT_MLX
    known = MLX_RELEASES.get(key)
    if known is not None:
        return known
    wanted = _version_of(key, 3)
    if wanted is None or wanted < (0, 22, 2):
        return CURRENT_MLX
    return _MLX_0_30_6 if wanted >= (0, 30, 6) else _MLX_0_22_2


def is_mlx_release(key: str) -> bool:
    """Whether ``key`` reads as an MLX-LM release a line covers (0.22.2 on)."""
    wanted = _version_of(key, 3)
    return wanted is not None and wanted >= (0, 22, 2)


def release_profile(engine: EngineProfile, release: str) -> EngineProfile:
    """``engine``'s profile as release ``release`` of it allocates: llama.cpp's sliding-window and MLA caches and
    its fit margin per line, MLX-LM's MLA cache; vLLM's and SGLang's lines change their start-up budget
    (memory/overhead.py) rather than the profile. The current line's profile is ``engine`` itself."""
    if engine.key == "llama.cpp" and release:
        line = llama_cpp_release(release)
        if line is CURRENT_LLAMA_CPP:
            return engine
        rule = engine.overhead_rule if line.fit_margin else "llama.cpp-no-fit"
        return replace(engine, mla_cache=line.mla_cache, swa_rule=line.swa_rule, overhead_rule=rule)
    if engine.key == "mlx" and release:
        mlx = mlx_release(release)
        return engine if mlx is CURRENT_MLX else replace(engine, mla_cache=mlx.mla_cache)
    return engine


class ReleaseLine(Protocol):
    @property
    def key(self) -> str: ...

    @property
    def label(self) -> str: ...


@dataclass(frozen=True, slots=True)
class EngineLines:
    """How one engine's releases are named and found: whether a name is one a line covers, and that line."""

    engine: str
    current: str  # the current line's key
    covers: Callable[[str], bool]
    find: Callable[[str], ReleaseLine]  # the line that covers a release or line key (the current one otherwise)
    lines: Mapping[str, ReleaseLine]  # every line by key, the current one first

    def line_of(self, key: str) -> str:
        return self.find(key).key

    def label_of(self, key: str) -> str:
        """The line as a reader reads it."""
        return self.find(key).label


ENGINE_RELEASE_LINES: Mapping[str, EngineLines] = {
    lines.engine: lines
    for lines in (
        EngineLines("vllm", CURRENT_VLLM.key, is_vllm_release, vllm_release, VLLM_RELEASES),
        EngineLines("sglang", CURRENT_SGLANG.key, is_sglang_release, sglang_release, SGLANG_RELEASES),
        EngineLines("llama.cpp", CURRENT_LLAMA_CPP.key, is_llama_cpp_release, llama_cpp_release, LLAMA_CPP_RELEASES),
        EngineLines("mlx", CURRENT_MLX.key, is_mlx_release, mlx_release, MLX_RELEASES),
    )
}


def release_label(engine: str, release: str) -> str:
    """The release line a figure is for, as a reader reads it ("vLLM 0.34", "llama.cpp b7832 and later"); "" for an
    engine without lines."""
    lines = ENGINE_RELEASE_LINES.get(engine)
    return lines.label_of(release) if lines else ""
