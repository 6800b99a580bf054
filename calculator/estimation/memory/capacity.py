"""Engine capacity: the KV-cache size in tokens and the maximum concurrency an engine reports at start-up.

vLLM prints "GPU KV cache size: N tokens" and "Maximum concurrency for L tokens per request: X"; SGLang sizes
``max_total_num_tokens``. Both come from the engine's own accounting of one GPU (docs/methodology.md §4.1, §4.2,
§4.8): the memory it may use, minus the weights that GPU holds, the profiling run's activation peak and non-torch
memory, divided into KV pages of one GPU's share of every layer.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from models_catalog.architecture import AttentionKind, LayerGroup, ModelSpec

from ..engines.profiles import ENGINES, EngineProfile, KvDtype, get_engine, get_kv_dtype
from ..engines.releases import (
    CUDA_CONTEXT_BYTES,
    CUDAGRAPH_ESTIMATE_BYTES,
    sglang_mem_fraction,
    sglang_release,
    spec_moe_workspace_bytes,
    vllm_activation_peak,
    vllm_batch_defaults,
    vllm_release,
)
from ..workload import GIB, MIB, Workload
from .encoder_profile import vllm_encoder_profile, with_encoder_profile
from .estimate import estimate
from .kv import (
    VLLM_MAX_NUM_BATCHED_TOKENS,
    dsa_indexer_bytes,
    dsa_latent_bytes,
    vllm_hybrid_pages,
    with_draft_layers,
)

VLLM_BLOCK_TOKENS = 16  # CacheConfig default block size (§3.7)
# vLLM forces 64-token blocks for sparse-attention (DSA) models: vllm 0.11.0–0.19.1 vllm/platforms/cuda.py
# `check_and_update_config` ("Forcing kv cache block size to 64 for FlashMLASparse backend"); 0.34.0
# vllm/v1/attention/backends/mla/flashmla_sparse.py and mla/indexer.py kernel block sizes 64 (§3.10)
VLLM_DSA_BLOCK_TOKENS = 64
# memory outside PyTorch's allocator SGLang does not count in its pool: vLLM's measured figures before 0.18 (§4.1)
SGLANG_NON_TORCH_ONE_GPU = round(0.13 * GIB)
SGLANG_NON_TORCH_PARALLEL = round(0.55 * GIB)


@dataclass(frozen=True, slots=True)
class EngineSettings:
    """The start-up flags that size the KV cache. ``None`` takes the engine's default."""

    engine: str = "vllm"
    tensor_parallel: int = 1
    gpu_memory_utilization: float | None = None  # vLLM; SGLang's mem_fraction_static
    max_model_len: int = 8192
    max_num_seqs: int | None = None
    max_num_batched_tokens: int | None = None
    precision: str = "fp16"
    kv_dtype: str = "fp16"
    weights_file_bytes: int | None = None  # a real build's weight files, all GPUs together
    release: str = ""  # the engine's release or line: vLLM "0.19.1", SGLang "0.4.10"; empty: the current one (§4.12)
    gpu_name: str = ""  # the GPU's name as CUDA reports it: A100s take vLLM's small batch defaults
    enforce_eager: bool = False  # no CUDA graphs, so no CUDA-graph estimate
    mtp_draft: bool = False  # the model's MTP layers run as the draft: their weights and KV beside the target's


@dataclass(frozen=True, slots=True)
class EngineCapacity:
    """What the engine reports at start-up, and the per-GPU accounting behind it (bytes are per GPU)."""

    engine: str
    kv_cache_tokens: int  # vLLM "GPU KV cache size"; SGLang max_total_num_tokens
    max_concurrency: float  # requests of max_model_len tokens the cache holds at once
    fits: bool  # one request of max_model_len fits (the engine refuses to start otherwise)
    gpu_total_bytes: int
    usable_bytes: int  # total × gpu_memory_utilization / mem_fraction_static
    weights_bytes: int
    activation_bytes: int  # profiling run's peak (vLLM) or SGLang's reserved memory
    non_torch_bytes: int
    kv_cache_bytes: int  # memory left for the KV cache
    block_tokens: int
    num_blocks: int
    page_bytes_per_token: float  # one GPU's share of every layer, per token
    release: str = ""  # the vLLM release line the figures are for ("vLLM 0.34")
    cudagraph_bytes: int = 0  # the CUDA-graph estimate subtracted before sizing (vLLM 0.20 and later)
    max_num_batched_tokens: int = 0
    max_num_seqs: int = 0


_DEFAULT_SETTINGS = EngineSettings()


def engine_capacity(
    spec: ModelSpec, gpu_total_bytes: int, settings: EngineSettings = _DEFAULT_SETTINGS
) -> EngineCapacity:
    """KV-cache tokens and maximum concurrency ``settings.engine`` reports on GPUs of ``gpu_total_bytes`` (the
    total the runtime reports, ``GpuSpec.capacity_bytes``)."""
    engine = get_engine(settings.engine) or ENGINES["vllm"]
    kv_dtype = get_kv_dtype(settings.kv_dtype) or get_kv_dtype("fp16")
    assert kv_dtype is not None
    tp = max(1, settings.tensor_parallel)
    weights = _weights_per_gpu(spec, engine, settings, tp)
    if engine.key == "sglang":
        return _sglang(spec, engine, kv_dtype, gpu_total_bytes, settings, tp, weights)
    return _vllm(spec, engine, kv_dtype, gpu_total_bytes, settings, tp, weights)


def kv_tokens_from_memory(
    spec: ModelSpec, kv_cache_bytes: int, settings: EngineSettings = _DEFAULT_SETTINGS
) -> tuple[int, float]:
    """(KV-cache tokens, maximum concurrency) for the memory an engine reports as available for the KV cache on
    one GPU ("Available KV cache memory"), by its page and block rounding alone (§4.8)."""
    engine = get_engine(settings.engine) or ENGINES["vllm"]
    kv_dtype = get_kv_dtype(settings.kv_dtype) or get_kv_dtype("fp16")
    assert kv_dtype is not None
    tp = max(1, settings.tensor_parallel)
    if engine.key == "sglang":
        per_token = _token_bytes_per_gpu(_layer_groups(spec, settings), kv_dtype, tp, engine.key)
        tokens = int(kv_cache_bytes // per_token) if per_token else 0
        return tokens, tokens / max(1, settings.max_model_len)
    _, tokens, concurrency, _, _ = _vllm_blocks(spec, engine, kv_dtype, kv_cache_bytes, settings, tp)
    return tokens, concurrency


def _weights_per_gpu(spec: ModelSpec, engine: EngineProfile, settings: EngineSettings, tp: int) -> int:
    """Weights one GPU holds: linear layers, experts and the vocabulary split over the TP ranks (§4.1
    Parallelism); norms and routers, replicated, are too small to count. MTP layers are not loaded (§1.1)."""
    workload = Workload(
        precision=settings.precision,
        engine=engine.key,
        kv_dtype=settings.kv_dtype,
        context=1,
        load_mtp_layers=False,
        weights_file_bytes=settings.weights_file_bytes,
        tensor_parallel=tp,  # vLLM's MXFP4 layout pads each rank's expert width
        engine_release=settings.release if engine.key == "vllm" else "",
        mtp_draft=settings.mtp_draft,
    )
    found = estimate(spec, workload)
    return -(-(found.weights_bytes + found.bytes_of("draft_weights")) // tp)


def _layer_groups(spec: ModelSpec, settings: EngineSettings) -> tuple[LayerGroup, ...]:
    """The layers that cache: the model's, and its MTP draft's where it runs as one (memory/kv.py)."""
    return with_draft_layers(spec.layer_groups, spec.mtp_layers) if settings.mtp_draft else spec.layer_groups


def _token_bytes_per_gpu(groups: tuple[LayerGroup, ...], kv_dtype: KvDtype, tp: int, engine_key: str) -> float:
    """One GPU's KV bytes per token over all attention layers: KV heads split (replicated beyond their count),
    the MLA latent whole on every GPU (§3.1, §3.2); a sparse-attention layer's latent in the engine's layout and its
    indexer key, both whole on every GPU (§3.3: SGLang's cell size counts both, sglang 0.5.23
    python/sglang/srt/model_executor/pool_configurator.py `_compute_cell_size`)."""
    b = kv_dtype.bytes_per_element
    total = 0.0
    for group in groups:
        if group.kind is AttentionKind.MLA and group.indexer_dim:
            total += group.count * (dsa_latent_bytes(engine_key, group, kv_dtype) + dsa_indexer_bytes(group))
        elif group.kind is AttentionKind.MLA:
            total += group.count * (group.latent_dim + group.rope_dim) * b
        elif group.kind is AttentionKind.FULL or group.kind is AttentionKind.SLIDING:
            total += group.count * max(1, group.kv_heads // tp) * (group.key_dim + group.value_dim) * b
    return total


def _vllm(
    spec: ModelSpec,
    engine: EngineProfile,
    kv_dtype: KvDtype,
    gpu_total: int,
    settings: EngineSettings,
    tp: int,
    weights: int,
) -> EngineCapacity:
    release = vllm_release(settings.release)
    utilization = settings.gpu_memory_utilization or release.utilization
    usable = int(gpu_total * utilization)
    default_batched, default_seqs = vllm_batch_defaults(release, gpu_total, settings.gpu_name)
    batched = settings.max_num_batched_tokens or default_batched
    seqs = min(settings.max_num_seqs or default_seqs, batched)
    text_peak = vllm_activation_peak(
        release, spec.hidden_size, spec.intermediate_size, spec.vocab_size, batched, seqs, tp
    ) + spec_moe_workspace_bytes(release, spec, batched, tp)
    # a vision-language model's encoder profile (§4.13), sized for the max_model_len the engine starts with
    encoder = vllm_encoder_profile(spec, release, settings.max_model_len, batched, tp)
    activation = with_encoder_profile(text_peak, encoder)
    non_torch = release.non_torch_one_gpu if tp == 1 else release.non_torch_parallel
    if release.counts_cuda_context:  # 0.8: the absolute peak, the CUDA context with it
        non_torch += CUDA_CONTEXT_BYTES
    cudagraph = CUDAGRAPH_ESTIMATE_BYTES if release.subtracts_cudagraph_estimate and not settings.enforce_eager else 0
    available = max(0, usable - weights - activation - non_torch - cudagraph)
    sized = replace(settings, max_num_batched_tokens=batched)
    blocks, tokens, concurrency, block, per_token = _vllm_blocks(spec, engine, kv_dtype, available, sized, tp)
    return EngineCapacity(
        engine=engine.key,
        kv_cache_tokens=tokens,
        max_concurrency=concurrency,
        fits=concurrency >= 1,
        gpu_total_bytes=gpu_total,
        usable_bytes=usable,
        weights_bytes=weights,
        activation_bytes=activation,
        non_torch_bytes=non_torch,
        kv_cache_bytes=available,
        block_tokens=block,
        num_blocks=blocks,
        page_bytes_per_token=per_token,
        release=release.label,
        cudagraph_bytes=cudagraph,
        max_num_batched_tokens=batched,
        max_num_seqs=seqs,
    )


def _vllm_blocks(
    spec: ModelSpec,
    engine: EngineProfile,
    kv_dtype: KvDtype,
    available: int,
    settings: EngineSettings,
    tp: int,
) -> tuple[int, int, float, int, float]:
    """(blocks, reported tokens, maximum concurrency, block tokens, bytes per token) by vLLM's KV-cache
    configuration (§4.8: vllm/v1/core/kv_cache_utils.py): layers of one attention type form groups of equal size;
    each block holds one page of every layer of a group, so blocks = available // (page × layers per group);
    concurrency = blocks ÷ the blocks one request of max_model_len needs in all groups together; the reported size
    is concurrency × max_model_len from 0.21, blocks // groups × block tokens before (§3.10)."""
    release = vllm_release(settings.release)
    groups = _layer_groups(spec, settings)
    hybrid = vllm_hybrid_pages(groups, engine, kv_dtype, tp, release.mla_hybrid_block_alignment)
    block = _vllm_block_tokens(groups, hybrid.attention_block_tokens if hybrid else 0)
    max_len = max(1, settings.max_model_len)
    kinds = _vllm_layer_kinds(groups, engine, kv_dtype, settings, tp, block)
    if not kinds:
        return 0, 0, 0.0, block, 0.0
    per_token = sum(count * token_bytes for count, token_bytes, _ in kinds)
    if len(kinds) == 1:
        # one attention type: every layer shares a block table (uniform page size, or one type of different sizes)
        page_all = block * per_token
        blocks = int(available // page_all) if page_all else 0
        per_request = kinds[0][2]
        group_count = 1
    else:
        # several types: groups of the smallest type's layer count (vLLM splits larger types into such groups)
        group_size = min(count for count, _, _ in kinds)
        page = block * max(token_bytes for _, token_bytes, _ in kinds)
        group_count = sum(-(-count // group_size) for count, _, _ in kinds)
        blocks = int(available // (page * group_size)) if page else 0
        per_request = sum(-(-count // group_size) * needed for count, _, needed in kinds)
    concurrency = blocks / max(1, per_request)
    tokens = int(concurrency * max_len) if release.tokens_from_concurrency else blocks // group_count * block
    return blocks, tokens, concurrency, block, per_token


def _vllm_block_tokens(groups: tuple[LayerGroup, ...], hybrid_block: int) -> int:
    """The attention block vLLM runs: a hybrid model's enlarged block (§3.9), 64 for a sparse-attention model
    (§3.10), else the 16-token default (§3.7)."""
    if hybrid_block:
        return hybrid_block
    if any(g.kind is AttentionKind.MLA and g.indexer_dim and g.count for g in groups):
        return VLLM_DSA_BLOCK_TOKENS
    return VLLM_BLOCK_TOKENS


def _vllm_layer_kinds(
    groups: tuple[LayerGroup, ...],
    engine: EngineProfile,
    kv_dtype: KvDtype,
    settings: EngineSettings,
    tp: int,
    block: int,
) -> list[tuple[int, float, int]]:
    """(layers, bytes per token per layer, blocks one request needs) per KV-cache spec. Layers of one attention type
    and window share a spec; a sliding-window spec differs from a full one even when a request needs as many blocks in
    both (gemma-3-27b at 8K: 52 sliding layers in six groups of 10 beside one full group). A sparse-attention layer's
    latent and its indexer key are specs of one type and block size, so vLLM keeps them in one group (§3.10:
    ``UniformTypeKVCacheSpecs``). Lines without the hybrid KV cache manager treat sliding layers as full ones."""
    release = vllm_release(settings.release)
    hybrid = vllm_hybrid_pages(groups, engine, kv_dtype, tp, release.mla_hybrid_block_alignment)
    max_len = max(1, settings.max_model_len)
    batched = settings.max_num_batched_tokens or VLLM_MAX_NUM_BATCHED_TOKENS
    by_spec: dict[tuple[object, ...], tuple[int, float, int]] = {}
    full_blocks = -(-max_len // block)
    for group in groups:
        if not group.count:
            continue
        if group.kind is AttentionKind.LINEAR:
            if hybrid:
                _add_layers(by_spec, ("linear",), group.count, hybrid.state_page_bytes / block, 1)
            continue
        token_bytes = _token_bytes_per_gpu((replace(group, count=1),), kv_dtype, tp, engine.key)
        sliding = group.kind is AttentionKind.SLIDING and bool(group.window) and release.hybrid_kv_manager
        needed = full_blocks
        if sliding and group.window:
            needed = min(full_blocks, -(-min(group.window - 1 + batched, max_len) // block) + 1)
        kind = group.kind if sliding or group.kind is not AttentionKind.SLIDING else AttentionKind.FULL
        key: tuple[object, ...] = (kind, group.window if sliding else 0, round(token_bytes))
        if not release.hybrid_kv_manager:
            key = ("attention",)  # 0.7–0.8: one full-attention group of every layer
        _add_layers(by_spec, key, group.count, token_bytes, needed)
    return list(by_spec.values())


def _add_layers(
    by_spec: dict[tuple[object, ...], tuple[int, float, int]],
    key: tuple[object, ...],
    count: int,
    token_bytes: float,
    needed: int,
) -> None:
    layers = by_spec.get(key, (0, token_bytes, needed))[0]
    by_spec[key] = (layers + count, token_bytes, needed)


def _sglang(
    spec: ModelSpec,
    engine: EngineProfile,
    kv_dtype: KvDtype,
    gpu_total: int,
    settings: EngineSettings,
    tp: int,
    weights: int,
) -> EngineCapacity:
    """SGLang (§4.2): rest = free after weights − total × (1 − mem_fraction_static); tokens = rest // cell_size."""
    release = sglang_release(settings.release)
    fraction = settings.gpu_memory_utilization or sglang_mem_fraction(release, gpu_total / MIB, tp)
    usable = int(gpu_total * fraction)
    non_torch = SGLANG_NON_TORCH_ONE_GPU if tp == 1 else SGLANG_NON_TORCH_PARALLEL
    available = max(0, usable - weights - non_torch)
    per_token = _token_bytes_per_gpu(_layer_groups(spec, settings), kv_dtype, tp, engine.key)
    tokens = int(available // per_token) if per_token else 0
    max_len = max(1, settings.max_model_len)
    return EngineCapacity(
        engine=engine.key,
        kv_cache_tokens=tokens,
        max_concurrency=tokens / max_len,
        fits=tokens >= max_len,
        gpu_total_bytes=gpu_total,
        usable_bytes=usable,
        weights_bytes=weights,
        activation_bytes=gpu_total - usable,
        non_torch_bytes=non_torch,
        kv_cache_bytes=available,
        block_tokens=1,
        num_blocks=tokens,
        page_bytes_per_token=per_token,
        release=release.label,
    )
