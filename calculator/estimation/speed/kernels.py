"""Step costs from measured kernels (docs/methodology.md §5.8): per GPU and engine, how close the engine's own GEMM,
fused-MoE (by the GPUs each expert is split over), attention and all-reduce kernels come to the GPU's nameplate
bandwidth and FLOPs, derived from NVIDIA's silicon-measured latency tables (github.com/ai-dynamo/aiconfigurator,
Apache-2.0; scripts/derive_kernel_tables.py writes ``data/kernels.json`` from them, which names the commit).

What the tables give, as shares of the nameplate figures in pricing/data/gpus.json so that the roofline of any shape
turns into a time: GEMM efficiency by tokens in the step (one token reads the weights at the kernel's bandwidth, many
reach its FLOPs), the same for the fused-MoE kernel by tokens routed, decode attention as a fixed and a per-sequence
cost per layer plus the KV bytes at a measured share of the bandwidth, prefill attention's share of the FLOPs, and the
all-reduce's latency by message size and GPU count. GPUs and engines without tables (AMD, consumer cards, Apple,
llama.cpp, MLX) keep the roofline with the efficiencies calibrated on published runs (speed/step_time.py). Pure Python.
"""

from __future__ import annotations

import bisect
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data" / "kernels.json"
# An engine without a table of its own on a GPU runs the kernels another engine's table measured there (vLLM and
# SGLang share FlashInfer/FlashAttention and the fused-MoE Triton kernels); TensorRT-LLM's own kernels stand apart
_STAND_INS: Mapping[str, tuple[str, ...]] = {"vllm": ("sglang",), "sglang": ("vllm",), "tensorrt-llm": ()}

Curve = tuple[tuple[float, float], ...]  # (x, y) points, x ascending


def interpolate(curve: Curve, x: float) -> float:
    """``curve`` at ``x``, linear in log x between its points, flat beyond its ends."""
    xs = [point[0] for point in curve]
    if x <= xs[0]:
        return curve[0][1]
    if x >= xs[-1]:
        return curve[-1][1]
    i = bisect.bisect_right(xs, x)
    (x0, y0), (x1, y1) = curve[i - 1], curve[i]
    t = (math.log(x) - math.log(x0)) / (math.log(x1) - math.log(x0))
    return y0 + (y1 - y0) * t


@dataclass(frozen=True, slots=True)
class KernelTable:
    """One engine's measured kernels on one GPU."""

    gpu: str  # slug
    engine: str
    version: str  # the engine release the kernels were measured under
    gemm: Mapping[str, Curve]  # dtype → (tokens, share of the roofline)
    moe: Mapping[str, Curve]  # dtype → (tokens, share of the roofline), balanced routing on one GPU
    # dtype → {GPUs the experts are split over: (tokens, share of the roofline at each GPU's slice)}, skewed routing
    moe_tp: Mapping[str, Mapping[int, Curve]]
    attention_fixed_s: float  # decode attention, one layer: fixed cost
    attention_sequence_s: float  # … per sequence in the batch
    attention_kv_efficiency: float  # … share of the bandwidth its KV reads reach
    prefill_attention_efficiency: float  # prefill attention's share of the 16-bit FLOPs
    all_reduce: Mapping[int, Curve]  # GPUs → (message bytes, seconds)
    stand_in: bool = False  # measured under another engine

    def gemm_efficiency(self, dtype: str, tokens: float) -> float | None:
        curve = self.gemm.get(dtype) or self.gemm.get("bf16")
        return interpolate(curve, max(1.0, tokens)) if curve else None

    def moe_efficiency(self, dtype: str, tokens: float, tp: int = 1) -> float | None:
        """The fused-MoE kernel's share of the roofline at ``tokens`` tokens with each expert split over ``tp``
        GPUs (aiconfigurator's default skewed routing, power law α 1.2); the balanced one-GPU curve where that
        split was not measured."""
        split = self.moe_tp.get(dtype) or self.moe_tp.get("bf16") or {}
        curve = split.get(tp) or self.moe.get(dtype) or self.moe.get("bf16")
        return interpolate(curve, max(1.0, tokens)) if curve else None

    def all_reduce_s(self, gpus: int, payload_bytes: float) -> float | None:
        """One all-reduce of ``payload_bytes`` over ``gpus`` GPUs; None where that GPU count was not measured."""
        if gpus <= 1:
            return 0.0
        curve = self.all_reduce.get(gpus)
        return interpolate(curve, max(1.0, payload_bytes)) if curve else None


def _curve(points: Iterable[Sequence[float]]) -> Curve:
    return tuple(sorted((float(x), float(y)) for x, y in points))


def _table(slug: str, engine: str, row: Mapping[str, Any], stand_in: bool) -> KernelTable:
    attention = row.get("generation_attention") or {}
    context = row.get("context_attention") or {}
    return KernelTable(
        gpu=slug,
        engine=engine,
        version=str(row.get("version", "")),
        gemm={dtype: _curve(points) for dtype, points in (row.get("gemm") or {}).items() if points},
        moe={dtype: _curve(points) for dtype, points in (row.get("moe") or {}).items() if points},
        moe_tp={
            dtype: {int(tp): _curve(points) for tp, points in curves.items() if points}
            for dtype, curves in (row.get("moe_tp") or {}).items()
        },
        attention_fixed_s=float(attention.get("fixed_us", 0.0)) * 1e-6,
        attention_sequence_s=float(attention.get("per_sequence_us", 0.0)) * 1e-6,
        attention_kv_efficiency=float(attention.get("kv_bandwidth_efficiency", 0.0)),
        prefill_attention_efficiency=float(context.get("flops_efficiency", 0.0)),
        all_reduce={
            int(gpus): _curve((size, us * 1e-6) for size, us in points)
            for gpus, points in (row.get("all_reduce") or {}).items()
            if points
        },
        stand_in=stand_in,
    )


@cache
def _document() -> Mapping[str, Any]:
    if not DATA.is_file():
        return {}
    loaded: Mapping[str, Any] = json.loads(DATA.read_text(encoding="utf-8"))
    return loaded


def kernel_source() -> Mapping[str, str]:
    """Where the tables come from: repository, commit, licence, path."""
    return dict(_document().get("source") or {})


@cache
def kernel_table(gpu: str, engine: str) -> KernelTable | None:
    """The measured kernels of ``engine`` on the GPU ``gpu`` (a slug), or of the engine standing in for it there;
    None where neither was measured."""
    engines = ((_document().get("gpus") or {}).get(gpu) or {}).get("engines") or {}
    for name in (engine, *_STAND_INS.get(engine, ())):
        row = engines.get(name)
        if row and row.get("gemm"):
            return _table(gpu, engine, row, name != engine)
    return None
