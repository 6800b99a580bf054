"""What to paste to start the configurations the page shows."""

from __future__ import annotations

from dataclasses import dataclass, replace

from calculator.estimation import GIB, Mode, Workload
from calculator.estimation.engines.sourcing import WeightsSource
from calculator.estimation.memory.estimate import drafts_with_mtp
from calculator.estimation.plan.deployment import Serving, cloud_launch, mac_launch, mac_plan
from calculator.page.inputs import PageInputs

from .gpus import OfferRow
from .local import Local, own_machine_workload
from .machines import ENGINE_FORMATS
from .setting import Setting


@dataclass(frozen=True, slots=True)
class Commands:
    """What to paste to start the configurations the page shows, and where each one's weights come from."""

    cloud_engine: str
    cloud: str  # the cheapest configuration, on the page's engine (vLLM for one we do not start); "" without a build
    cloud_gpus: int
    cloud_source: WeightsSource | None  # None: no cheapest configuration (or a fine-tuning page)
    mac_gib: int | None
    mac: str  # mlx_lm.server (with the sysctl line when the limit must be raised) on the smallest Mac that fits
    mac_source: WeightsSource | None


def _mlx_widths(key: str, inputs: PageInputs) -> tuple[str, ...]:
    """The MLX precisions that run what the local verdict ``key`` names, widest first, down to 4 bits."""
    if key.startswith("build:"):
        return (key,)
    # the local verdict names llama.cpp's formats (machines.ENGINE_FORMATS): back to the generic width, then MLX's
    generic = {fmt: width for width, fmt in ENGINE_FORMATS["llama.cpp"].items()}.get(key, key)
    start = "fp16" if generic == "fp16" else ENGINE_FORMATS["mlx"].get(generic)
    if start is None:  # FP8 or MXFP4: mlx-lm has no such width; a published MLX build may still exist
        return tuple(b.key for b in inputs.builds if b.format == "MLX") or (key,)
    ladder = ("fp16", "mlx-8bit", "mlx-6bit", "mlx-4bit")
    return ladder[ladder.index(start) :]


def commands_section(inputs: PageInputs, setting: Setting, cheapest: OfferRow | None, local: Local) -> Commands:
    """The launch commands for the cheapest cloud configuration and for the smallest Mac that holds the model, each
    naming weights that hold the precision it was sized for (sourcing.py), or none with the reason."""
    state, spec = inputs.state, inputs.spec
    # the reader's engine where we start it on rented GPUs (TensorRT-LLM and Transformers get vLLM's command)
    engine = state.engine if state.engine in ("vllm", "sglang", "llama.cpp", "ollama") else "vllm"
    cloud, gpus, cloud_source = "", 0, None
    # the MTP draft where the estimate counted it (memory/estimate.py drafts_with_mtp: the engine runs one)
    drafted = drafts_with_mtp(spec, Workload(engine=engine, mtp_draft=state.mtp), engine)
    serving = Serving(state.context, state.concurrency, state.kv, mtp_draft=drafted)
    if cheapest is not None and setting.mode is Mode.INFERENCE:
        plan = cheapest.plan  # the split the ranking priced, the one its speed and this command run
        gpus = plan.gpus_run
        cloud_source = inputs.weights_source(engine, setting.precision)
        cloud = cloud_launch(plan, cloud_source, serving, engine)
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
            workload = own_machine_workload(state, "mlx", sized)
            if build is not None and build.file_size_bytes:
                workload = replace(workload, weights_file_bytes=build.file_size_bytes)
            planned = mac_plan(spec, workload, ram, state.macos)
            if planned.verdict != "no":
                mac_source = source
                mac = mac_launch(planned, source, serving)
                break
    return Commands(engine, cloud, gpus, cloud_source, mac_gib, mac, mac_source)
