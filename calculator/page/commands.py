"""What to paste to start the configurations the page shows."""

from __future__ import annotations

from dataclasses import dataclass

from calculator.estimation import GIB, Mode, Workload, apple_fit, estimate
from calculator.estimation.launch import LaunchConfig, launch_command
from calculator.estimation.sourcing import WeightsSource
from calculator.page.inputs import PageInputs
from calculator.state import MAC_MEMORY_GIB

from .gpus import OfferRow
from .setting import Setting

MLX_BITS = (8, 6, 4, 3, 2)
MLX_GOOD_BITS = (8, 6, 4)


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


def commands_section(inputs: PageInputs, setting: Setting, cheapest: OfferRow | None) -> Commands:
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
    # the smallest Mac that holds the model at 4 bits or more (the widest that fits there); 3 and 2 bits only when
    # nothing else fits even the largest Mac; only widths a published build or mlx-lm's converter provides
    for gib in MAC_MEMORY_GIB:
        ram = gib * GIB
        for bits in MLX_BITS if gib == MAC_MEMORY_GIB[-1] else MLX_GOOD_BITS:
            source = inputs.weights_source("mlx", f"mlx-{bits}bit")
            if not source.runnable:
                continue
            need = estimate(
                spec,
                Workload(
                    precision=f"mlx-{bits}bit", context=state.context, concurrency=state.concurrency, engine="mlx"
                ),
            ).total_bytes
            fitted = apple_fit(need, ram)
            if fitted.fits_after_raise:
                mac_gib, mac_source = gib, source
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
        if mac:
            break
    return Commands(engine, cloud, gpus, cloud_source, mac_gib, mac, mac_source)
