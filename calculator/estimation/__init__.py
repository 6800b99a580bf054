"""The estimation core: memory, fit, speed and cost. Pure Python, no Django.

Four rooms over a small foundation; each imports only the ones above it in this list:

- foundation: ``workload`` (what a reader asks: mode, precision, context, requests; the ``Breakdown`` of terms),
  ``precision`` (every precision's bits per category), ``tensor_bits`` (the tensor categories those bits are given
  for), ``gguf_types`` (llama.cpp's GGUF file types), ``facts`` (per-model constants derived once), ``memo`` (the
  per-spec memo).
- ``engines``: engine profiles, release lines, data-parallel attention, published builds, weight sourcing, launch
  commands.
- ``memory``: weights, KV, runtime overhead, start-up capacity, fine-tuning, and how many GPUs hold a need.
- ``speed``: step costs, one request's speed, the scheduler simulation.
- ``plan``: parallel layout, deployment plans, ranking, cost, offload, the inverse questions, the serving planner and
  one replica's capacity.

The names below are the ones the web layer reads most; every other name is imported from its module.
"""

from pricing.offers import HOURS_PER_MONTH

from .engines.profiles import ENGINES, KV_DTYPES, EngineProfile, KvDtype, get_engine, get_kv_dtype
from .memory.capacity import EngineCapacity, EngineSettings, engine_capacity, kv_tokens_from_memory
from .memory.estimate import estimate
from .memory.fit import (
    FILL_FRACTION,
    MAX_GPUS_PER_NODE,
    AppleFit,
    GpuLike,
    apple_fit,
    budget_bytes,
    gpus_needed,
    nodes_needed,
    reference_gpus_needed,
    run_count,
    units_needed,
    usable_bytes,
)
from .memory.frameworks import FRAMEWORKS, FrameworkProfile, get_framework
from .memory.weights import weights_only_bytes
from .plan.cost import (
    ApiPrice,
    BreakEven,
    TrafficMix,
    api_cost_per_million_output,
    break_even,
    cost_per_hour,
    cost_per_million_tokens,
    cost_per_month,
)
from .plan.inverse import max_concurrency, max_context
from .precision import PAGE_PRECISIONS, PRECISIONS, Precision, get_precision
from .speed.estimate import SpeedEstimate, speed
from .speed.work import decode_bytes_per_step
from .workload import (
    FRAMEWORKS_KEYS,
    GB,
    GIB,
    MODES,
    OPTIMIZERS,
    Breakdown,
    Framework,
    LoraTargets,
    Mode,
    Optimizer,
    Term,
    Workload,
)

__all__ = [
    "ENGINES",
    "FILL_FRACTION",
    "GB",
    "GIB",
    "HOURS_PER_MONTH",
    "KV_DTYPES",
    "MAX_GPUS_PER_NODE",
    "MODES",
    "OPTIMIZERS",
    "PAGE_PRECISIONS",
    "PRECISIONS",
    "ApiPrice",
    "AppleFit",
    "BreakEven",
    "Breakdown",
    "EngineProfile",
    "GpuLike",
    "KvDtype",
    "Mode",
    "Optimizer",
    "Precision",
    "SpeedEstimate",
    "Term",
    "TrafficMix",
    "Workload",
    "api_cost_per_million_output",
    "apple_fit",
    "break_even",
    "budget_bytes",
    "cost_per_hour",
    "cost_per_million_tokens",
    "cost_per_month",
    "decode_bytes_per_step",
    "estimate",
    "get_engine",
    "get_kv_dtype",
    "get_precision",
    "gpus_needed",
    "max_concurrency",
    "max_context",
    "nodes_needed",
    "reference_gpus_needed",
    "run_count",
    "speed",
    "units_needed",
    "usable_bytes",
    "weights_only_bytes",
]

from .engines.launch import Launch, LaunchConfig, launch_command
from .plan.offload import OffloadSplit, Placement, offload_split
from .plan.offload_fit import (
    OffloadSpeed,
    OffloadVerdict,
    best_quant_verdict,
    best_split,
    offload_speed,
    offload_verdict,
)
from .plan.ranking import GpuCount, RankedOffer, Ranking, rank, several_node_gpus

__all__ += [
    "FRAMEWORKS",
    "FRAMEWORKS_KEYS",
    "Framework",
    "FrameworkProfile",
    "LoraTargets",
    "get_framework",
]
__all__ += ["GpuCount", "RankedOffer", "Ranking", "rank", "several_node_gpus"]
__all__ += ["EngineCapacity", "EngineSettings", "engine_capacity", "kv_tokens_from_memory"]

__all__ += ["Launch", "LaunchConfig", "launch_command"]
__all__ += [
    "OffloadSpeed",
    "OffloadSplit",
    "OffloadVerdict",
    "Placement",
    "best_quant_verdict",
    "best_split",
    "offload_speed",
    "offload_split",
    "offload_verdict",
]
