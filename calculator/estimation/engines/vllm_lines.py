"""vLLM release lines: the start-up rules that changed between releases, each with its source.

What vLLM subtracts before it sizes the KV cache changed several times (docs/methodology.md §4.12, read in the
released sources; docs/research/vllm-start-up-memory.md holds the walk-through): the sampler's profiled peak,
memory outside PyTorch under tensor parallelism, whether the CUDA-graph estimate is subtracted, the batch
defaults per GPU, and in the 0.8 line the formula itself. A line groups the releases that share every rule; the
current line is the default, the others recompute what an older installation reports.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from models_catalog.architecture import ModelSpec

from ..workload import GIB
from .versions import version_of


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
    # KV-cache rules (docs/methodology.md §3.4, §3.10, §4.8), read in each release's wheel:
    # sliding-window layers keep their own block tables (the hybrid KV cache manager, `disable_hybrid_kv_cache_manager`
    # False from 0.9.2, vllm/config.py); 0.8.5's vllm/v1/core/kv_cache_utils.py `unify_hybrid_kv_cache_specs` turns
    # every sliding layer of a model with full layers into a full-attention layer
    hybrid_kv_manager: bool = True
    # "GPU KV cache size" = int(max_concurrency × max_model_len) (vllm/v1/core/kv_cache_utils.py
    # `get_kv_cache_capacity`, 0.21.0 on); before it num_blocks // groups × the smallest block (0.20.0
    # `_report_kv_cache_config`)
    tokens_from_concurrency: bool = False
    # the block a model mixing MLA with linear-attention layers is aligned to: 16 (0.11.0), 64 (0.12.0–0.25.0:
    # vllm/model_executor/models/config.py and vllm/platforms/interface.py, the sparse/FlashMLA kernel block), 128 from
    # 0.28.0 (vllm/platforms/interface.py: "make the manager block size a multiple of 128")
    mla_hybrid_block_alignment: int = 64


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
    hybrid_kv_manager=False,
    mla_hybrid_block_alignment=16,
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
    hybrid_kv_manager=True,  # 0.9.0 still unified sliding layers into full ones; 0.9.2 and later keep them apart
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
    mla_hybrid_block_alignment=64,
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
    # 0.21.0–0.25.0, five of the line's six releases; 0.20.x still divided the blocks by the groups
    tokens_from_concurrency=True,
)
_V0_34 = replace(
    _V0_20,
    key="0.34",
    label="vLLM 0.34",
    released="2026-11",
    large_gpu_server_tokens=True,
    encoder_pixels_held=False,
    mla_hybrid_block_alignment=128,
    sources=(
        "§4.12",
        "vllm 0.34.0 vllm/utils/mem_utils.py memory_profiling (consumed memory from mem_get_info)",
        "vllm 0.34.0 vllm/engine/arg_utils.py: ≥ 160 GiB tier",
    ),
)
VLLM_RELEASES: Mapping[str, VllmRelease] = {r.key: r for r in (_V0_34, _V0_20, _V0_18, _V0_17, _V0_12, _V0_9, _V0_8)}
CURRENT_VLLM = _V0_34


def _version(release: VllmRelease) -> tuple[int, ...]:
    found = version_of(release.key)
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
    wanted = version_of(key)
    if wanted is None or wanted < (0, 7):
        return CURRENT_VLLM
    best = _V0_8
    for release in sorted(VLLM_RELEASES.values(), key=_version):
        if _version(release) <= wanted:
            best = release
    return best


def is_vllm_release(key: str) -> bool:
    """Whether ``key`` names a V1-engine release (0.7 or later), which a line covers."""
    wanted = version_of(key)
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
