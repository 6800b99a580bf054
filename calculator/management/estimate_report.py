"""What ``manage.py estimate`` answers, before it is worded: the hardware rows and the questions asked of them.

``estimate_report(options)`` checks the options the command does not parse itself, runs the core once and asks
each named GPU or machine the inverse fits, speed, cost, engine capacity, offload split and launch command. The
answers are plain dicts and the core's own results; ``estimate_output`` words them as text or JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

from calculator.estimation import (
    GIB,
    Breakdown,
    EngineSettings,
    Workload,
    apple_fit,
    engine_capacity,
    estimate,
    max_concurrency,
    max_context,
    nodes_needed,
    speed,
    usable_bytes,
)
from calculator.estimation.engines.builds import build_bits, build_precision, released_precision
from calculator.estimation.engines.kernels import blocking_rule
from calculator.estimation.engines.launch import LaunchConfig, launch_command
from calculator.estimation.engines.sourcing import KnownBuild, SourceKind, weights_source
from calculator.estimation.memory.estimate import drafts_with_mtp
from calculator.estimation.plan.deployment import gpu_plan, mac_plan_for_need
from calculator.estimation.plan.offload_fit import OffloadVerdict, best_quant_verdict, offload_verdict
from calculator.estimation.plan.placement import TENSOR_PARALLEL_ENGINES
from calculator.estimation.plan.replica import replica_on
from calculator.estimation.precision import gguf_key
from calculator.labels import weights_source_text
from calculator.management.cost_report import cost_demand, cost_json
from calculator.management.options import (
    MAX_GPUS,
    MAX_MAC_GB,
    Hardware,
    Machine,
    Request,
    as_hardware,
    find_hardware,
    mac,
    parse_decimal,
    parse_fraction,
    parse_int,
    parse_tokens_argument,
    read_request,
    usage_error,
)
from models_catalog.architecture import ModelSpec
from models_catalog.records import load_reference_facts
from pricing.gpus import GpuSpec, load_gpus

# Engines that split one replica over GPUs by tensor parallelism, so the GPU count must divide the heads.
# Engines whose start-up KV-cache size the core reproduces (calculator/estimation/memory/capacity.py).
CAPACITY_ENGINES = frozenset({"vllm", "sglang"})
MAX_PRICE_PER_GPU_HOUR = Decimal(1000)
MAX_TENSOR_PARALLEL = 64


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


def gpu_row(total_bytes: int, gpu: GpuSpec, spec: ModelSpec, workload: Workload) -> dict[str, Any]:
    # the plan the model page reads: the GPUs the memory needs and the split vLLM / SGLang run on them
    plan = gpu_plan(spec, workload, gpu, need_bytes=total_bytes)
    return {
        "slug": gpu.slug,
        "name": gpu.short_name or gpu.name,
        "memory_bytes": gpu.memory_bytes,
        "count": plan.gpus_run,  # the GPUs an engine runs and a cloud rents (fit.run_count)
        "memory_count": plan.gpus_needed,  # the GPUs the memory needs: fewer beyond one node (whole nodes are rented)
        "nodes": plan.nodes,
        "tensor_parallel": plan.tensor_parallel,
        "pipeline_parallel": plan.pipeline_stages,
        "attention_data_parallel": plan.attention_data_parallel,
        "engine_gpus": plan.gpus_run,
        # False: the engine has no kernels for the model's attention on this GPU (engines/kernels.py)
        "starts": blocking_rule(spec, workload.engine, gpu.architecture) is None,
    }


def machine_row(total_bytes: int, machine: Machine, engine: str, macos: str) -> dict[str, Any]:
    """One machine: fits its GPU limit, fits after raising it (Macs: the sysctl value), or does not fit."""
    row: dict[str, Any] = {"slug": machine.slug, "name": machine.name, "memory_bytes": machine.memory_bytes}
    if machine.apple:
        plan = mac_plan_for_need(total_bytes, machine.memory_bytes, macos)
        return {
            **row,
            "verdict": plan.verdict,
            "gpu_limit_bytes": plan.fit.default_limit_bytes,
            "max_gpu_limit_bytes": plan.fit.max_raised_limit_bytes,
            "wired_limit_mb": plan.wired_limit_mb,
            "command": plan.fit.command,
        }
    usable = usable_bytes(machine.capacity_bytes, engine)
    verdict = "fits" if total_bytes <= usable else "no"
    return {
        **row,
        "verdict": verdict,
        "gpu_limit_bytes": usable,
        "max_gpu_limit_bytes": usable,
        "wired_limit_mb": None,
        "command": None,
    }


def machine_budget(machine: Machine, engine: str, macos: str) -> int:
    """What the inverse questions may fill: a Mac's raised GPU limit, another box's memory under the engine's
    budget."""
    if machine.apple:
        return apple_fit(0, machine.memory_bytes, macos).max_raised_limit_bytes
    return usable_bytes(machine.capacity_bytes, engine)


def speed_json(
    request: Request, hardware: Hardware, count: int, workload: Workload | None = None, gpus: int | None = None
) -> dict[str, Any]:
    """Decode and prefill rates (core ``speed``) of ``workload`` (default: the request's, as a named split runs it) at
    tensor-parallel degree ``count`` over ``gpus`` (more where pipeline stages follow one another); the first token
    after a prompt of the whole context."""
    found = speed(request.spec, workload or request.workload, hardware, count)
    prefill = found.prefill_tokens_per_s
    return {
        "gpus": gpus or count,
        "tensor_parallel": count,
        "decode_per_request": {"low": found.per_request_tokens_per_s_low, "high": found.per_request_tokens_per_s_high},
        "decode_total": {"low": found.decode_tokens_per_s_low, "high": found.decode_tokens_per_s_high},
        "prefill": prefill,
        "ttft_s": request.workload.context / prefill if prefill else None,
        # "spec": the vendor's dense FLOPs; "measured": a published llama.cpp prompt-processing run on this hardware
        "flops_basis": found.flops_basis or None,
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
        release=workload.engine_release,
        gpu_name=gpu.name,
        mtp_draft=drafts_with_mtp(request.spec, workload, workload.engine),
    )
    found = engine_capacity(request.spec, gpu.capacity_bytes, settings)
    return {
        "gpu": gpu.slug,
        "engine": found.engine,
        "tensor_parallel": tp,
        "max_model_len": settings.max_model_len,
        "release": found.release,
        "activation_bytes": found.activation_bytes,
        "non_torch_bytes": found.non_torch_bytes,
        "cudagraph_bytes": found.cudagraph_bytes,
        "kv_cache_bytes": found.kv_cache_bytes,
        "kv_cache_tokens": found.kv_cache_tokens,
        "max_concurrency": found.max_concurrency,
        "fits": found.fits,
    }


def inverse_from_capacity(row: dict[str, Any], capacity: dict[str, Any], model_limit: int | None) -> dict[str, Any]:
    """A GPU row's inverse answers from the engine's start-up figures where they are modelled, so the two lines agree
    (2 × H100 hold 13,328 tokens of Llama-3.3-70B's cache: one request of up to 13,328 tokens, one of 8,192 at a
    time): the longest context is the cache's tokens (vLLM refuses a longer max_model_len), capped at the model's
    limit; the most parallel requests its maximum concurrency, whole."""
    found: dict[str, Any] = {}
    if row.get("inverse_gpus", capacity["tensor_parallel"]) != capacity["tensor_parallel"]:
        return found  # --gpus asked about other GPUs than the start-up figures' split
    if "max_context" in row:
        tokens = capacity["kv_cache_tokens"]
        found["max_context"] = min(tokens, model_limit) if model_limit else tokens
    if "max_concurrency" in row:
        found["max_concurrency"] = int(capacity["max_concurrency"])
    return found


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


@dataclass(frozen=True)
class EstimateReport:
    """One run's answers: the breakdown, a row per hardware and what the first GPU named was asked."""

    request: Request
    breakdown: Breakdown
    # one per --gpu/--mac in the order named, or one per GPU family and machine when none is named
    rows: list[dict[str, Any]]
    hardware_named: bool
    capacity: dict[str, Any] | None
    offload: OffloadVerdict | None
    launch: dict[str, Any] | None


def estimate_report(options: dict[str, Any]) -> EstimateReport:
    """The command's options checked, the core asked; a bad value raises the one-line usage error."""
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
    parse_engine_options(options)
    request = read_request(options)
    breakdown = estimate(request.spec, request.workload)
    total = breakdown.total_bytes
    rows = []
    for index, item in enumerate(hardware or default_hardware()):
        row = (
            machine_row(total, item, request.workload.engine, options.get("macos") or "15")
            if isinstance(item, Machine)
            else gpu_row(total, item, request.spec, request.workload)
        )
        if hardware:
            row.update(hardware_answers(request, item, row, count, options, price if index == 0 else None))
        rows.append(row)
    # the engine capacity of the first GPU named (rows follow the hardware list one to one)
    capacity = None
    for item, row in zip(hardware, rows, strict=False):
        if isinstance(item, GpuSpec):
            # the start-up figures of one tensor-parallel group; pipeline stages (several nodes) and data-parallel
            # attention (one engine per GPU) are not modelled
            single_stage = options["tp"] or (
                row.get("pipeline_parallel", 1) == 1 and row.get("attention_data_parallel", 1) == 1
            )
            if request.workload.engine in CAPACITY_ENGINES and single_stage:
                capacity = row["engine_capacity"] = capacity_json(request, item, row, options)
                row.update(inverse_from_capacity(row, capacity, request.spec.max_context))
            break
    offload = offload_answer(request, hardware, count, options)
    launch = launch_answer(request, rows, offload, count, options)
    return EstimateReport(request, breakdown, rows, bool(hardware), capacity, offload, launch)


def offload_answer(
    request: Request, hardware: list[Hardware], count: int | None, options: dict[str, Any]
) -> OffloadVerdict | None:
    """The llama.cpp split over the first GPU named and ``--ram`` (``--offload``), or None when not asked."""
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
        "gpu_capacity_bytes": gpu.capacity_bytes,
        "gpu_bandwidth_gbps": gpu.memory_bandwidth_gbps,
        "ram_bytes": ram,
        "gpus": count or 1,
        "ram_bandwidth_gbps": bandwidth,
        "experts_allowed": request.workload.engine != "ollama",
    }
    if options["offload"] == "auto-quant":
        return best_quant_verdict(request.spec, request.workload, **kwargs)
    return offload_verdict(request.spec, request.workload, **kwargs)


def launch_answer(
    request: Request,
    rows: list[dict[str, Any]],
    offload: OffloadVerdict | None,
    count: int | None,
    options: dict[str, Any],
) -> dict[str, Any] | None:
    """The command that starts ``--launch``'s engine with this workload (and the offload split), or None."""
    engine = options["launch"]
    if not engine:
        return None
    w = request.workload
    planned = next((r for r in rows if r.get("tensor_parallel")), None)
    tp = options["tp"] or count or (planned["tensor_parallel"] if planned else 1)
    pp = 1 if options["tp"] or count or planned is None else planned["pipeline_parallel"]
    dp = 1 if options["tp"] or count or planned is None else planned.get("attention_data_parallel", 1)
    nodes = 1 if planned is None or pp == 1 else nodes_needed(planned["engine_gpus"])
    split = offload.split if offload is not None else None
    precision = gguf_key(split.ftype) if split and engine in ("llama.cpp", "ollama") else w.precision
    released = released_precision(request.spec.native_dtype)
    builds = recorded_builds(request.model, request.spec.params_total)
    source = weights_source(engine, request.model, released, precision, builds)
    if not source.runnable:
        missing = source.missing.value if source.missing else None
        reason = weights_source_text(source)
        return {"engine": engine, "argv": [], "command": None, "script": None, "missing": missing, "reason": reason}
    rows_machine = [r for r in rows if r.get("wired_limit_mb")]
    config = LaunchConfig(
        engine=engine,
        model=source.model,
        from_hub=source.kind is SourceKind.PUBLISHED,
        prepare=source.prepare,
        quantization=source.quantization,
        context=options["max_model_len"] or w.context,
        concurrency=w.concurrency,
        kv_dtype=w.kv_dtype,
        tensor_parallel=tp if engine in ("vllm", "sglang") else 1,
        pipeline_parallel=pp if engine in ("vllm", "sglang") else 1,
        attention_data_parallel=dp if engine in ("vllm", "sglang") else 1,
        nodes=nodes if engine in ("vllm", "sglang") else 1,
        gpu_memory_utilization=options["gpu_memory_utilization"],
        max_num_seqs=options["max_num_seqs"],
        offload=split.placement.value if split else "gpu",
        gpu_layers=split.gpu_layers if split else None,
        cpu_moe_layers=split.cpu_moe_layers if split else 0,
        wired_limit_mb=rows_machine[0]["wired_limit_mb"] if rows_machine else None,
        engine_release=w.engine_release if engine == w.engine else "",
        mtp_draft=drafts_with_mtp(request.spec, replace(w, engine=engine), engine),
    )
    found = launch_command(config)
    return {
        "engine": found.engine,
        "argv": list(found.argv),
        "command": found.command,
        "script": found.script,
        "source": source.kind.value,
        "repo": source.repo,
        "reason": weights_source_text(source),
    }


def _float(value: Decimal | None) -> float | None:
    return float(value) if value is not None else None


def recorded_builds(model_id: str, params_total: int) -> tuple[KnownBuild, ...]:
    """The published builds the recorded reference facts name for a catalog model (none for a config path)."""
    entry = load_reference_facts().get(model_id.lower(), {})
    return tuple(
        KnownBuild(
            b.format,
            b.label,
            b.repo_id,
            build_precision(b.format, b.label, build_bits(_float(b.bits_per_weight), b.file_size_bytes, params_total)),
        )
        for b in entry.get("builds", ())
    )


def parse_engine_options(options: dict[str, Any]) -> None:
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


def hardware_answers(
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
    macos = options.get("macos") or "15"
    budget = machine_budget(hardware, workload.engine, macos) if isinstance(hardware, Machine) else None
    # the GPUs asked for, else the plan's (the start-up line above counts the same GPUs)
    inverse_gpus = 1 if isinstance(hardware, Machine) else count or row.get("count") or 1
    if options["max_context"] or options["max_concurrency"]:
        extra["inverse_gpus"] = inverse_gpus
    if options["max_context"]:
        extra["max_context"] = max_context(spec, workload, hardware, inverse_gpus, budget_bytes=budget)
    if options["max_concurrency"]:
        extra["max_concurrency"] = max_concurrency(spec, workload, hardware, inverse_gpus, budget_bytes=budget)
    if options["speed"] or price is not None:
        running = billed = 1
        if not isinstance(hardware, Machine):
            needed = count or row["count"]
            tensor_parallel = workload.engine in TENSOR_PARALLEL_ENGINES and count is None
            running = (row["tensor_parallel"] or needed) if tensor_parallel else needed
            billed = needed if count else row.get("engine_gpus") or needed  # the plan's GPUs, every stage billed
            if tensor_parallel and row.get("attention_data_parallel", 1) > 1:  # the plan's data-parallel attention
                workload = replace(workload, attention_data_parallel=row["attention_data_parallel"])
        found = speed_json(request, hardware, running, workload, billed)
        if options["speed"]:
            extra["speed"] = found
        if price is not None:
            replica = demand = None
            if not isinstance(hardware, Machine) and workload.engine in CAPACITY_ENGINES:
                demand = cost_demand(options)
                replica = replica_on(spec, workload, hardware, running, max(1, billed // running), demand)
            extra["cost"] = cost_json(options, price, billed, found["decode_total"]["low"], replica, demand)
    return extra
