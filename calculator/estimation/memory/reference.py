"""The reference page's rule of thumb, kept for the methodology page's comparison (docs/methodology.md §4; design
"Seed figures"): the weights as stored (multi-token-prediction layers included) and the KV cache, plus 10 % of both and
1 GB, on GPUs filled to 90 % of their nameplate (``fit.reference_gpus_needed``). No headline uses it: the need is what
the engine allocates (``estimate``)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from models_catalog.architecture import ModelSpec

from ..workload import Workload
from .estimate import estimate
from .overhead import reference_overhead_bytes


@dataclass(frozen=True, slots=True)
class ReferenceNeed:
    weights_bytes: int  # every stored parameter at the precision, MTP layers included
    kv_bytes: int  # KV cache and linear-attention state, as the config gives them
    overhead_bytes: int  # 10 % of weights and KV + 1 GB

    @property
    def total_bytes(self) -> int:
        return self.weights_bytes + self.kv_bytes + self.overhead_bytes


def reference_need(spec: ModelSpec, workload: Workload | None = None) -> ReferenceNeed:
    """What the reference page's rule sizes for ``workload`` (default: its own state, FP16, 8K tokens, 1 request)."""
    stored = estimate(spec, replace(workload or Workload(), load_mtp_layers=True))
    weights, kv = stored.weights_bytes, stored.kv_cache_bytes
    return ReferenceNeed(weights, kv, reference_overhead_bytes(weights + kv))
