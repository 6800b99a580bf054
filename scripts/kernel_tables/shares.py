"""Rows into shares of the nameplate figures: the GEMM and fused-MoE roofline shares by token count, the
decode-attention fit, prefill attention's FLOPs share and the all-reduce's lower envelope."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from . import AR_BYTES, BIG_LINEAR, BYTES, POW2, Row, sig
from .mirror import first_wins


def median_curve(points: Iterable[tuple[int, float]], xs: Sequence[int]) -> list[list[float]]:
    by_x: dict[int, list[float]] = {}
    for x, value in points:
        by_x.setdefault(x, []).append(value)
    return [[x, sig(statistics.median(by_x[x]))] for x in xs if x in by_x]


@dataclass(frozen=True)
class Nameplate:
    bandwidth: float  # bytes/s
    flops: dict[str, float]  # dtype → dense FLOP/s

    @classmethod
    def of(cls, gpu: Row) -> Nameplate:
        flops = {"bf16": gpu["bf16_dense_tflops"], "fp8": gpu.get("fp8_dense_tflops")}
        return cls(gpu["memory_bandwidth_gbps"] * 1e9, {k: v * 1e12 for k, v in flops.items() if v})


def gemm_curve(rows: list[Row], dtype: str, plate: Nameplate) -> list[list[float]]:
    """Median over the large (n, k) of roofline ÷ measured latency, per token count m."""
    points = []
    for row in first_wins(rows, lambda r: (r["m"], r["n"], r["k"])):
        m, n, k = row["m"], row["n"], row["k"]
        if n * k < BIG_LINEAR or m not in POW2:
            continue
        moved = n * k * BYTES[dtype] + (m * k + m * n) * 2
        roofline = max(moved / plate.bandwidth, 2 * m * n * k / plate.flops[dtype])
        points.append((m, roofline / (row["latency"] * 1e-3)))
    return median_curve(points, POW2)


def moe_key(row: Row) -> tuple[Any, ...]:
    return tuple(row[c] for c in ("distribution", "hidden_size", "inter_size", "topk", "num_experts", "num_tokens"))


def moe_curve(rows: list[Row], dtype: str, plate: Nameplate) -> list[list[float]]:
    """Median over shapes of roofline ÷ latency, per routed token count T, at the per-GPU shape: every expert on the
    GPU, each at inter_size ÷ moe_tp_size of its width (the parquet's inter_size is the model's full width; the
    collectors shard it themselves)."""
    points = []
    for row in first_wins(rows, moe_key):
        tokens, experts, topk = row["num_tokens"], row["num_experts"], row["topk"]
        if tokens not in POW2:
            continue
        weights = 3 * row["hidden_size"] * (row["inter_size"] / row["moe_tp_size"])
        touched = experts * (1 - (1 - topk / experts) ** tokens)
        roofline = max(
            touched * weights * BYTES[dtype] / plate.bandwidth, 2 * tokens * topk * weights / plate.flops[dtype]
        )
        points.append((tokens, roofline / (row["latency"] * 1e-3)))
    return median_curve(points, POW2)


def moe_filter(distribution: str, tp: int | None = 1) -> Callable[[Row], bool]:
    """Rows of one routing, without expert parallelism, at moe_tp_size ``tp`` (None: any)."""

    def keep(row: Row) -> bool:
        kernel = row.get("kernel_source") or ""
        return (
            (tp is None or row["moe_tp_size"] == tp)
            and row["moe_ep_size"] == 1
            and row["distribution"] == distribution
            and "min_latency" not in kernel  # TRT-LLM's separate low-latency grid
            and "nongated" not in kernel  # two weight matrices, not three
        )

    return keep


def solve(matrix: list[list[float]], rhs: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting."""
    size = len(rhs)
    a = [[*row, value] for row, value in zip(matrix, rhs, strict=True)]
    for col in range(size):
        pivot = max(range(col, size), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        for r in range(size):
            if r != col and a[col][col]:
                factor = a[r][col] / a[col][col]
                a[r] = [x - factor * y for x, y in zip(a[r], a[col], strict=True)]
    return [a[i][size] / a[i][i] for i in range(size)]


def relative_least_squares(features: list[list[float]], targets: list[float]) -> list[float]:
    """Non-negative coefficients minimising the sum of squared RELATIVE residuals (drop the most negative, refit)."""
    active = list(range(len(features[0])))
    while True:
        cols = [[f[i] / y for i in active] for f, y in zip(features, targets, strict=True)]
        gram = [[sum(c[i] * c[j] for c in cols) for j in range(len(active))] for i in range(len(active))]
        coef = solve(gram, [sum(c[i] for c in cols) for i in range(len(active))])
        if min(coef) >= 0 or len(active) == 1:
            full = [0.0] * len(features[0])
            for i, value in zip(active, coef, strict=True):
                full[i] = value
            return full
        del active[coef.index(min(coef))]


def generation_fit(rows: list[Row], plate: Nameplate) -> tuple[dict[str, float], float]:
    """latency_us = fixed + per_sequence·batch + kv_bytes ÷ (bandwidth·e), one layer, one decode step of ``batch``
    sequences holding isl + step tokens each. Rows that read their KV faster than the nameplate bandwidth are dropped:
    HBM cannot do that, so those KV reads were served by the L2 cache of a warm benchmark loop (or not made at all)."""
    keyed = first_wins(
        rows, lambda r: (r["num_heads"], r["num_key_value_heads"], r["head_dim"], r["batch_size"], r["isl"] + r["step"])
    )
    features, targets = [], []
    for row in keyed:
        kv_bytes = row["batch_size"] * (row["isl"] + row["step"]) * 2 * row["num_key_value_heads"] * row["head_dim"] * 2
        if kv_bytes <= plate.bandwidth * row["latency"] * 1e-3:
            features.append([1.0, float(row["batch_size"]), kv_bytes / 1e6])
            targets.append(row["latency"] * 1e3)
    fixed, per_sequence, us_per_mb = relative_least_squares(features, targets)
    errors = [
        abs(fixed + per_sequence * f[1] + us_per_mb * f[2] - y) / y for f, y in zip(features, targets, strict=True)
    ]
    efficiency = 1e12 / (us_per_mb * plate.bandwidth) if us_per_mb else 0.0  # µs per MB → share of bandwidth
    fit = {
        "fixed_us": sig(fixed),
        "per_sequence_us": sig(per_sequence),
        "kv_bandwidth_efficiency": sig(efficiency),
        "rows": len(targets),
    }
    return fit, statistics.median(errors)


def context_efficiency(rows: list[Row], plate: Nameplate) -> dict[str, float]:
    """Median share of the bf16 FLOPs that causal prefill attention reaches (2·b·s²·heads·head_dim FLOPs)."""
    keyed = first_wins(
        rows, lambda r: (r["num_heads"], r["num_key_value_heads"], r["head_dim"], r["batch_size"], r["isl"])
    )
    shares = [
        2
        * r["batch_size"]
        * r["isl"] ** 2
        * r["num_heads"]
        * r["head_dim"]
        / (r["latency"] * 1e-3 * plate.flops["bf16"])
        for r in keyed
    ]
    return {"flops_efficiency": sig(statistics.median(shares)), "rows": len(keyed)}


def all_reduce_curves(rows: list[Row]) -> dict[str, list[list[float]]]:
    """Latency (µs) by message size in BYTES (bf16 elements × 2) for each GPU count, on AR_BYTES. Each latency is
    the lower envelope from the right (no larger than any larger message's): a smaller message can always be padded,
    and this irons out single-point spikes of the benchmark."""
    by_gpus: dict[int, dict[int, float]] = {}
    for row in first_wins(rows, lambda r: (r["num_gpus"], r["message_size"])):
        by_gpus.setdefault(row["num_gpus"], {})[row["message_size"] * 2] = row["latency"] * 1e3
    curves: dict[str, list[list[float]]] = {}
    for gpus, points in sorted(by_gpus.items()):
        envelope, lowest = {}, float("inf")
        for size in sorted(points, reverse=True):
            lowest = min(lowest, points[size])
            envelope[size] = lowest
        curves[str(gpus)] = [[size, sig(envelope[size])] for size in AR_BYTES if size in envelope]
    return curves
