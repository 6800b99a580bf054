"""What the page computes for: the reader's state after the mode rule, and the estimates every section shares."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from calculator.estimation import Breakdown, Framework, Mode, Optimizer, RankedOffer, Ranking, Workload, estimate, rank
from calculator.estimation.memory.applicability import choose_mode
from calculator.page.inputs import Build, precision_label
from calculator.state import CalculatorState
from models_catalog.architecture import ModelSpec
from pricing.gpus import GpuSpec
from pricing.offers import OfferRecord

MATRIX_PRECISIONS: tuple[str, ...] = ("fp16", "int8", "int4")
MODES: tuple[Mode, ...] = (Mode.INFERENCE, Mode.LORA, Mode.QLORA, Mode.FULL)


@dataclass(frozen=True, slots=True)
class Setting:
    """What the page computed for: the state after applying the mode rule."""

    mode: Mode
    precision: str
    precision_label: str
    engine: str
    context: int
    concurrency: int
    kv: str
    mode_changed: str = ""  # reason key when the requested mode/precision pair does not apply


class PageEstimates:
    """The workloads of one page: several sections ask for the same one (the core remembers each estimate)."""

    def __init__(self, spec: ModelSpec, builds: Sequence[Build]) -> None:
        self.spec = spec
        self.builds = {b.key: b for b in builds}

    def workload(self, state: CalculatorState, mode: Mode, precision: str, **changes: Any) -> Workload:
        """The core's workload for ``precision``; a published build sizes its weights from its files."""
        build = self.builds.get(precision)
        measured = build.file_size_bytes if build is not None and mode is Mode.INFERENCE else None
        return replace(
            Workload(
                mode=mode,
                precision=build.precision if build else precision,
                context=state.context,
                concurrency=state.concurrency,
                engine=state.engine,
                kv_dtype=state.kv,
                engine_release=state.release_for(state.engine),
                batch_size=state.batch,
                sequence_length=state.seq or None,
                lora_rank=state.rank,
                gradient_checkpointing=state.checkpointing,
                optimizer=Optimizer(state.optimizer),
                framework=Framework(state.framework),
                weights_file_bytes=measured or None,
                mtp_draft=state.mtp,
            ),
            **changes,
        )

    def need(self, workload: Workload) -> tuple[Breakdown, int]:
        """The breakdown and its GPU total."""
        breakdown = estimate(self.spec, workload)
        return breakdown, breakdown.total_bytes


def setting_for(state: CalculatorState, builds: Sequence[Build]) -> Setting:
    build_keys = {b.key for b in builds}
    precision = state.precision
    generic = next((b.precision for b in builds if b.key == precision), precision)
    choice = choose_mode(state.mode, generic)
    changed = "" if choice.applies else choice.reason
    if not choice.applies or (precision in build_keys and choice.mode is not Mode.INFERENCE):
        precision = choice.precision
    return Setting(
        mode=choice.mode,
        precision=precision,
        precision_label=precision_label(precision, builds),
        engine=state.engine,
        context=state.context,
        concurrency=state.concurrency,
        kv=state.kv,
        mode_changed=changed,
    )


class Cheapest:
    """The cheapest configuration for a need, ranked once per distinct need on a page."""

    def __init__(self, offers: Sequence[OfferRecord], gpus: Sequence[GpuSpec], known: Ranking, engine: str) -> None:
        self.offers, self.gpus, self.engine = offers, gpus, engine
        self._found: dict[tuple[int, int], RankedOffer | None] = {
            (known.need_bytes, known.per_gpu_bytes): known.cheapest
        }

    def __call__(self, need: int, per_gpu_bytes: int = 0) -> RankedOffer | None:
        """``per_gpu_bytes``: what every GPU of a split holds for itself (fit.per_gpu_overhead_bytes)."""
        key = (need, per_gpu_bytes)
        if key not in self._found:
            self._found[key] = rank(
                need, self.offers, self.gpus, engine=self.engine, per_gpu_bytes=per_gpu_bytes
            ).cheapest
        return self._found[key]
