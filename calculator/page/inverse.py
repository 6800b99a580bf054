"""The inverse question: on this hardware, the longest context and the most requests at each precision."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from calculator.estimation import GIB, Mode, apple_fit, budget_bytes, max_concurrency, max_context
from calculator.page.inputs import precision_label
from calculator.state import MAC_PREFIX, CalculatorState
from models_catalog.architecture import ModelSpec
from pricing.gpus import GpuSpec

from .gpus import gpu_index
from .setting import PageEstimates

INVERSE_PRECISIONS: tuple[str, ...] = ("fp16", "fp8", "int8", "int4")


@dataclass(frozen=True, slots=True)
class InverseRow:
    precision: str
    label: str
    max_context: int
    max_concurrency: int


@dataclass(frozen=True, slots=True)
class UnifiedMemory:
    """A Mac as hardware for the inverse question: one machine whose GPU may use up to ``budget_bytes``."""

    slug: str
    name: str
    memory_bytes: int
    budget_bytes: int

    @property
    def capacity_bytes(self) -> int:
        """A Mac's GPU holds what its (raised) limit allows."""
        return self.budget_bytes


@dataclass(frozen=True, slots=True)
class Inverse:
    label: str  # "H200 SXM 141GB" or "Mac with 128 GB"
    is_mac: bool
    budget_bytes: int  # what the fits were checked against: each GPU's budget for the engine, or a Mac's raised limit
    count: int
    context: int
    concurrency: int
    rows: tuple[InverseRow, ...]

    @property
    def widest_fitting(self) -> InverseRow | None:
        """The widest precision that fits at all (the chapter's one-line summary)."""
        return next((row for row in self.rows if row.max_context), None)


def inverse_section(
    estimates: PageEstimates, state: CalculatorState, spec: ModelSpec, gpus: Sequence[GpuSpec]
) -> Inverse | None:
    hardware: GpuSpec | UnifiedMemory | None = gpu_index(gpus).get(state.gpu)
    count, budget, label, is_mac = state.gpus, None, "", False
    if state.gpu.startswith(MAC_PREFIX) and state.gpu[len(MAC_PREFIX) :].isdigit():
        gib = int(state.gpu[len(MAC_PREFIX) :])
        budget = apple_fit(0, gib * GIB, state.macos).max_raised_limit_bytes
        hardware = UnifiedMemory(state.gpu, f"Mac {gib} GB", gib * GIB, budget)
        count, label, is_mac = 1, str(gib), True
    if hardware is None:
        return None
    if not is_mac:
        label = hardware.short_name if isinstance(hardware, GpuSpec) else hardware.name
        budget = budget_bytes(hardware, state.engine) * count
    rows = []
    for precision in INVERSE_PRECISIONS:
        workload = estimates.workload(state, Mode.INFERENCE, precision)
        rows.append(
            InverseRow(
                precision=precision,
                label=precision_label(precision),
                max_context=max_context(spec, workload, hardware, count, budget_bytes=budget),
                max_concurrency=max_concurrency(spec, workload, hardware, count, budget_bytes=budget),
            )
        )
    return Inverse(label, is_mac, budget or 0, count, state.context, state.concurrency, tuple(rows))
