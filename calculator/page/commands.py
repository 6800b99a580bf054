"""What to paste to start the configurations the page shows."""

from __future__ import annotations

from dataclasses import dataclass

from calculator.estimation import GIB, PRECISIONS, Mode, RankedOffer, Workload, apple_fit, estimate
from calculator.estimation.builds import released_precision
from calculator.estimation.launch import LaunchConfig, launch_command
from calculator.page.inputs import PageInputs
from calculator.state import MAC_MEMORY_GIB

from .gpus import instance_plan
from .setting import Setting

MLX_BITS = (8, 6, 4, 3, 2)
MLX_GOOD_BITS = (8, 6, 4)


@dataclass(frozen=True, slots=True)
class Commands:
    """What to paste to start the configurations the page shows."""

    cloud_engine: str
    cloud: str  # the cheapest configuration, on vLLM or SGLang
    cloud_gpus: int
    mac_gib: int | None
    mac: str  # mlx_lm.server (with the sysctl line when the limit must be raised) on the smallest Mac that fits


def commands_section(inputs: PageInputs, setting: Setting, cheapest: RankedOffer | None) -> Commands:
    """The launch commands for the cheapest cloud configuration and for the smallest Mac that holds the model."""
    state, spec, hub_id = inputs.state, inputs.spec, inputs.hub_id
    engine = state.engine if state.engine in ("vllm", "sglang") else "vllm"
    cloud, gpus = "", 0
    if cheapest is not None and setting.mode is Mode.INFERENCE:
        plan = instance_plan(cheapest, spec)
        gpus = plan.gpus_run
        precision = setting.precision if setting.precision in PRECISIONS else "fp16"
        if precision == released_precision(spec.native_dtype):
            precision = ""  # the repository ships it (an FP8 or MXFP4 release): no on-the-fly quantization flag
        cloud = launch_command(
            LaunchConfig(
                engine=engine,
                model=hub_id,
                context=state.context,
                concurrency=state.concurrency,
                precision=precision,
                kv_dtype=state.kv,
                tensor_parallel=plan.tensor_parallel,
                pipeline_parallel=plan.pipeline_stages,
                gpu_memory_utilization=0.9,
                max_num_seqs=state.concurrency if state.concurrency > 1 else None,
            )
        ).script
    mac_gib, mac = None, ""
    # the smallest Mac that holds the model at 4 bits or more (the widest that fits there); 3 and 2 bits only when
    # nothing else fits even the largest Mac
    for gib in MAC_MEMORY_GIB:
        ram = gib * GIB
        for bits in MLX_BITS if gib == MAC_MEMORY_GIB[-1] else MLX_GOOD_BITS:
            need = estimate(
                spec,
                Workload(
                    precision=f"mlx-{bits}bit", context=state.context, concurrency=state.concurrency, engine="mlx"
                ),
            ).total_bytes
            fitted = apple_fit(need, ram)
            if fitted.fits_after_raise:
                mac_gib = gib
                mac = launch_command(
                    LaunchConfig(
                        engine="mlx",
                        model=f"mlx-community/{hub_id.split('/', 1)[-1]}-{bits}bit",
                        context=state.context,
                        concurrency=state.concurrency,
                        wired_limit_mb=fitted.wired_limit_mb,
                    )
                ).script
                break
        if mac:
            break
    return Commands(engine, cloud, gpus, mac_gib, mac)
