"""Derive the per-GPU kernel-efficiency tables of calculator/estimation/speed/data/kernels.json from NVIDIA's measured
kernel latencies in aiconfigurator (github.com/ai-dynamo/aiconfigurator, Apache-2.0; the tables are NVIDIA's, this
script only condenses them and the JSON names the commit they came from).

It reads, from a local bare git mirror of aiconfigurator, under ``aic-core/src/aiconfigurator_core/systems/data/``:

- ``<system>/gemm/<framework>/<version>/gemm_perf.parquet`` (m, n, k, gemm_dtype, latency in ms);
- ``<system>/moe/<framework>/<version>/moe_perf.parquet`` (num_tokens, hidden_size, inter_size, topk, num_experts,
  moe_tp_size, moe_ep_size, distribution, moe_dtype, latency in ms);
- ``<system>/attention/<framework>/<version>/{generation,context}_attention_perf.parquet`` (batch_size, isl, step,
  num_heads, num_key_value_heads, head_dim, kv_cache_dtype, window_size, latency in ms; a decode row's cached length is
  isl + step, as aic-core/rust/aiconfigurator-core/src/perf_database/attention.rs keys it);
- ``<system>/comm/<framework>/<version>/custom_allreduce_perf.parquet`` and ``<system>/comm/nccl/<v>/nccl_perf.parquet``
  (num_gpus, message_size as an ELEMENT count of bf16 — aic-core/rust/aiconfigurator-core/src/operators/communication.rs
  queries ``tokens x hidden`` and collector/network/collect_all_reduce.py allocates that many elements —, latency in
  ms from CUDA events);
- ``reuse.yaml`` beside a version whose table is declared to be another version's collection;

and the nameplate figures of pricing/data/gpus.json, so that every efficiency is a share of the figures the speed model
multiplies. Per (system, framework) the engine version is the newest one holding its own GEMM table; every other table
is that version's own, its reuse.yaml donor, or else the newest earlier version's (aiconfigurator's sibling
inheritance). Within a table the first row of a key wins, as aiconfigurator's loaders do (the GEMM and MoE loaders of
aic-core/rust/aiconfigurator-core/src/perf_database/ apply no kernel_source filter to the engine's own table, so the
kernel the engine runs by default — "vllm_default", or from vLLM 0.24 the one kernel logged per dtype — is used).

Choices where the data leaves room: MoE rows are the "balanced" routing (aiconfigurator's own default is power_law_1.2,
models/moe.py; used only where a table has no balanced rows), with the whole expert set on one GPU, without TRT-LLM's
separate min-latency grid or its non-gated (two-matrix) kernels; decode-attention rows that beat the nameplate
bandwidth are dropped from the fit; the all-reduce curve is the lower envelope from the right.

Each MoE curve is the median over shapes of roofline ÷ measured latency per routed token count T, the roofline being
max(bytes ÷ bandwidth, FLOPs ÷ dense FLOP/s) with bytes = E·(1 − (1 − k/E)^T) touched experts × 3·hidden·inter ×
bytes per weight and FLOPs = 2·T·k·3·hidden·inter. An engine's "moe" entry ({dtype: curve}) is that at moe_tp_size =
moe_ep_size = 1 and balanced routing; its "moe_tp" entry ({dtype: {moe_tp_size: curve}}) is the same at every
moe_tp_size up to MOE_TP_MAX (moe_ep_size = 1), under aiconfigurator's default power_law_1.2 routing (balanced where a
table lacks it), at the per-GPU shape: every expert on each GPU at inter = inter_size ÷ moe_tp_size of its width (the
parquet's inter_size is the model's full width, which collector/{vllm,sglang,trtllm}/collect_moe.py shard themselves).
One table, routing and dtype serves all TP sizes of a dtype, chosen in the order of the "moe" entry's (the routing
preference aside).

Needs pyarrow, which is not a dependency of the site; install it in a separate environment:

    python -m venv /tmp/pa && /tmp/pa/bin/pip install pyarrow
    /tmp/pa/bin/python scripts/derive_kernel_tables.py /path/to/aiconfigurator.git pricing/data/gpus.json
"""

from __future__ import annotations

import argparse
import importlib
import io
import json
import re
import statistics
import subprocess
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "calculator" / "estimation" / "speed" / "data" / "kernels.json"
DATA = "aic-core/src/aiconfigurator_core/systems/data"
SYSTEMS = {  # aiconfigurator system → gpus.json slug
    "a100_sxm": "a100-80gb-sxm",
    "h100_sxm": "h100-sxm",
    "h200_sxm": "h200-sxm",
    "b200_sxm": "b200",
    "b300_sxm": "b300",
    "gb200": "gb200",
    "l40s": "l40s",
    "rtx_pro_6000_server": "rtx-pro-6000-blackwell",
}
ENGINES = {"vllm": "vllm", "sglang": "sglang", "trtllm": "tensorrt-llm"}
# Which of aiconfigurator's dtypes stands for our "fp8": dense layers take per-tensor FP8 first (the Llama-style FP8
# checkpoints), MoE layers the 128×128 block-scaled FP8 of DeepSeek/Qwen-MoE checkpoints first — vLLM's generic FP8 MoE
# path; its per-tensor rows are the ModelOpt/FlashInfer-CUTLASS path, 2-3× slower than bf16 on Hopper.
DTYPES = {
    "gemm": {"bf16": ("bfloat16",), "fp8": ("fp8", "fp8_block")},
    "moe": {"bf16": ("bfloat16",), "fp8": ("fp8_block", "fp8")},
}
BYTES = {"bf16": 2, "fp8": 1}
MOE_TP_ROUTING = ("power_law_1.2", "balanced")  # aiconfigurator's default routing (models/moe.py), else balanced
MOE_TP_MAX = 8  # the tables also hold 16 and 32; the all-reduce curves stop at 8 GPUs, and the file stays small
POW2 = tuple(2**i for i in range(15))  # 1 … 16384 tokens
AR_BYTES = tuple(256 * 4**i for i in range(11))  # 256 B … 256 MiB
BIG_LINEAR = 2**24  # n·k of the large linear layers of 7B+ models
Row = dict[str, Any]


def _parquet() -> Any:
    return importlib.import_module("pyarrow.parquet")


def _sig(x: float, digits: int = 4) -> float:
    return float(f"{x:.{digits}g}")


def version_key(version: str) -> tuple[tuple[int, ...], int, int, int]:
    """PEP 440 order for the release strings aiconfigurator uses (0.5.6.post2, 1.3.0rc20, 0.1.dev19262)."""
    match = re.match(r"(\d+(?:\.\d+)*)(?:rc(\d+))?(?:\.post(\d+))?(?:\.dev(\d+))?$", version)
    if not match:
        return ((-1,), 0, 0, 0)
    release = tuple(int(part) for part in match.group(1).split("."))
    release += (0,) * (4 - len(release))
    pre = int(match.group(2)) if match.group(2) else 10**9
    if match.group(4) and not match.group(2):
        pre = -1  # a dev release precedes its release candidates
    return release, pre, int(match.group(3) or -1), int(match.group(4) or 10**9)


class Mirror:
    """The data tree of one aiconfigurator commit, read from a bare git mirror."""

    def __init__(self, git_dir: Path, commit: str = "HEAD") -> None:
        self.git_dir = git_dir
        self.commit = self._git("rev-parse", commit).decode().strip()
        listing = self._git("ls-tree", "-r", "--name-only", self.commit, "--", DATA).decode().split()
        self.files = {name[len(DATA) + 1 :] for name in listing}
        self._tables: dict[str, list[Row]] = {}

    def _git(self, *args: str) -> bytes:
        return subprocess.run(["git", "-C", str(self.git_dir), *args], capture_output=True, check=True).stdout

    def read(self, path: str) -> bytes:
        return self._git("show", f"{self.commit}:{DATA}/{path}")

    def versions(self, system: str, family: str, framework: str) -> list[str]:
        prefix = f"{system}/{family}/{framework}/"
        found = {name[len(prefix) :].split("/")[0] for name in self.files if name.startswith(prefix)}
        return sorted(found, key=version_key, reverse=True)

    def resolve(self, system: str, family: str, framework: str, version: str, table: str) -> str | None:
        """The parquet holding ``table`` for this version: its own, or its reuse.yaml donor's."""
        folder = f"{system}/{family}/{framework}/{version}"
        if f"{folder}/{table}.parquet" in self.files:
            return f"{folder}/{table}.parquet"
        if f"{folder}/reuse.yaml" not in self.files:
            return None
        text = self.read(f"{folder}/reuse.yaml").decode()
        for name, donor in re.findall(r"-\s*table:\s*(\S+)\s*\n\s*from_version:\s*['\"]?([^'\"\s]+)", text):
            path = f"{system}/{family}/{framework}/{donor}/{table}.parquet"
            if name == table and path in self.files:
                return path
        return None

    def sources(self, system: str, family: str, framework: str, table: str, upto: str) -> list[str]:
        """Every parquet that can serve ``table`` at version ``upto``, the version's own first, then older ones."""
        ceiling = version_key(upto)
        found = []
        for version in self.versions(system, family, framework):
            if version_key(version) <= ceiling:
                path = self.resolve(system, family, framework, version, table)
                if path and path not in found:
                    found.append(path)
        return found

    def rows(self, path: str, keep: Callable[[Row], bool]) -> list[Row]:
        if path not in self._tables:
            self._tables = {path: _parquet().read_table(io.BytesIO(self.read(path))).to_pylist()}  # one at a time
        return [row for row in self._tables[path] if keep(row)]


def first_wins(rows: Iterable[Row], key: Callable[[Row], tuple[Any, ...]]) -> list[Row]:
    """The first row of each key, as aiconfigurator's loaders keep it."""
    seen: set[tuple[Any, ...]] = set()
    kept = []
    for row in rows:
        k = key(row)
        if k not in seen:
            seen.add(k)
            kept.append(row)
    return kept


def median_curve(points: Iterable[tuple[int, float]], xs: Sequence[int]) -> list[list[float]]:
    by_x: dict[int, list[float]] = {}
    for x, value in points:
        by_x.setdefault(x, []).append(value)
    return [[x, _sig(statistics.median(by_x[x]))] for x in xs if x in by_x]


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
        "fixed_us": _sig(fixed),
        "per_sequence_us": _sig(per_sequence),
        "kv_bandwidth_efficiency": _sig(efficiency),
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
    return {"flops_efficiency": _sig(statistics.median(shares)), "rows": len(keyed)}


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
        curves[str(gpus)] = [[size, _sig(envelope[size])] for size in AR_BYTES if size in envelope]
    return curves


@dataclass
class Engine:
    """One framework's tables on one system, at the newest version holding its own GEMM table."""

    mirror: Mirror
    system: str
    framework: str
    version: str
    plate: Nameplate
    devices: dict[str, int]

    def sources(self, family: str, table: str) -> list[str]:
        return self.mirror.sources(self.system, family, self.framework, table, self.version)

    def rows(self, path: str, keep: Callable[[Row], bool]) -> list[Row]:
        rows = self.mirror.rows(path, keep)
        for row in rows:
            self.devices[row["device"]] = self.devices.get(row["device"], 0) + 1
        return rows

    def note(self, what: str, path: str, detail: str = "") -> None:
        print(f"  {self.system}/{self.framework}@{self.version} {what}: {path} {detail}", file=sys.stderr)


def engine_version(mirror: Mirror, system: str, framework: str) -> str | None:
    for version in mirror.versions(system, "gemm", framework):
        if f"{system}/gemm/{framework}/{version}/gemm_perf.parquet" in mirror.files:
            return version
    return None


def dtype_curves(engine: Engine, family: str, column: str, variants: Sequence[str]) -> dict[str, list[list[float]]]:
    """Per dtype, the curve of the first source (newest first) and variant (distribution) that yields one."""
    curves: dict[str, list[list[float]]] = {}
    curve_of = gemm_curve if family == "gemm" else moe_curve
    dtypes = DTYPES[family]
    for label in (label for label in dtypes if label in engine.plate.flops):
        for path in engine.sources(family, f"{family}_perf"):
            found = next(
                (
                    (curve, dtype, variant)
                    for variant in variants
                    for dtype in dtypes[label]
                    if (
                        curve := curve_of(
                            engine.rows(path, row_filter(family, column, dtype, variant)), label, engine.plate
                        )
                    )
                ),
                None,
            )
            if found:
                curves[label] = found[0]
                engine.note(f"{family} {label}", path, f"{found[1]} {found[2]}")
                break
    return curves


def tp_curves(engine: Engine, path: str, label: str, dtype: str, distribution: str) -> dict[str, list[list[float]]]:
    """{moe_tp_size: curve} of one table, dtype (``label`` is ours, ``dtype`` aiconfigurator's) and routing, for
    every tensor-parallel size up to MOE_TP_MAX that the table holds."""
    keep = moe_filter(distribution, None)
    by_tp: dict[int, list[Row]] = {}
    for row in engine.rows(path, lambda r: r["moe_dtype"] == dtype and r["moe_tp_size"] <= MOE_TP_MAX and keep(r)):
        by_tp.setdefault(row["moe_tp_size"], []).append(row)
    curves = {str(tp): moe_curve(by_tp[tp], label, engine.plate) for tp in sorted(by_tp)}
    return {tp: curve for tp, curve in curves.items() if curve}


def moe_tp_curves(engine: Engine) -> dict[str, dict[str, list[list[float]]]]:
    """Per dtype, the MoE curve at each moe_tp_size (no expert parallelism) under aiconfigurator's default routing
    (power_law_1.2, else balanced), from the first source (newest first), routing and dtype variant that yields one —
    the order of ``dtype_curves``, so one table, routing and dtype serves every TP size of a dtype."""
    tables: dict[str, dict[str, list[list[float]]]] = {}
    dtypes = DTYPES["moe"]
    for label in (label for label in dtypes if label in engine.plate.flops):
        for path in engine.sources("moe", "moe_perf"):
            found = next(
                (
                    (curves, dtype, variant)
                    for variant in MOE_TP_ROUTING
                    for dtype in dtypes[label]
                    if (curves := tp_curves(engine, path, label, dtype, variant))
                ),
                None,
            )
            if found:
                tables[label] = found[0]
                fallback = "" if found[2] == MOE_TP_ROUTING[0] else f" (no {MOE_TP_ROUTING[0]} rows)"
                engine.note(f"moe_tp {label}", path, f"{found[1]} {found[2]}{fallback} tp {','.join(found[0])}")
                break
    return tables


def row_filter(family: str, column: str, dtype: str, variant: str) -> Callable[[Row], bool]:
    if family == "gemm":
        return lambda row: row[column] == dtype
    keep = moe_filter(variant)
    return lambda row: row[column] == dtype and keep(row)


def attention(engine: Engine, table: str, keep: Callable[[Row], bool]) -> tuple[str, list[Row]] | None:
    for path in engine.sources("attention", table):
        rows = engine.rows(path, keep)
        if rows:
            return path, rows
    return None


def attention_blocks(engine: Engine) -> dict[str, Any]:
    def bf16(row: Row) -> bool:
        return row["kv_cache_dtype"] == "bfloat16" and (row.get("window_size") or 0) == 0

    blocks: dict[str, Any] = {}
    found = attention(engine, "generation_attention_perf", bf16)
    if found:
        blocks["generation_attention"], error = generation_fit(found[1], engine.plate)
        engine.note("generation attention", found[0], f"median relative error {error:.3f}")
    found = attention(
        engine,
        "context_attention_perf",
        lambda row: bf16(row) and row["attn_dtype"] == "bfloat16" and row["isl"] >= 1024,
    )
    if found:
        blocks["context_attention"] = context_efficiency(found[1], engine.plate)
        engine.note("context attention", found[0])
    return blocks


def all_reduce(engine: Engine) -> dict[str, list[list[float]]]:
    """The engine's own custom all-reduce under CUDA graphs (eager rows dropped, as aiconfigurator does), else NCCL."""

    def graph(row: Row) -> bool:
        kernel, backend = row.get("kernel_source") or "", row.get("backend") or ""
        return not kernel.endswith("_eager") and not backend.endswith("_eager") and row["allreduce_dtype"] == "bfloat16"

    for path in engine.sources("comm", "custom_allreduce_perf"):
        curves = all_reduce_curves(engine.rows(path, graph))
        if curves:
            engine.note("all-reduce", path)
            return curves
    for version in engine.mirror.versions(engine.system, "comm", "nccl"):
        path = f"{engine.system}/comm/nccl/{version}/nccl_perf.parquet"
        if path in engine.mirror.files:
            rows = engine.rows(path, lambda row: row["op_name"] == "all_reduce" and row["nccl_dtype"] == "half")
            engine.note("all-reduce (NCCL)", path)
            return all_reduce_curves(rows)
    return {}


def engine_block(mirror: Mirror, system: str, framework: str, plate: Nameplate, devices: dict[str, int]) -> Row | None:
    version = engine_version(mirror, system, framework)
    if version is None:
        return None
    engine = Engine(mirror, system, framework, version, plate, devices)
    return {
        "version": version,
        "gemm": dtype_curves(engine, "gemm", "gemm_dtype", ("",)),
        "moe": dtype_curves(engine, "moe", "moe_dtype", ("balanced", "power_law_1.2")),
        "moe_tp": moe_tp_curves(engine),
        **attention_blocks(engine),
        "all_reduce": all_reduce(engine),
    }


def gpu_entry(mirror: Mirror, system: str, plate: Nameplate) -> Row | None:
    devices: dict[str, int] = {}
    engines = {}
    for framework, name in ENGINES.items():
        block = engine_block(mirror, system, framework, plate, devices)
        if block:
            engines[name] = block
    if not engines:
        return None
    device = max(devices, key=lambda d: devices[d])
    if len(devices) > 1:
        print(f"  {system}: device strings {devices}; the JSON names {device!r}", file=sys.stderr)
    return {"device": device, "engines": engines}


def dump(document: Row) -> str:
    """JSON with one line per curve, so that the file stays small and readable."""
    text = json.dumps(document, indent=1, ensure_ascii=False)
    numbers = r"\[\s*([-+\d.eE,\s]+?)\s*\]"
    text = re.sub(numbers, lambda m: "[" + ", ".join(part.strip() for part in m.group(1).split(",")) + "]", text)
    text = re.sub(r"\[\s*((?:\[[^\[\]]*\],?\s*)+)\]", lambda m: "[" + " ".join(m.group(1).split()) + "]", text)
    return text + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("mirror", type=Path, help="bare git mirror of github.com/ai-dynamo/aiconfigurator")
    parser.add_argument("gpus", type=Path, help="pricing/data/gpus.json")
    parser.add_argument("--commit", default="HEAD")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    mirror = Mirror(args.mirror, args.commit)
    gpus = {gpu["slug"]: gpu for gpu in json.loads(args.gpus.read_text(encoding="utf-8"))}
    document: Row = {
        "source": {
            "repository": "github.com/ai-dynamo/aiconfigurator",
            "commit": mirror.commit,
            "licence": "Apache-2.0",
            "path": DATA,
            "derived_by": "scripts/derive_kernel_tables.py",
        },
        "gpus": {},
    }
    for system, slug in SYSTEMS.items():
        print(f"{system} → {slug}", file=sys.stderr)
        entry = gpu_entry(mirror, system, Nameplate.of(gpus[slug]))
        if entry:
            document["gpus"][slug] = entry
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(dump(document), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
