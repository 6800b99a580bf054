"""``python manage.py estimate``: the estimation core from the shell.

    manage.py estimate meta-llama/Llama-3.1-8B-Instruct --precision q4_k_m --engine llama.cpp --context 32K
    manage.py estimate path/to/config.json --params 8.03e9 --json
    manage.py estimate qwen/qwen3-32b --gpu "H100 80GB" --gpu mac-64 --max-context --speed
    manage.py estimate qwen/qwen3-32b --gpu h100-sxm --speed --price-per-gpu-hour 2.49 --api-price 0.4,1.6

A catalog id (any case) is read from the recorded Hub data the catalog ships (``models_catalog/data/hub``); a
path to a ``config.json`` needs nothing else. GPU specs come from ``pricing/gpus.py``. No database is touched.
"""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.utils import translation

from calculator.estimation import (
    GIB,
    ApiPrice,
    Breakdown,
    EngineSettings,
    Term,
    TrafficMix,
    apple_fit,
    break_even,
    cost_per_hour,
    cost_per_million_tokens,
    cost_per_month,
    cuda_visible_bytes,
    engine_capacity,
    estimate,
    get_precision,
    gpus_needed,
    max_concurrency,
    max_context,
    nodes_needed,
    speed,
    tensor_parallel_size,
    usable_bytes,
)
from calculator.estimation.launch import LaunchConfig, launch_command
from calculator.estimation.offload import OffloadVerdict, best_quant_verdict, offload_verdict
from calculator.management.options import (
    MAX_GPUS,
    MAX_MAC_GB,
    Hardware,
    Machine,
    Request,
    add_workload_arguments,
    as_hardware,
    find_hardware,
    gpu_slugs,
    mac,
    mode_change_json,
    mode_change_note,
    one_line_errors,
    parse_decimal,
    parse_fraction,
    parse_int,
    parse_tokens_argument,
    read_request,
    usage_error,
)
from calculator.term_text import term_formula, term_label
from models_catalog.architecture import ModelSpec
from pricing.gpus import GpuSpec, load_gpus

# Engines that split one replica over GPUs by tensor parallelism, so the GPU count must divide the heads.
TENSOR_PARALLEL_ENGINES = frozenset({"vllm", "sglang", "tensorrt-llm"})
# Engines whose start-up KV-cache size the core reproduces (calculator/estimation/capacity.py).
CAPACITY_ENGINES = frozenset({"vllm", "sglang"})
MAX_PRICE_PER_GPU_HOUR = Decimal(1000)
MAX_TENSOR_PARALLEL = 64
MAX_API_PRICE = Decimal(10_000)


def default_hardware() -> list[Hardware]:
    """One GPU per family (interchangeable GPUs fit alike), then each unified-memory machine once."""
    listed: list[Hardware] = []
    seen: set[str] = set()
    for gpu in load_gpus():
        family = gpu.family or gpu.slug
        if family not in seen:
            seen.add(family)
            listed.append(as_hardware(gpu))
    return listed


def _tensor_parallel(count: int, spec: ModelSpec) -> int | None:
    return tensor_parallel_size(count, spec.num_attention_heads, spec.num_kv_heads)


def gpu_row(total_bytes: int, gpu: GpuSpec, spec: ModelSpec) -> dict[str, Any]:
    count = gpus_needed(total_bytes, gpu.memory_bytes)
    return {
        "slug": gpu.slug,
        "name": gpu.short_name or gpu.name,
        "memory_bytes": gpu.memory_bytes,
        "count": count,
        "nodes": nodes_needed(count),
        # the GPUs a tensor-parallel engine would run: the next count that divides the attention heads
        "tensor_parallel": _tensor_parallel(count, spec),
    }


def machine_row(total_bytes: int, machine: Machine) -> dict[str, Any]:
    """One machine: fits its GPU limit, fits after raising it (Macs: the sysctl value), or does not fit."""
    row: dict[str, Any] = {"slug": machine.slug, "name": machine.name, "memory_bytes": machine.memory_bytes}
    if machine.apple:
        found = apple_fit(total_bytes, machine.memory_bytes)
        verdict = "fits" if found.fits_default else "raise" if found.fits_after_raise else "no"
        return {
            **row,
            "verdict": verdict,
            "gpu_limit_bytes": found.default_limit_bytes,
            "max_gpu_limit_bytes": found.max_raised_limit_bytes,
            "wired_limit_mb": found.wired_limit_mb,
            "command": found.command,
        }
    usable = usable_bytes(machine.memory_bytes)
    verdict = "fits" if total_bytes <= usable else "no"
    return {
        **row,
        "verdict": verdict,
        "gpu_limit_bytes": usable,
        "max_gpu_limit_bytes": usable,
        "wired_limit_mb": None,
        "command": None,
    }


def machine_budget(machine: Machine) -> int:
    """What the inverse questions may fill: a Mac's raised GPU limit, another box's memory at 90 %."""
    if machine.apple:
        return apple_fit(0, machine.memory_bytes).max_raised_limit_bytes
    return usable_bytes(machine.memory_bytes)


def speed_json(request: Request, hardware: Hardware, count: int) -> dict[str, Any]:
    """Decode and prefill rates (core ``speed``); the first token after a prompt of the whole context."""
    found = speed(request.spec, request.workload, hardware, count)
    prefill = found.prefill_tokens_per_s
    return {
        "gpus": count,
        "decode_per_request": {"low": found.per_request_tokens_per_s_low, "high": found.per_request_tokens_per_s_high},
        "decode_total": {"low": found.decode_tokens_per_s_low, "high": found.decode_tokens_per_s_high},
        "prefill": prefill,
        "ttft_s": request.workload.context / prefill if prefill else None,
        "bound": found.bound,
        "bytes_read_per_step": found.bytes_read_per_step,
    }


def capacity_json(request: Request, gpu: GpuSpec, row: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """What vLLM / SGLang report at start-up on ``gpu``: KV-cache tokens and maximum concurrency."""
    workload = request.workload
    tp = options["tp"] or row["tensor_parallel"] or 1
    settings = EngineSettings(
        engine=workload.engine,
        tensor_parallel=tp,
        gpu_memory_utilization=options["gpu_memory_utilization"],
        max_model_len=options["max_model_len"] or workload.context,
        max_num_seqs=options["max_num_seqs"],
        precision=workload.precision,
        kv_dtype=workload.kv_dtype,
    )
    found = engine_capacity(request.spec, cuda_visible_bytes(gpu.memory_gb), settings)
    return {
        "gpu": gpu.slug,
        "engine": found.engine,
        "tensor_parallel": tp,
        "max_model_len": settings.max_model_len,
        "kv_cache_tokens": found.kv_cache_tokens,
        "max_concurrency": found.max_concurrency,
        "fits": found.fits,
    }


def parse_api_price(text: str) -> ApiPrice:
    """``input,output`` or ``input,output,cached input``: USD per million tokens."""
    parts = [p for p in text.replace(";", ",").split(",") if p.strip()]
    if len(parts) not in (2, 3):
        raise usage_error("--api-price", f"expected INPUT,OUTPUT[,CACHED] in USD per million tokens, got {text!r}")
    prices = [float(parse_decimal("--api-price", p, MAX_API_PRICE, allow_zero=True)) for p in parts]
    return ApiPrice(prices[0], prices[1], prices[2] if len(prices) == 3 else None)


def cost_json(options: dict[str, Any], price: Decimal, billed_gpus: int, tokens_per_s: float | None) -> dict[str, Any]:
    """Self-hosting at a given price per GPU-hour: per hour and month, per million tokens, against an API."""
    per_hour = cost_per_hour(float(price), billed_gpus)
    per_month = cost_per_month(per_hour)
    result: dict[str, Any] = {
        "price_per_gpu_hour_usd": float(price),
        "billed_gpus": billed_gpus,
        "per_hour_usd": per_hour,
        "per_month_usd": per_month,
        # the conservative end of the decode range, as the model page uses it
        "tokens_per_s": tokens_per_s,
        "per_million_tokens_usd": cost_per_million_tokens(per_hour, tokens_per_s),
        "break_even": None,
    }
    if options["api_price"]:
        api = parse_api_price(options["api_price"])
        ratio = float(parse_decimal("--input-ratio", options["input_ratio"], Decimal(1000), allow_zero=True))
        cached = parse_int("--cached-share", options["cached_share"], 100, lower=0)
        mix = TrafficMix(input_tokens_per_output_token=ratio, cached_input_share=cached / 100)
        found = break_even(per_month, api, mix, date.today(), tokens_per_s)
        result["break_even"] = {
            "api_input_per_million_usd": api.input_per_million_usd,
            "api_output_per_million_usd": api.output_per_million_usd,
            "input_tokens_per_output_token": ratio,
            "cached_input_share": cached / 100,
            "api_per_million_output_usd": found.api_per_million_output_usd,
            "break_even_output_tokens_per_month": found.break_even_output_tokens_per_month,
            "self_host_capacity_tokens_per_month": found.self_host_capacity_tokens_per_month,
            "self_host_can_reach_break_even": found.self_host_can_reach_break_even,
        }
    return result


def precision_used(breakdown: Breakdown) -> str:
    """The precision the weights were computed in, as the core reports it (the workload's when it does not)."""
    return str(getattr(breakdown, "precision_used", "") or breakdown.workload.precision)


def as_json(request: Request, breakdown: Breakdown, rows: list[dict[str, Any]]) -> dict[str, Any]:
    workload = breakdown.workload
    overridden = request.overridden
    return {
        "model": request.model,
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
        "precision_used": precision_used(breakdown),
        "mode_change": mode_change_json(request),
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
        "gpus": [row for row in rows if "count" in row],
        "machines": [row for row in rows if "verdict" in row],
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


def parse_memory(argument: str, text: str) -> int:
    """``128GiB``, ``64GB`` or a bare number of GiB, in bytes."""
    cleaned = text.strip().lower().replace(" ", "")
    unit = GIB
    for suffix, size in (("gib", GIB), ("gb", 10**9), ("g", GIB)):
        if cleaned.endswith(suffix):
            cleaned, unit = cleaned[: -len(suffix)], size
            break
    value = parse_decimal(argument, cleaned, Decimal(1 << 20))
    return int(value * unit)


def offload_json(verdict: OffloadVerdict) -> dict[str, Any]:
    split, found = verdict.split, verdict.speed
    return {
        "fits": verdict.fits,
        "placement": split.placement.value,
        "ftype": split.ftype,
        "gpus": split.gpus,
        "gpu_layers": split.gpu_layers,
        "cpu_moe_layers": split.cpu_moe_layers,
        "gpu_bytes": split.gpu_bytes,
        "per_gpu_bytes": split.per_gpu_bytes,
        "host_bytes": split.host_bytes,
        "gpu_weights_bytes": split.gpu_weights_bytes,
        "gpu_kv_bytes": split.gpu_kv_bytes,
        "gpu_compute_bytes": split.gpu_compute_bytes,
        "host_weights_bytes": split.host_weights_bytes,
        "host_kv_bytes": split.host_kv_bytes,
        "host_compute_bytes": split.host_compute_bytes,
        "gpu_budget_bytes": verdict.gpu_budget_bytes,
        "ram_budget_bytes": verdict.ram_budget_bytes,
        "speed": {
            "tokens_per_s": found.tokens_per_s,
            "low": found.low,
            "high": found.high,
            "limit": found.limit,
            "estimated": found.estimated,
            "inputs": dict(found.inputs),
        },
    }


def _gb(value: float | int) -> str:
    return f"{value / 1e9:,.1f} GB"


def _rate(low: float | None, high: float | None) -> str:
    return f"{low:,.0f}–{high:,.0f} tokens/s" if low and high else "unknown (no bandwidth on record)"


class Command(BaseCommand):
    help = "Estimate the memory a model needs and the GPUs that hold it (GB = 10^9 bytes; Mac memory in GiB)."

    def create_parser(self, prog_name: str, subcommand: str, **kwargs: Any) -> CommandParser:
        return one_line_errors(super().create_parser(prog_name, subcommand, **kwargs))

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("model", help="catalog model id (org/name, any case) or a path to a config.json")
        add_workload_arguments(parser)
        parser.add_argument(
            "--gpu",
            action="append",
            default=[],
            help="GPU slug or the name the output prints (repeatable; default: one of each); mac-<GB> for a Mac "
            "of that memory. Slugs: " + ", ".join(gpu_slugs()),
        )
        parser.add_argument("--mac", action="append", default=[], help="unified memory of a Mac in GB (repeatable)")
        parser.add_argument(
            "--gpus",
            help="GPUs of each --gpu for --max-context, --max-concurrency, --speed (default 1; speed: as needed)",
        )
        parser.add_argument("--max-context", action="store_true", help="longest context that fits each --gpu/--mac")
        parser.add_argument(
            "--max-concurrency", action="store_true", help="most parallel requests that fit each --gpu/--mac"
        )
        parser.add_argument("--speed", action="store_true", help="decode and prefill tokens/s on each --gpu/--mac")
        parser.add_argument(
            "--price-per-gpu-hour", help="USD per GPU-hour on the first --gpu: cost per month and per million tokens"
        )
        parser.add_argument(
            "--api-price", help="a hosted API's USD per million tokens, INPUT,OUTPUT[,CACHED]: the break-even"
        )
        parser.add_argument("--input-ratio", default="3", help="input tokens per generated token (default 3)")
        parser.add_argument("--cached-share", default="0", help="percent of input the API serves from cache")
        parser.add_argument("--tp", help="tensor-parallel size for the engine capacity (default: what the need takes)")
        parser.add_argument("--gpu-memory-utilization", help="vLLM gpu_memory_utilization / SGLang mem_fraction_static")
        parser.add_argument("--max-model-len", help="tokens per request the engine is started with (default --context)")
        parser.add_argument("--max-num-seqs", help="most sequences the engine schedules at once")
        parser.add_argument(
            "--offload",
            choices=["auto", "auto-quant"],
            help="llama.cpp split over the first --gpu (× --gpus) and --ram: all on GPU, experts in RAM or N layers; "
            "auto-quant: the largest GGUF type that fits",
        )
        parser.add_argument("--ram", help="system RAM for --offload, e.g. 128GiB or 64GB")
        parser.add_argument("--ram-bandwidth", help="RAM bandwidth in GB/s for --offload (default 89.6: DDR5-5600 ×2)")
        parser.add_argument(
            "--launch", choices=["vllm", "sglang", "llama.cpp", "ollama", "mlx"], help="print the command that runs it"
        )
        parser.add_argument("--json", action="store_true", help="print JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        hardware = [find_hardware(text) for text in options["gpu"]]
        hardware += [mac(parse_int("--mac", text, MAX_MAC_GB, lower=8)) for text in options["mac"]]
        count = parse_int("--gpus", options["gpus"], MAX_GPUS) if options["gpus"] is not None else None
        price = None
        if options["price_per_gpu_hour"] is not None:
            price = parse_decimal("--price-per-gpu-hour", options["price_per_gpu_hour"], MAX_PRICE_PER_GPU_HOUR)
        for flag in ("max_context", "max_concurrency", "speed"):
            if options[flag] and not hardware:
                raise usage_error(f"--{flag.replace('_', '-')}", "name the hardware with --gpu or --mac")
        if price is not None and not hardware:
            raise usage_error("--price-per-gpu-hour", "name the hardware with --gpu")
        if options["api_price"] and price is None:
            raise usage_error("--api-price", "the break-even needs --price-per-gpu-hour")
        self._engine_options(options)
        request = read_request(options)
        breakdown = estimate(request.spec, request.workload)
        total = breakdown.total_bytes
        rows = []
        for index, item in enumerate(hardware or default_hardware()):
            row = machine_row(total, item) if isinstance(item, Machine) else gpu_row(total, item, request.spec)
            if hardware:
                row.update(self._on_hardware(request, item, row, count, options, price if index == 0 else None))
            rows.append(row)
        # the engine capacity of the first GPU named (rows follow the hardware list one to one)
        capacity = None
        for item, row in zip(hardware, rows, strict=False):
            if isinstance(item, GpuSpec):
                if request.workload.engine in CAPACITY_ENGINES:
                    capacity = row["engine_capacity"] = capacity_json(request, item, row, options)
                break
        offload = self._offload(request, hardware, count, options)
        launch = self._launch(request, rows, offload, count, options)
        if options["json"]:
            data = as_json(request, breakdown, rows)
            if offload is not None:
                data["offload"] = offload_json(offload)
            if launch is not None:
                data["launch"] = launch
            first = rows[0] if hardware else {}
            if capacity is not None:
                data["engine_capacity"] = capacity
            for key in ("speed", "cost"):
                if key in first:
                    data[key] = first[key]
            self.stdout.write(json.dumps(data, indent=2))
            return
        self._print_text(request, breakdown, rows)
        if offload is not None:
            self._print_offload(offload)
        if launch is not None:
            self.stdout.write(f"Launch ({launch['engine']}):")
            for line in launch["script"].splitlines():
                self.stdout.write(f"  {line}")

    @staticmethod
    def _offload(
        request: Request, hardware: list[Hardware], count: int | None, options: dict[str, Any]
    ) -> OffloadVerdict | None:
        if not options["offload"]:
            return None
        gpu = next((item for item in hardware if isinstance(item, GpuSpec)), None)
        if gpu is None:
            raise usage_error("--offload", "name the GPU with --gpu")
        if not options["ram"]:
            raise usage_error("--ram", "--offload needs the system RAM, e.g. --ram 128GiB")
        ram = parse_memory("--ram", options["ram"])
        bandwidth = None
        if options["ram_bandwidth"] is not None:
            bandwidth = float(parse_decimal("--ram-bandwidth", options["ram_bandwidth"], Decimal(10_000)))
        kwargs: dict[str, Any] = {
            "gpu_memory_gb": gpu.memory_gb,
            "gpu_bandwidth_gbps": gpu.memory_bandwidth_gbps,
            "ram_bytes": ram,
            "gpus": count or 1,
            "ram_bandwidth_gbps": bandwidth,
            "experts_allowed": request.workload.engine != "ollama",
        }
        if options["offload"] == "auto-quant":
            return best_quant_verdict(request.spec, request.workload, **kwargs)
        return offload_verdict(request.spec, request.workload, **kwargs)

    @staticmethod
    def _launch(
        request: Request,
        rows: list[dict[str, Any]],
        offload: OffloadVerdict | None,
        count: int | None,
        options: dict[str, Any],
    ) -> dict[str, Any] | None:
        engine = options["launch"]
        if not engine:
            return None
        w = request.workload
        tp = options["tp"] or count or next((r["tensor_parallel"] for r in rows if r.get("tensor_parallel")), 1)
        model = request.model
        split = offload.split if offload is not None else None
        if engine in ("llama.cpp", "ollama"):
            ftype = split.ftype if split else w.precision.upper().removeprefix("GGUF:")
            model = f"{request.model.split('/')[-1]}-{ftype}.gguf" if engine == "llama.cpp" else model
        rows_machine = [r for r in rows if r.get("wired_limit_mb")]
        config = LaunchConfig(
            engine=engine,
            model=model,
            context=options["max_model_len"] or w.context,
            concurrency=w.concurrency,
            precision=w.precision,
            kv_dtype=w.kv_dtype,
            tensor_parallel=tp if engine in ("vllm", "sglang") else 1,
            gpu_memory_utilization=options["gpu_memory_utilization"],
            max_num_seqs=options["max_num_seqs"],
            offload=split.placement.value if split else "gpu",
            gpu_layers=split.gpu_layers if split else None,
            cpu_moe_layers=split.cpu_moe_layers if split else 0,
            wired_limit_mb=rows_machine[0]["wired_limit_mb"] if rows_machine else None,
        )
        found = launch_command(config)
        return {"engine": found.engine, "argv": list(found.argv), "command": found.command, "script": found.script}

    def _print_offload(self, verdict: OffloadVerdict) -> None:
        split, found = verdict.split, verdict.speed
        out = self.stdout
        words = {
            "gpu": "fits on the GPU",
            "experts_cpu": "fits with all experts in RAM (-ot exps=CPU)",
            "n_cpu_moe": f"fits with the experts of {split.cpu_moe_layers} layers in RAM (--n-cpu-moe)",
            "layers": f"fits with {split.gpu_layers} layers on the GPU (-ngl)",
            "none": "does not fit GPU and RAM",
        }
        out.write(f"Offload (llama.cpp, {split.ftype}, {split.gpus} GPU(s)): {words[split.placement.value]}")
        out.write(
            f"  GPU {split.gpu_bytes / GIB:,.1f} GiB (per GPU {split.per_gpu_bytes / GIB:,.1f} of "
            f"{verdict.gpu_budget_bytes / GIB:,.1f}), RAM {split.host_bytes / GIB:,.1f} of "
            f"{verdict.ram_budget_bytes / GIB:,.1f} GiB"
        )
        if found.tokens_per_s:
            out.write(
                f"  decode ≈ {found.low:,.1f}–{found.high:,.1f} tokens/s (estimated, limited by "
                f"{found.limit.replace('_', ' ')}; RAM {found.inputs['ram_bandwidth_gbps']} GB/s)"
            )

    @staticmethod
    def _engine_options(options: dict[str, Any]) -> None:
        """The engine's start-up flags, checked and replaced by their values in ``options``."""
        if options["tp"] is not None:
            options["tp"] = parse_int("--tp", options["tp"], MAX_TENSOR_PARALLEL)
        if options["gpu_memory_utilization"] is not None:
            options["gpu_memory_utilization"] = parse_fraction(
                "--gpu-memory-utilization", options["gpu_memory_utilization"]
            )
        if options["max_model_len"] is not None:
            options["max_model_len"] = parse_tokens_argument("--max-model-len", options["max_model_len"])
        if options["max_num_seqs"] is not None:
            options["max_num_seqs"] = parse_int("--max-num-seqs", options["max_num_seqs"], 1 << 20)

    def _on_hardware(
        self,
        request: Request,
        hardware: Hardware,
        row: dict[str, Any],
        count: int | None,
        options: dict[str, Any],
        price: Decimal | None,
    ) -> dict[str, Any]:
        """The questions asked of one named piece of hardware: inverse fits, speed, cost."""
        extra: dict[str, Any] = {}
        spec, workload = request.spec, request.workload
        budget = machine_budget(hardware) if isinstance(hardware, Machine) else None
        inverse_gpus = 1 if isinstance(hardware, Machine) else count or 1
        if options["max_context"] or options["max_concurrency"]:
            extra["inverse_gpus"] = inverse_gpus
        if options["max_context"]:
            extra["max_context"] = max_context(spec, workload, hardware, inverse_gpus, budget_bytes=budget)
        if options["max_concurrency"]:
            extra["max_concurrency"] = max_concurrency(spec, workload, hardware, inverse_gpus, budget_bytes=budget)
        if options["speed"] or price is not None:
            running = 1
            if not isinstance(hardware, Machine):
                needed = count or row["count"]
                tensor_parallel = workload.engine in TENSOR_PARALLEL_ENGINES and count is None
                running = (row["tensor_parallel"] or needed) if tensor_parallel else needed
            found = speed_json(request, hardware, running)
            if options["speed"]:
                extra["speed"] = found
            if price is not None:
                extra["cost"] = cost_json(options, price, running, found["decode_total"]["low"])
        return extra

    def _print_text(self, request: Request, breakdown: Breakdown, rows: list[dict[str, Any]]) -> None:
        spec, w = request.spec, breakdown.workload
        out = self.stdout
        out.write(
            f"{request.model}: {spec.params_total / 1e9:,.2f} B parameters ({spec.params_source}), "
            f"{spec.params_active / 1e9:,.2f} B active"
        )
        used = get_precision(precision_used(breakdown))
        label = used.label if used else request.precision_label
        out.write(
            f"{w.mode} · {label} · {request.engine_name} · {w.context:,} tokens × {w.concurrency} · KV {w.kv_dtype}"
        )
        note = mode_change_note(request)
        if note:
            out.write(f"note: {note} (asked: {request.requested_mode} at {request.requested_precision})")
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
        gpus = [row for row in rows if "count" in row]
        machines = [row for row in rows if "verdict" in row]
        if gpus:
            out.write("GPUs needed at 90 % fill (≤ 8 per node):")
            for row in gpus:
                nodes = f", {row['nodes']} nodes" if row["nodes"] > 1 else ""
                tp = row["tensor_parallel"]
                runs = ""
                if w.engine in TENSOR_PARALLEL_ENGINES and tp and tp != row["count"]:
                    runs = f" (tensor parallel runs {tp})"
                out.write(f"  {row['count']:>4} × {row['name']}{nodes}{runs}")
                self._print_extra(row)
        if machines:
            out.write("One machine each (unified memory, never stacked):")
            for row in machines:
                out.write(f"  {row['name']}: {self._verdict(row)}")
                self._print_extra(row)

    @staticmethod
    def _verdict(row: dict[str, Any]) -> str:
        if row["verdict"] == "fits":
            return f"fits (GPU limit {_gb(row['gpu_limit_bytes'])})"
        if row["verdict"] == "raise":
            return f"fits after raising the GPU limit: {row['command']}"
        return f"does not fit (at most {_gb(row['max_gpu_limit_bytes'])} for the GPU)"

    def _print_extra(self, row: dict[str, Any]) -> None:
        out = self.stdout
        capacity = row.get("engine_capacity")
        if capacity:
            engine = "SGLang" if capacity["engine"] == "sglang" else "vLLM"
            out.write(
                f"        {engine} at start-up (TP {capacity['tensor_parallel']}): KV cache "
                f"{capacity['kv_cache_tokens']:,} tokens, maximum concurrency {capacity['max_concurrency']:,.2f}x "
                f"for {capacity['max_model_len']:,} tokens per request"
                + ("" if capacity["fits"] else " (does not start: one request does not fit)")
            )
        unified = "verdict" in row
        gpus = row.get("inverse_gpus", 1)
        on = "on this machine" if unified else f"on {gpus} GPU{'s' if gpus > 1 else ''}"
        if "max_context" in row:
            out.write(f"        longest context {on}: {row['max_context']:,} tokens")
        if "max_concurrency" in row:
            out.write(f"        most parallel requests {on}: {row['max_concurrency']:,}")
        found = row.get("speed")
        if found:
            per, total = found["decode_per_request"], found["decode_total"]
            running = "" if unified else f" on {found['gpus']} GPU{'s' if found['gpus'] > 1 else ''}"
            if per["low"] is None:
                out.write(f"        speed{running}: unknown (no memory bandwidth on record; name the chip)")
            else:
                out.write(f"        decode{running}: {_rate(per['low'], per['high'])} per request")
            if total["low"] and total["low"] != per["low"]:
                out.write(f"        decode, all requests: {_rate(total['low'], total['high'])}")
            if found["prefill"]:
                out.write(
                    f"        prefill: {found['prefill']:,.0f} tokens/s; first token after {found['ttft_s']:.2f} s"
                )
        cost = row.get("cost")
        if cost:
            out.write(
                f"        ${cost['per_hour_usd']:,.2f}/h for {cost['billed_gpus']} GPU(s), "
                f"${cost['per_month_usd']:,.0f}/month"
            )
            if cost["per_million_tokens_usd"] is not None:
                out.write(f"        ${cost['per_million_tokens_usd']:,.2f} per million generated tokens")
            even = cost["break_even"]
            if even:
                volume = even["break_even_output_tokens_per_month"]
                out.write(
                    f"        the API costs ${even['api_per_million_output_usd']:,.2f} per million generated tokens"
                )
                if volume is not None:
                    reach = even["self_host_can_reach_break_even"]
                    tail = "" if reach is None else "; reachable" if reach else "; beyond what this hardware generates"
                    out.write(f"        break-even at {volume / 1e6:,.0f} M generated tokens a month{tail}")
