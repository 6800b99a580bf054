"""One engine's block per GPU: the version it is read at, the tables that serve each kind of kernel, and the curves."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from . import DTYPES, ENGINES, MOE_TP_MAX, MOE_TP_ROUTING, Row
from .mirror import Mirror
from .shares import Nameplate, all_reduce_curves, context_efficiency, gemm_curve, generation_fit, moe_curve, moe_filter


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
