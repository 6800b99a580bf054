"""What the sections of one page share: the setting, the workload and its need, and the parts several sections
read (the ranking, the cheapest offer per need, the matrix's needs, the released precision, the local verdicts),
each computed once, when a section first asks for it."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from calculator.estimation import Mode, Workload
from calculator.estimation.engines.builds import released_precision
from calculator.estimation.engines.kernels import startable_gpus
from calculator.estimation.memory.applicability import choose_mode
from calculator.estimation.memory.fit import per_gpu_overhead_bytes
from calculator.page.inputs import PageInputs, precision_label
from models_catalog.architecture import AttentionKind, ModelSpec
from pricing.gpus import GpuSpec

from .gpus import Gpus, gpus_section
from .local import Local, local_section
from .setting import MATRIX_PRECISIONS, MODES, Cheapest, PageEstimates, setting_for
from .sizes import PrecisionCard


@dataclass(frozen=True, slots=True)
class CacheLayout:
    """Which layers keep a per-token KV cache: the reason a hybrid model's cache is far below 2·L·H·d·T."""

    total_layers: int
    cached_layers: int  # full, sliding-window or MLA attention
    state_layers: int  # linear attention / SSM: a fixed-size state per request
    sliding_layers: int


def cache_layout(spec: ModelSpec) -> CacheLayout:
    counts = {kind: 0 for kind in AttentionKind}
    for group in spec.layer_groups:
        counts[group.kind] += group.count
    cached = counts[AttentionKind.FULL] + counts[AttentionKind.SLIDING] + counts[AttentionKind.MLA]
    return CacheLayout(spec.num_layers, cached, counts[AttentionKind.LINEAR], counts[AttentionKind.SLIDING])


class PageWork:
    """What the sections of one page share, each part computed once, when a section first asks for it."""

    def __init__(self, inputs: PageInputs) -> None:
        self.inputs = inputs
        self.spec, self.state, self.builds = inputs.spec, inputs.state, inputs.builds
        self.estimates = PageEstimates(inputs.spec, inputs.builds)
        self.setting = setting_for(inputs.state, inputs.builds)
        self.workload: Workload = self.estimates.workload(self.state, self.setting.mode, self.setting.precision)
        self.breakdown, self.need = self.estimates.need(self.workload)

    @cached_property
    def gpus(self) -> Gpus:
        return gpus_section(self.need, self.spec, self.workload, self.inputs.offers, self.inputs.gpus)

    @cached_property
    def cheapest(self) -> Cheapest:
        return Cheapest(self.inputs.offers, self.startable_gpus, self.gpus.ranking, self.workload.engine)

    @cached_property
    def startable_gpus(self) -> list[GpuSpec]:
        """The catalog's GPUs the model starts on under the page's engine (engines/kernels.py)."""
        return startable_gpus(self.spec, self.workload.engine, self.inputs.gpus)

    @cached_property
    def needs(self) -> dict[tuple[Mode, str], int]:
        """The need of every mode and generic precision that applies (the matrix's cells)."""
        found = {}
        for precision in MATRIX_PRECISIONS:
            for mode in MODES:
                if choose_mode(mode, precision).applies:
                    workload = self.estimates.workload(self.state, mode, precision)
                    found[(mode, precision)] = self.estimates.need(workload)[1]
        return found

    @cached_property
    def released(self) -> PrecisionCard:
        """Inference at the precision the model's repository ships, with its cheapest configuration."""
        return self.precision_card(released_precision(self.spec.native_dtype))

    def precision_card(self, precision: str) -> PrecisionCard:
        breakdown, estimated = self.estimates.need(self.estimates.workload(self.state, Mode.INFERENCE, precision))
        need = self.needs.get((Mode.INFERENCE, precision), estimated)
        per_gpu = per_gpu_overhead_bytes(breakdown)
        return PrecisionCard(precision, precision_label(precision), need, self.cheapest(need, per_gpu), per_gpu)

    @cached_property
    def local(self) -> Local:
        return local_section(self.estimates, self.state, self.builds, self.inputs.gpus)
