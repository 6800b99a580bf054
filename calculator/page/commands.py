"""What to paste to start the configurations the page shows."""

from __future__ import annotations

from dataclasses import dataclass, replace

from calculator.estimation import GIB, Mode, Workload, apple_fit, estimate
from calculator.estimation.launch import LaunchConfig, launch_command
from calculator.estimation.sourcing import WeightsSource
from calculator.page.inputs import PageInputs

from .gpus import OfferRow
from .local import Local
from .setting import Setting


@dataclass(frozen=True, slots=True)
class Commands:
    """What to paste to start the configurations the page shows, and where each one's weights come from."""

    cloud_engine: str
    cloud: str  # the cheapest configuration, on vLLM or SGLang; "" when no build holds the precision
    cloud_gpus: int
    cloud_source: WeightsSource | None  # None: no cheapest configuration (or a fine-tuning page)
    mac_gib: int | None
    mac: str  # mlx_lm.server (with the sysctl line when the limit must be raised) on the smallest Mac that fits
    mac_source: WeightsSource | None


def _mlx_widths(key: str, inputs: PageInputs) -> tuple[str, ...]:
    """The MLX precisions that run what the local verdict ``key`` names, widest first, down to 4 bits."""
    if key.startswith("build:"):
        return (key,)
    start = {"fp16": "fp16", "int8": "mlx-8bit", "int4": "mlx-4bit"}.get(key)
    if start is None:  # FP8 or MXFP4: mlx-lm has no such width; a published MLX build may still exist
        return tuple(b.key for b in inputs.builds if b.format == "MLX") or (key,)
    ladder = ("fp16", "mlx-8bit", "mlx-6bit", "mlx-4bit")
    return ladder[ladder.index(start) :]


def commands_section(inputs: PageInputs, setting: Setting, cheapest: OfferRow | None, local: Local) -> Commands:
    """The launch commands for the cheapest cloud configuration and for the smallest Mac that holds the model, each
    naming weights that hold the precision it was sized for (sourcing.py), or none with the reason."""
    state, spec = inputs.state, inputs.spec
    engine = state.engine if state.engine in ("vllm", "sglang") else "vllm"
    cloud, gpus, cloud_source = "", 0, None
    if cheapest is not None and setting.mode is Mode.INFERENCE:
        plan = cheapest.plan  # the split the ranking priced, the one its speed and this command run
        gpus = plan.gpus_run
        cloud_source = inputs.weights_source(engine, setting.precision)
        if cloud_source.runnable:
            cloud = launch_command(
                LaunchConfig(
                    engine=engine,
                    model=cloud_source.model,
                    context=state.context,
                    concurrency=state.concurrency,
                    quantization=cloud_source.quantization,
                    kv_dtype=state.kv,
                    tensor_parallel=plan.tensor_parallel,
                    pipeline_parallel=plan.pipeline_stages,
                    gpu_memory_utilization=0.9,
                    max_num_seqs=state.concurrency if state.concurrency > 1 else None,
                    prepare=cloud_source.prepare,
                )
            ).script
    mac_gib, mac, mac_source = None, "", None
    # the smallest Mac the local section says holds the model, at the width it names there (MLX's nearest: INT8 →
    # 8-bit, INT4 → 4-bit, a 16-bit release as it is, a published MLX build itself), narrower MLX widths down to 4 bits
    # only when MLX's own need is larger than that Mac allows
    verdict = next((m for m in local.macs if m.verdict != "no"), None)
    if verdict is not None and verdict.best_key is not None:
        ram, mac_gib = verdict.ram_gib * GIB, verdict.ram_gib
        for precision in _mlx_widths(verdict.best_key, inputs):
            source = inputs.weights_source("mlx", precision)
            if not source.runnable:
                mac_source = mac_source or source
                continue
            build = next((b for b in inputs.builds if b.key == precision), None)
            sized = build.precision if build is not None else precision
            workload = Workload(precision=sized, context=state.context, concurrency=state.concurrency, engine="mlx")
            if build is not None and build.file_size_bytes:
                workload = replace(workload, weights_file_bytes=build.file_size_bytes)
            fitted = apple_fit(estimate(spec, workload).total_bytes, ram, state.macos)
            if fitted.fits_after_raise:
                mac_source = source
                mac = launch_command(
                    LaunchConfig(
                        engine="mlx",
                        model=source.model,
                        context=state.context,
                        concurrency=state.concurrency,
                        wired_limit_mb=fitted.wired_limit_mb,
                        prepare=source.prepare,
                    )
                ).script
                break
    return Commands(engine, cloud, gpus, cloud_source, mac_gib, mac, mac_source)
