"""``python manage.py estimate``: the estimation core from the shell.

    manage.py estimate meta-llama/Llama-3.1-8B-Instruct --precision q4_k_m --engine llama.cpp --context 32768
    manage.py estimate path/to/config.json --params 8.03e9 --json

A catalog id is read from the recorded Hub data the catalog ships (``models_catalog/data/hub``); a path to a
``config.json`` needs nothing else. GPU specs come from ``pricing/gpus.py``. No database is touched.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import translation

from calculator.estimation import (
    ENGINES,
    KV_DTYPES,
    MODES,
    Breakdown,
    Mode,
    Term,
    Workload,
    estimate,
    get_engine,
    get_kv_dtype,
    get_precision,
    gpus_needed,
    nodes_needed,
)
from calculator.term_text import term_formula, term_label
from models_catalog.architecture import ModelSpec
from models_catalog.specs import SpecUnavailable, param_counts, spec_from_config, spec_from_recorded_folder
from pricing.gpus import GpuSpec, gpu_by_slug, load_gpus

HUB_DIR = Path(__file__).resolve().parents[3] / "models_catalog" / "data" / "hub"
USAGE_EXIT = 2
MAX_CONTEXT = 1 << 24
MAX_CONCURRENCY = 1 << 16
_COUNT = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?(?:e[0-9]+)?)\s*([kmbt]?)\s*$", re.IGNORECASE)
_SUFFIX = {"": 1, "k": 10**3, "m": 10**6, "b": 10**9, "t": 10**12}


def _fail(argument: str, message: str) -> CommandError:
    return CommandError(f"{argument}: {message}", returncode=USAGE_EXIT)


def parse_count(argument: str, text: str) -> int:
    """``8030261248``, ``8.03e9``, ``321.3B``, ``25.4b`` → parameters."""
    match = _COUNT.match(text)
    if not match:
        raise _fail(argument, f"expected a parameter count such as 8.03e9 or 321.3B, got {text!r}")
    value = round(float(match.group(1)) * _SUFFIX[match.group(2).lower()])
    if value <= 0:
        raise _fail(argument, "must be positive")
    return value


def _positive_int(argument: str, text: str, upper: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise _fail(argument, f"expected a whole number, got {text!r}") from None
    if not 1 <= value <= upper:
        raise _fail(argument, f"must be between 1 and {upper:,}, got {value:,}")
    return value


def load_spec(model: str, params: int | None, active: int | None) -> tuple[str, ModelSpec, bool]:
    """(display name, spec, whether the counts were overridden) for a catalog id or a config.json path."""
    path = Path(model)
    overridden = params is not None or active is not None
    try:
        if path.suffix == ".json" or path.is_file():
            if not path.is_file():
                raise _fail("model", f"no such file {model!r}")
            try:
                config = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
                raise _fail("model", f"cannot read {path}: {exc}") from None
            return str(path), spec_from_config(config, param_counts(params, active)), overridden
        folder = HUB_DIR / model
        if "/" not in model or not (folder / "config.json").is_file():
            raise _fail("model", f"{model!r} is neither a catalog model id nor a path to a config.json")
        return model, spec_from_recorded_folder(folder, params, active), overridden
    except SpecUnavailable as unavailable:
        raise _fail("model", f"cannot size {model}: {unavailable}") from None


def gpu_rows(total_bytes: int, gpus: list[GpuSpec]) -> list[dict[str, Any]]:
    rows = []
    seen: set[str] = set()
    for gpu in gpus:
        family = gpu.family or gpu.slug
        if family in seen:
            continue
        seen.add(family)
        count = gpus_needed(total_bytes, gpu.memory_bytes)
        rows.append(
            {
                "slug": gpu.slug,
                "name": gpu.short_name or gpu.name,
                "memory_bytes": gpu.memory_bytes,
                "count": count,
                "nodes": nodes_needed(count),
            }
        )
    return rows


def as_json(name: str, breakdown: Breakdown, gpus: list[dict[str, Any]], overridden: bool) -> dict[str, Any]:
    workload = breakdown.workload
    return {
        "model": name,
        "params_total": breakdown.params_total,
        "params_active": breakdown.params_active,
        "params_source": "override" if overridden else breakdown.params_source,
        "params_active_source": "override" if overridden else breakdown.params_active_source,
        "workload": {
            "mode": str(workload.mode),
            "precision": workload.precision,
            "context": workload.context,
            "concurrency": workload.concurrency,
            "engine": workload.engine,
            "kv_dtype": workload.kv_dtype,
        },
        "weights_bytes": breakdown.weights_bytes,
        "gpu_weights_bytes": breakdown.bytes_of("weights"),
        "kv_cache_bytes": breakdown.kv_cache_bytes,
        "activations_bytes": breakdown.activations_bytes,
        "overhead_bytes": breakdown.overhead_bytes,
        "total_bytes": breakdown.total_bytes,
        "host_bytes": breakdown.host_bytes,
        "estimated_fields": list(breakdown.estimated_fields),
        "warnings": list(breakdown.warnings),
        "terms": [term_json(t) for t in breakdown.terms],
        "gpus": gpus,
    }


def term_json(term: Term) -> dict[str, Any]:
    worded: dict[str, str] = {}
    for language in ("en", "de"):
        with translation.override(language):
            worded[f"label_{language}"] = term_label(term)
            worded[f"formula_{language}"] = term_formula(term)
    return {
        "key": term.key,
        "variant": term.variant,
        "bytes": term.bytes,
        **worded,
        "inputs": dict(term.inputs),
        "estimated": term.estimated,
        "on_gpu": term.on_gpu,
    }


class Command(BaseCommand):
    help = "Estimate the memory a model needs and the GPUs that hold it (GB = 10^9 bytes)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("model", help="catalog model id (org/name) or a path to a config.json")
        parser.add_argument("--params", help="total parameters, overriding the recorded count (8.03e9, 321.3B)")
        parser.add_argument("--active-params", help="parameters active per token (MoE)")
        parser.add_argument(
            "--precision",
            default="fp16",
            help="fp32 fp16 bf16 fp8 int8 int4 nf4 mxfp4 awq gptq mlx-2bit … mlx-8bit, or a GGUF type (Q4_K_M, IQ4_XS)",
        )
        parser.add_argument("--mode", default="inference", help=" | ".join(MODES))
        parser.add_argument("--context", default="8192", help="tokens per request")
        parser.add_argument("--concurrency", default="1", help="requests served in parallel")
        parser.add_argument("--engine", default="vllm", help=" | ".join(ENGINES))
        parser.add_argument("--kv-dtype", default="fp16", help=" | ".join(KV_DTYPES))
        parser.add_argument("--gpu", action="append", default=[], help="GPU slug (repeatable); default: all")
        parser.add_argument("--json", action="store_true", help="print JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        precision = get_precision(options["precision"])
        if precision is None:
            raise _fail("--precision", f"unknown precision {options['precision']!r}")
        try:
            mode = Mode(options["mode"].strip().lower())
        except ValueError:
            raise _fail("--mode", f"expected one of {', '.join(MODES)}, got {options['mode']!r}") from None
        engine = get_engine(options["engine"])
        if engine is None:
            raise _fail("--engine", f"expected one of {', '.join(ENGINES)}, got {options['engine']!r}")
        kv_dtype = get_kv_dtype(options["kv_dtype"])
        if kv_dtype is None:
            raise _fail("--kv-dtype", f"expected one of {', '.join(KV_DTYPES)}, got {options['kv_dtype']!r}")
        context = _positive_int("--context", options["context"], MAX_CONTEXT)
        concurrency = _positive_int("--concurrency", options["concurrency"], MAX_CONCURRENCY)
        params = parse_count("--params", options["params"]) if options["params"] is not None else None
        active = (
            parse_count("--active-params", options["active_params"]) if options["active_params"] is not None else None
        )
        gpus: list[GpuSpec] = []
        for slug in options["gpu"]:
            gpu = gpu_by_slug(slug.strip().lower())
            if gpu is None:
                raise _fail("--gpu", f"unknown GPU {slug!r}")
            gpus.append(gpu)
        name, spec, overridden = load_spec(options["model"], params, active)
        workload = Workload(
            mode=mode,
            precision=precision.key,
            context=context,
            concurrency=concurrency,
            engine=engine.key,
            kv_dtype=kv_dtype.key,
        )
        breakdown = estimate(spec, workload)
        rows = gpu_rows(breakdown.total_bytes, gpus or list(load_gpus()))
        if options["json"]:
            self.stdout.write(json.dumps(as_json(name, breakdown, rows, overridden), indent=2))
            return
        self._print_text(name, spec, breakdown, rows, precision.label, engine.name)

    def _print_text(
        self, name: str, spec: ModelSpec, breakdown: Breakdown, rows: list[dict[str, Any]], precision: str, engine: str
    ) -> None:
        w = breakdown.workload
        out = self.stdout
        out.write(
            f"{name}: {spec.params_total / 1e9:,.2f} B parameters ({spec.params_source}), "
            f"{spec.params_active / 1e9:,.2f} B active"
        )
        out.write(f"{w.mode} · {precision} · {engine} · {w.context:,} tokens × {w.concurrency} · KV {w.kv_dtype}")
        for term in breakdown.terms:
            where = "" if term.on_gpu else " (host RAM)"
            flag = " (estimated)" if term.estimated else ""
            with translation.override("en"):  # the command speaks English throughout
                label, formula = term_label(term), term_formula(term)
            out.write(f"  {label:<34} {term.bytes / 1e9:>12,.2f} GB{where}{flag}")
            out.write(f"      {formula}")
        out.write(f"  {'Total (GPU)':<34} {breakdown.total_bytes / 1e9:>12,.2f} GB")
        for warning in breakdown.warnings:
            out.write(f"  note: {warning}")
        out.write("GPUs needed at 90 % fill (≤ 8 per node):")
        for row in rows:
            nodes = f", {row['nodes']} nodes" if row["nodes"] > 1 else ""
            out.write(f"  {row['count']:>4} × {row['name']}{nodes}")
