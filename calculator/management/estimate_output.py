"""How ``manage.py estimate`` words its answers: JSON for scripts, English text for a reader.

The figures come from ``estimate_report``; nothing here computes one. The text speaks English throughout; the JSON
carries each term's label and formula in every language the site speaks.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import OutputWrapper
from django.utils import translation

from calculator.estimation import GIB, Breakdown, Mode, Term, get_engine, get_precision
from calculator.estimation.engines.releases import release_label, vllm_release
from calculator.estimation.plan.offload_fit import OffloadVerdict
from calculator.estimation.plan.placement import TENSOR_PARALLEL_ENGINES
from calculator.management.estimate_report import EstimateReport
from calculator.management.options import Request, mode_change_json, mode_change_note
from calculator.term_text import term_formula, term_label


def write_report(report: EstimateReport, out: OutputWrapper, *, want_json: bool) -> None:
    """The report as indented JSON (``--json``) or as the text a reader scans, one line per write."""
    if want_json:
        out.write(json.dumps(report_json(report), indent=2))
        return
    write_text(out, report.request, report.breakdown, report.rows)
    if report.offload is not None:
        write_offload(out, report.offload)
    launch = report.launch
    if launch is not None and launch["script"] is None:
        out.write(f"Launch ({launch['engine']}): {launch['reason']}")
    elif launch is not None:
        out.write(f"Launch ({launch['engine']}): {launch['reason']}")
        for line in launch["script"].splitlines():
            out.write(f"  {line}")


def report_json(report: EstimateReport) -> dict[str, Any]:
    """The breakdown and rows, then what the first hardware named was asked (offload, launch, capacity, speed, cost)."""
    data = as_json(report.request, report.breakdown, report.rows)
    if report.offload is not None:
        data["offload"] = offload_json(report.offload)
    if report.launch is not None:
        data["launch"] = report.launch
    first = report.rows[0] if report.hardware_named else {}
    if report.capacity is not None:
        data["engine_capacity"] = report.capacity
    for key in ("speed", "cost"):
        if key in first:
            data[key] = first[key]
    return data


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
            "vllm_version": vllm_release(workload.engine_release).label if workload.engine == "vllm" else None,
            "engine_version": release_label(workload.engine, workload.engine_release) or None,
            "mtp_draft": breakdown.bytes_of("draft_weights") > 0,
        },
        "precision_used": precision_used(breakdown),
        "mode_change": mode_change_json(request),
        "weights_bytes": breakdown.weights_bytes,
        "gpu_weights_bytes": breakdown.bytes_of("weights", "weights_layout"),
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


def write_offload(out: OutputWrapper, verdict: OffloadVerdict) -> None:
    split, found = verdict.split, verdict.speed
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


def write_text(out: OutputWrapper, request: Request, breakdown: Breakdown, rows: list[dict[str, Any]]) -> None:
    spec, w = request.spec, breakdown.workload
    out.write(
        f"{request.model}: {spec.params_total / 1e9:,.2f} B parameters ({spec.params_source}), "
        f"{spec.params_active / 1e9:,.2f} B active"
    )
    used = get_precision(precision_used(breakdown))
    label = used.label if used else request.precision_label
    out.write(f"{w.mode} · {label} · {request.engine_name} · {w.context:,} tokens × {w.concurrency} · KV {w.kv_dtype}")
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
        out.write("GPUs an engine runs (8 per node; vLLM and SGLang fill 90 % of what each GPU's runtime reports):")
        for row in gpus:
            nodes = f" on {row['nodes']} nodes of 8" if row["nodes"] > 1 else ""
            tp, pp = row["tensor_parallel"], row.get("pipeline_parallel", 1)
            runs = ""
            serving = w.engine in TENSOR_PARALLEL_ENGINES and w.mode is Mode.INFERENCE  # fine-tuning shards otherwise
            if serving and row.get("attention_data_parallel", 1) > 1:
                runs = f" (data-parallel attention on {tp}: each GPU caches its own requests)"
            elif serving and pp > 1:
                runs = f" (tensor parallel {tp} × {pp} pipeline stages)"
            if row.get("memory_count", row["count"]) != row["count"]:
                runs += f"; the memory needs {row['memory_count']}, nodes are rented whole"
            if not row.get("starts", True):
                engine = get_engine(w.engine)
                name = engine.name if engine else w.engine
                runs = f" — cannot start: {name} has no kernels for this model's attention on it"
            out.write(f"  {row['count']:>4} × {row['name']}{nodes}{runs}")
            if row.get("starts", True):  # no start-up figures for a configuration that cannot start
                write_extra(out, row)
    if machines:
        out.write("One machine each (unified memory, never stacked):")
        for row in machines:
            out.write(f"  {row['name']}: {machine_verdict(row)}")
            write_extra(out, row)


def machine_verdict(row: dict[str, Any]) -> str:
    if row["verdict"] == "fits":
        return f"fits (GPU limit {_gb(row['gpu_limit_bytes'])})"
    if row["verdict"] == "raise":
        return f"fits after raising the GPU limit: {row['command']}"
    return f"does not fit (at most {_gb(row['max_gpu_limit_bytes'])} for the GPU)"


def write_extra(out: OutputWrapper, row: dict[str, Any]) -> None:
    capacity = row.get("engine_capacity")
    if capacity:
        engine = capacity.get("release") or ("SGLang" if capacity["engine"] == "sglang" else "vLLM")
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
            basis = " (from a measured llama.cpp run on this chip)" if found.get("flops_basis") == "measured" else ""
            out.write(
                f"        prefill: {found['prefill']:,.0f} tokens/s{basis}; first token after {found['ttft_s']:.2f} s"
            )
    cost = row.get("cost")
    if cost:
        out.write(
            f"        ${cost['per_hour_usd']:,.2f}/h for {cost['billed_gpus']} GPU(s), "
            f"${cost['per_month_usd']:,.0f}/month"
        )
        if cost["per_million_tokens_usd"] is not None:
            held = cost.get("replica")
            batch = ""
            if held:
                batch = (
                    f" with up to {held['concurrency']} requests at a time ({held['output_tokens_per_s']:,.0f} tokens/s"
                    f" within {held['tpot_s'] * 1000:,.0f} ms a token; sized for peaks of {cost['peak_factor']:g} ×"
                    " the average)"
                )
            out.write(f"        ${cost['per_million_tokens_usd']:,.2f} per million generated tokens{batch}")
        even = cost["break_even"]
        if even:
            volume = even["break_even_output_tokens_per_month"]
            out.write(f"        the API costs ${even['api_per_million_output_usd']:,.2f} per million generated tokens")
            if volume is not None:
                reach = even["self_host_can_reach_break_even"]
                tail = "" if reach is None else "; reachable" if reach else "; beyond what this hardware generates"
                out.write(f"        break-even at {volume / 1e6:,.0f} M generated tokens a month{tail}")
