"""Engine capacity: the KV-cache size in tokens and the maximum concurrency an engine reports at start-up.

vLLM prints "GPU KV cache size: N tokens" and "Maximum concurrency for L tokens per request: X"; SGLang sizes
``max_total_num_tokens``. Both come from the engine's own accounting of one GPU (docs/methodology.md §4.1, §4.2,
§4.8): the memory it may use, minus the weights that GPU holds, the profiling run's activation peak and non-torch
memory, divided into KV pages of one GPU's share of every layer.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from models_catalog.architecture import AttentionKind, LayerGroup, ModelSpec

from .engines import ENGINES, EngineProfile, KvDtype, get_engine, get_kv_dtype
from .kv import VLLM_MAX_NUM_BATCHED_TOKENS, vllm_hybrid_pages
from .memory import estimate
from .overhead import VLLM_NON_TORCH_BYTES, VLLM_SAMPLER_BUFFERS, _sglang_reserved_mib
from .workload import GIB, MIB, Workload

VLLM_BLOCK_TOKENS = 16  # CacheConfig default block size (§3.7)
# `gpu_memory_utilization` default: 0.92 in the current vllm/config/cache.py, 0.9 before (§4.1)
VLLM_DEFAULT_UTILIZATION = 0.92
# non-torch memory measured by llm-d on H100 (§4.1 [S8]): 0.13 GiB on one GPU, 0.55 GiB per GPU at TP2 (NCCL and
# custom all-reduce buffers)
VLLM_NON_TORCH_TP_BYTES = round(0.55 * GIB)
# vLLM's default max_num_seqs for the OpenAI server: 1024 on GPUs of at least 70 GiB, else 256 (§4.1
# get_batch_defaults; A100s take 256 too)
VLLM_LARGE_GPU_BYTES = 70 * GIB


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


def vllm_default_max_num_seqs(gpu_total_bytes: int) -> int:
    return 1024 if gpu_total_bytes >= VLLM_LARGE_GPU_BYTES else 256


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
        per_token = _token_bytes_per_gpu(spec.layer_groups, kv_dtype, tp)
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
    )
    return -(-estimate(spec, workload).weights_bytes // tp)


def _token_bytes_per_gpu(groups: tuple[LayerGroup, ...], kv_dtype: KvDtype, tp: int) -> float:
    """One GPU's KV bytes per token over all attention layers: KV heads split (replicated beyond their count),
    the MLA latent whole on every GPU (§3.1, §3.2)."""
    b = kv_dtype.bytes_per_element
    total = 0.0
    for group in groups:
        if group.kind is AttentionKind.MLA:
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
    utilization = settings.gpu_memory_utilization or VLLM_DEFAULT_UTILIZATION
    usable = int(gpu_total * utilization)
    seqs = settings.max_num_seqs or vllm_default_max_num_seqs(gpu_total)
    batched = settings.max_num_batched_tokens or VLLM_MAX_NUM_BATCHED_TOKENS
    # the profiling run's peak: ≈ 9.7 fp32 logits buffers of min(batched tokens, seqs) × vocabulary (§4.1)
    activation = round(VLLM_SAMPLER_BUFFERS * min(batched, seqs) * max(0, spec.vocab_size) * 4)
    non_torch = VLLM_NON_TORCH_BYTES if tp == 1 else VLLM_NON_TORCH_TP_BYTES
    # CUDA graphs are captured after the KV cache is sized and are not subtracted by default (§4.1 step 5)
    available = max(0, usable - weights - activation - non_torch)
    blocks, tokens, concurrency, block, per_token = _vllm_blocks(spec, engine, kv_dtype, available, settings, tp)
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
    each block holds one page of every layer of a group, so blocks = available // (page × layers per group); the
    reported size is blocks // groups × block tokens; concurrency = blocks ÷ the blocks one request of
    max_model_len needs in all groups together."""
    groups = spec.layer_groups
    hybrid = vllm_hybrid_pages(groups, engine, kv_dtype, tp)
    block = hybrid.attention_block_tokens if hybrid else VLLM_BLOCK_TOKENS
    max_len = max(1, settings.max_model_len)
    batched = settings.max_num_batched_tokens or VLLM_MAX_NUM_BATCHED_TOKENS
    # (layers, bytes per token per layer, blocks one request needs) per attention type
    kinds: list[tuple[int, float, int]] = []
    full_blocks = -(-max_len // block)
    for group in groups:
        if not group.count:
            continue
        if group.kind is AttentionKind.LINEAR:
            if hybrid:
                kinds.append((group.count, hybrid.state_page_bytes / block, 1))
            continue
        token_bytes = _token_bytes_per_gpu((replace(group, count=1),), kv_dtype, tp)
        if group.kind is AttentionKind.MLA and group.indexer_dim:
            token_bytes += group.indexer_dim + -(-group.indexer_dim // 128) * 4
        needed = full_blocks
        if group.kind is AttentionKind.SLIDING and group.window:
            needed = min(full_blocks, -(-min(group.window - 1 + batched, max_len) // block) + 1)
        kinds.append((group.count, token_bytes, needed))
    if not kinds:
        return 0, 0, 0.0, block, 0.0
    per_token = sum(count * token_bytes for count, token_bytes, _ in kinds)
    if len(kinds) == 1 or (len({round(t) for _, t, _ in kinds}) == 1 and len({n for _, _, n in kinds}) == 1):
        # one attention type: every layer shares a block table (uniform page size)
        page_all = block * per_token
        blocks = int(available // page_all) if page_all else 0
        tokens = blocks * block
        return blocks, tokens, tokens / max_len, block, per_token
    # several types: groups of the smallest type's layer count (vLLM splits larger types into such groups)
    group_size = min(count for count, _, _ in kinds)
    page = block * max(token_bytes for _, token_bytes, _ in kinds)
    group_count = sum(-(-count // group_size) for count, _, _ in kinds)
    blocks = int(available // (page * group_size)) if page else 0
    tokens = blocks // group_count * block
    per_request = sum(-(-count // group_size) * needed for count, _, needed in kinds)
    return blocks, tokens, blocks / max(1, per_request), block, per_token


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
    reserved = round(_sglang_reserved_mib(gpu_total / MIB) * MIB)
    fraction = settings.gpu_memory_utilization or round((gpu_total - reserved) / gpu_total, 3)
    usable = int(gpu_total * fraction)
    non_torch = VLLM_NON_TORCH_BYTES if tp == 1 else VLLM_NON_TORCH_TP_BYTES
    available = max(0, usable - weights - non_torch)
    per_token = _token_bytes_per_gpu(spec.layer_groups, kv_dtype, tp)
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
    )
