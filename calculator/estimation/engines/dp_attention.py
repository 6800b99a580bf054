"""Data-parallel attention: every GPU runs attention for its own requests (docs/methodology.md §4.11).

Under plain tensor parallelism each vLLM or SGLang rank keeps the whole MLA latent cache of every request (the latent
has one "head", nothing to split: vllm ``ModelConfig.get_num_kv_heads`` returns 1 when ``use_mla``). Both engines offer
a layout for MLA mixture-of-experts models where each GPU instead keeps only its own requests' latent and holds a full
copy of the layers that make it:

- SGLang ``--tp N --dp-size N --enable-dp-attention``: attention TP size = tp // dp = 1, so every rank holds the whole
  attention (``q_a``/``kv_a`` replicated, ``q_b``, ``kv_b``, ``o_proj`` split over the attention group only) and the
  input embedding (``VocabParallelEmbedding(enable_tp=not is_dp_attention_enabled())``); dense MLP layers, shared and
  routed experts and the output head stay split over all N (sglang ``python/sglang/srt/layers/dp_attention.py``
  ``compute_dp_attention_world_info``, ``python/sglang/srt/models/deepseek_v2.py`` at 3e4a39ee). Each data-parallel
  rank has its own scheduler and KV pool; ``--max-running-requests`` is the total, divided by dp per rank
  (``tp_worker.py`` at 4f34e24a).
- vLLM ``--data-parallel-size N --enable-expert-parallel`` (TP 1): one engine per GPU; attention, dense MLP, shared
  experts, embedding and head are replicated ("The attention weights are replicated across all GPUs, while the expert
  weights are split across GPUs", vllm ``docs/serving/expert_parallel_deployment.md`` at 13642f1e; routed experts
  EP = TP × DP, ``fused_moe/config.py`` ``FusedMoEParallelConfig``). "Each DP engine has an independent KV cache"
  (``docs/serving/data_parallel_deployment.md`` at 624b7aff); ``--max-num-seqs`` is per engine (``v1/core/sched/
  scheduler.py`` reads it undivided).

Both engines' documentation recommends it for DeepSeek-class models where the cache limits the batch ("If you do not
use DP attention, KV cache will be duplicated among all TP ranks", sglang ``docs/basic_usage/deepseek_v3.md``).
"""

from __future__ import annotations

from models_catalog.architecture import AttentionKind, ModelSpec

from ..facts import SpecFacts
from ..precision import Precision

DP_ATTENTION_ENGINES = frozenset({"vllm", "sglang"})


def offers_dp_attention(spec: ModelSpec, engine: str) -> bool:
    """Whether ``engine`` runs ``spec`` with data-parallel attention: an MLA model with routed experts (DeepSeek-V2/V3,
    Kimi K2, GLM-5) under vLLM or SGLang."""
    if engine.lower() not in DP_ATTENTION_ENGINES or spec.experts_routed <= 0:
        return False
    return any(group.kind is AttentionKind.MLA and group.count for group in spec.layer_groups)


def attention_ranks(spec: ModelSpec, engine: str, requested: int) -> int:
    """The data-parallel attention ranks a workload asking for ``requested`` runs with on ``engine`` (1: none, where
    the engine does not offer it for this model)."""
    ranks = max(1, int(requested))
    return ranks if ranks > 1 and offers_dp_attention(spec, engine) else 1


def replicated_weight_bytes(facts: SpecFacts, precision: Precision, engine: str) -> int:
    """Bytes of the weights every data-parallel rank holds whole under ``engine`` (the rest splits evenly): SGLang
    the attention and the input embedding, vLLM everything but the routed experts. Multi-token-prediction layers,
    when loaded, are a draft model of their own (mostly routed experts) and are left with the split weights."""
    counts = facts.counts_without_mtp
    bits = precision.bits(counts, facts.layer_facts)
    if engine.lower() == "vllm":
        routed = counts.experts * bits.experts + counts.experts_down * bits.experts_down
        total = sum(c * b for c, b in zip(counts, bits, strict=True))
        return round((total - routed - counts.vision * bits.vision) / 8)
    named = counts.attn_k * bits.attn_k + counts.attn_v * bits.attn_v + counts.attn_output * bits.attn_output
    named_params = counts.attn_k + counts.attn_v + counts.attn_output
    rest = max(0, facts.spec.components.attention - named_params)  # q / kv projections, stored in ``other``
    return round((named + rest * bits.other + counts.embedding * bits.embedding) / 8)
