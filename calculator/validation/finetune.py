"""Predictor for published fine-tuning peak memory per framework (docs/methodology.md §6, frameworks.py).

A case names the recipe it was measured with: model, framework, mode, tokens per sample, batch, LoRA rank and target
modules, optimizer and checkpointing. Two kinds of published figure exist: a framework's own peak-memory report
(``"measures": "allocated"``: PyTorch's peak of allocated tensors, without the CUDA context and the allocator's
slack, so the overhead term is left out) and the largest setting that fits a GPU (``"measures": "capacity"``: the
GPU's memory is the peak, compared with the whole estimate).
"""

from __future__ import annotations

from calculator.estimation import GB, GIB, Mode, Optimizer, Workload, estimate

from . import Case, predictor
from .kv import case_spec

_UNITS = {"GiB": GIB, "GB": GB}


def finetune_workload(case: Case) -> Workload:
    settings = case.settings
    tokens = int(settings["sequence_length"])
    return Workload(
        mode=Mode(str(settings["mode"])),
        precision=str(settings.get("precision", "bf16")),
        context=tokens,
        sequence_length=tokens,
        batch_size=int(settings.get("batch_size", 1)),
        lora_rank=int(settings.get("lora_rank", 8)),
        lora_targets=str(settings.get("lora_targets", "")),
        optimizer=Optimizer(str(settings.get("optimizer", "adamw"))),
        gradient_checkpointing=bool(settings.get("gradient_checkpointing", True)),
        framework=str(settings.get("framework", case.engine)),
    )


@predictor("finetune_peak")
def finetune_peak(case: Case) -> float:
    breakdown = estimate(case_spec(case), finetune_workload(case))
    measures = str(case.settings.get("measures", "capacity"))
    if measures not in ("capacity", "allocated"):
        raise ValueError(f"unknown measure {measures!r}")
    peak = breakdown.total_bytes - (breakdown.bytes_of("overhead") if measures == "allocated" else 0)
    return peak / _UNITS[case.unit]
