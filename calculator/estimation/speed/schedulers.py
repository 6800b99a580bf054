"""How each engine decides what a step computes (docs/methodology.md §5.6), per release line, and the limits it starts
with. The request-level simulation (speed/batching.py) follows the policy a ``Scheduler`` names:

- "mixed": vLLM's V1 engine (0.8 on; vllm/v1/core/sched/scheduler.py). Every step carries the running requests' decode
  tokens and prompt chunks of arriving requests together, within ``max_num_batched_tokens`` (chunked prefill);
  a request that finds no free KV block preempts the latest admitted, whose tokens are recomputed.
- "prefill_first": vLLM's V0 engine (before 0.8; vllm/core/scheduler.py `_schedule_default`). Waiting prompts run
  whole in steps of their own while they fit the token budget (max(max_model_len, 2048) without chunked prefill,
  vllm/config.py SchedulerConfig) and the free blocks; running requests decode only in steps without a prompt.
- "sglang": SGLang 0.4–0.5 (python/sglang/srt/managers/scheduler.py `get_next_batch_to_run`, schedule_policy.py
  `PrefillAdder`). A prefill batch runs whenever one can be formed, decode otherwise (mixed chunks are off by default,
  `--enable-mixed-chunk`). A waiting request is admitted only while the KV pool, less what the running requests are
  expected still to write (their remaining output × ``new_token_ratio``, at most 4,096 tokens each,
  CLIP_MAX_NEW_TOKENS_ESTIMATION) and less the new requests' whole prompts and outputs, still holds it; its prompt
  is cut into chunks of ``chunked_prefill_size``. The ratio starts at 0.7, falls by (0.7 − 0.7 × 0.14) ÷ 600 with
  every decode step and, when a decode step finds no room and requests are retracted, jumps to what the running
  requests have really written (global_config.py: SGLANG_INIT_NEW_TOKEN_RATIO 0.7,
  SGLANG_MIN_NEW_TOKEN_RATIO_FACTOR 0.14, SGLANG_NEW_TOKEN_RATIO_DECAY_STEPS 600; schedule_batch.py `retract_decode`,
  SGLANG_RETRACT_DECODE_STEPS 20).

Pure Python: the limits come from the engine lines (engines/vllm_lines.py, engines/sglang_lines.py) and the KV cache
the engine sizes at start-up (memory/capacity.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from models_catalog.architecture import ModelSpec

from ..engines.releases import sglang_gpu_defaults, vllm_batch_defaults, vllm_release
from ..engines.versions import version_of
from ..memory.capacity import EngineSettings, engine_capacity
from ..workload import Workload

POLICIES = ("mixed", "prefill_first", "sglang")
DEFAULT_BLOCK_TOKENS = 16  # vLLM's KV-cache block (§3.7); SGLang pages by token

SGLANG_INIT_NEW_TOKEN_RATIO = 0.7
SGLANG_MIN_NEW_TOKEN_RATIO_FACTOR = 0.14
SGLANG_NEW_TOKEN_RATIO_DECAY_STEPS = 600
SGLANG_CLIP_MAX_NEW_TOKENS = 4096
SGLANG_RETRACT_DECODE_STEPS = 20
SGLANG_MAX_PREFILL_TOKENS = 16384  # --max-prefill-tokens default (server_args.py)
# vLLM V0's defaults without chunked prefill: 256 sequences, max(max_model_len, 2048) tokens a step
VLLM_V0_MAX_NUM_SEQS = 256
VLLM_V0_MIN_BATCHED_TOKENS = 2048
VLLM_V1_FIRST = (0, 8)  # VLLM_USE_V1 on by default from 0.8.0 (vLLM blog 2025-01-27, release notes 0.8.0)


@dataclass(frozen=True, slots=True)
class Scheduler:
    """The engine's limits: sequences at once, tokens per step (SGLang: its chunked-prefill size), the KV cache it
    sized at start-up, and how it fills a step (``policy``, one of POLICIES)."""

    max_num_seqs: int
    max_num_batched_tokens: int
    kv_tokens: int  # "GPU KV cache size" (engine_capacity)
    block_tokens: int = DEFAULT_BLOCK_TOKENS
    policy: str = "mixed"
    max_prefill_tokens: int = SGLANG_MAX_PREFILL_TOKENS  # SGLang: prompt tokens of one prefill batch at most


def sglang_max_running(kv_tokens: int, context_len: int) -> int:
    """Requests SGLang runs at once unless `--max-running-requests` says otherwise: its request pool, 512 per
    context length of KV pool between 2,048 and 4,096 (model_runner.py `init_memory_pool`), and at most half the
    pool's tokens (scheduler.py)."""
    pool = min(max(int(kv_tokens / max(1, context_len) * 512), 2048), 4096)
    return max(1, min(pool, kv_tokens // 2))


def vllm_policy(release: str) -> str:
    """ "prefill_first" for a release before vLLM's V1 engine became the default, "mixed" otherwise."""
    version = version_of(release) if release else None
    return "prefill_first" if version is not None and version < VLLM_V1_FIRST else "mixed"


def engine_scheduler(
    spec: ModelSpec,
    workload: Workload,
    gpu_total_bytes: int,
    gpu_name: str,
    gpus: int,
    max_model_len: int,
    gpu_memory_utilization: float | None = None,
) -> Scheduler:
    """The limits ``workload.engine`` starts with on ``gpus`` GPUs of ``gpu_total_bytes``: vLLM's batch defaults of
    its release line (§4.12), SGLang's chunked-prefill size per GPU memory (§4.2), and the KV cache it sizes at
    start-up for ``max_model_len`` (memory/capacity.py) at its default memory share or ``gpu_memory_utilization``."""
    engine = workload.engine
    settings = EngineSettings(
        engine=engine,
        tensor_parallel=gpus,
        max_model_len=max_model_len,
        precision=workload.precision,
        kv_dtype=workload.kv_dtype,
        release=workload.engine_release,
        gpu_name=gpu_name,
        gpu_memory_utilization=gpu_memory_utilization,
    )
    kv_tokens = engine_capacity(spec, gpu_total_bytes, settings).kv_cache_tokens
    if engine == "sglang":
        chunked, _ = sglang_gpu_defaults(gpu_total_bytes / 2**20, gpus)
        running = sglang_max_running(kv_tokens, max_model_len)
        return Scheduler(running, chunked, kv_tokens, 1, "sglang")
    if vllm_policy(workload.engine_release) == "prefill_first":
        batched = max(max_model_len, VLLM_V0_MIN_BATCHED_TOKENS)
        return Scheduler(VLLM_V0_MAX_NUM_SEQS, batched, kv_tokens, DEFAULT_BLOCK_TOKENS, "prefill_first")
    batched, seqs = vllm_batch_defaults(vllm_release(workload.engine_release), gpu_total_bytes, gpu_name)
    return Scheduler(seqs, batched, kv_tokens)
