"""The ranking of GPUs and providers for a need, each row the plan of its instance (estimation/plan.py): the engine's
split of the GPUs sold, its speed, the GPUs billed and idle."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy

from calculator.estimation import (
    GpuCount,
    RankedOffer,
    Ranking,
    Workload,
    budget_bytes,
    rank,
    reference_gpus_needed,
    several_node_gpus,
)
from calculator.estimation.engines.kernels import SPARSE_ATTENTION, KernelRule, kernel_rule_for, startable_gpus
from calculator.estimation.memory.estimate import estimate
from calculator.estimation.memory.fit import per_gpu_overhead_bytes
from calculator.estimation.plan.deployment import GpuPlan, gpu_plan
from calculator.estimation.plan.ranking import DEFAULT_PRICING_KINDS
from models_catalog.architecture import ModelSpec
from pricing.gpus import GpuSpec
from pricing.offers import OfferRecord, PricingKind, StaleOffers, stale_offers

# GPU cards, not Macs or unified-memory desktops: what the inverse lists and what "runs on one GPU" picks from
CARD_SEGMENTS = ("datacenter", "workstation", "consumer")


@dataclass(frozen=True, slots=True)
class OfferRow:
    ranked: RankedOffer
    plan: GpuPlan  # the workload on the instance as sold: the engine's split, its speed, GPUs billed and idle

    @property
    def tensor_parallel(self) -> int:
        return self.plan.tensor_parallel

    @property
    def pipeline_stages(self) -> int:
        return self.plan.pipeline_stages

    @property
    def attention_data_parallel(self) -> int:
        """GPUs that each run attention for their own requests (1: plain tensor parallelism)."""
        return self.plan.attention_data_parallel

    @property
    def idle_gpus(self) -> int:
        """GPUs of the instance (all billed) that the engine's split leaves unused."""
        return self.plan.idle_gpus

    @property
    def tokens_per_s_low(self) -> float | None:  # per request, estimated
        return self.plan.tokens_per_s_low

    @property
    def tokens_per_s_high(self) -> float | None:
        return self.plan.tokens_per_s_high


def instance_plan(row: RankedOffer, need: int, spec: ModelSpec, workload: Workload, gpu: GpuSpec) -> GpuPlan:
    """The plan of the instance ``row`` prices for ``need`` (``gpu``: its GPU type): the widest tensor-parallel degree
    whose ranks each hold their share (placement.py), pipeline stages for the rest, and the speed per request at
    that split."""
    return gpu_plan(spec, workload, gpu, need_bytes=need, instance_gpus=row.instance_gpus, gpus_needed=row.gpus_needed)


@dataclass(frozen=True, slots=True)
class CountedOnCapacity:
    """A GPU type whose count on what its runtime reports differs from the reference page's 90 % of the nameplate."""

    gpu_name: str
    capacity_bytes: int
    count: int
    reference_count: int


@dataclass(frozen=True, slots=True)
class Gpus:
    need_bytes: int
    by_gpu: tuple[OfferRow, ...]
    by_provider: tuple[OfferRow, ...]
    ranking: Ranking
    several_nodes: tuple[GpuCount, ...]  # every catalog GPU type (offered or not) that needs more than 8
    newest_capture: date | None
    any_stale: bool
    any_low_confidence: bool
    stale_by_gpu: StaleOffers | None  # said once above each table, not on every row
    stale_by_provider: StaleOffers | None
    counted_on_capacity: tuple[CountedOnCapacity, ...] = ()  # the ranked types whose count the capacity rule changed
    kernels: KernelRule | None = None  # the model's attention runs under the engine on these architectures only

    @property
    def kernels_note(self) -> str:
        """Why GPU types are missing from the ranking, in the reader's language ("" when none is left out)."""
        return str(KERNEL_NOTES[(self.kernels.engine, self.kernels.feature)]) if self.kernels else ""


# Why a ranking leaves GPU types out (engines/kernels.py, docs/methodology.md §4.14).
KERNEL_NOTES: Mapping[tuple[str, str], Promise] = {
    ("vllm", SPARSE_ATTENTION): gettext_lazy(
        "Its sparse attention runs in vLLM only on Hopper and data-centre Blackwell GPUs (H100, H200, GH200, B200, "
        "B300, GB200): other GPU types cannot start it and are not ranked."
    ),
    ("sglang", SPARSE_ATTENTION): gettext_lazy(
        "Its sparse attention runs in SGLang only on Hopper and data-centre Blackwell GPUs and on AMD MI300 and "
        "MI350/MI355: other GPU types cannot start it and are not ranked."
    ),
}


def gpu_index(gpus: Sequence[GpuSpec]) -> dict[str, GpuSpec]:
    return {g.slug: g for g in gpus}


def _offer_rows(
    rows: Sequence[RankedOffer],
    need: int,
    spec: ModelSpec,
    workload: Workload,
    gpus: dict[str, GpuSpec],
    plans: dict[tuple[str, int, int], GpuPlan],
) -> tuple[OfferRow, ...]:
    """Each row with its instance's plan; ``plans`` keeps one plan per GPU type and instance size (the providers'
    table repeats the ranking's sizes)."""
    found = []
    for row in rows:  # the ranking only ranks offers of GPUs in the catalog, so every row's GPU is known
        key = (row.offer.gpu_slug, row.instance_gpus, row.gpus_needed)
        if key not in plans:
            plans[key] = instance_plan(row, need, spec, workload, gpus[row.offer.gpu_slug])
        found.append(OfferRow(row, plans[key]))
    return tuple(found)


def gpus_section(
    need: int,
    spec: ModelSpec,
    workload: Workload,
    offers: Sequence[OfferRecord],
    gpus: Sequence[GpuSpec],
    pricing_kinds: tuple[PricingKind, ...] = DEFAULT_PRICING_KINDS,
) -> Gpus:
    kernels = kernel_rule_for(spec, workload.engine)
    gpus = startable_gpus(spec, workload.engine, gpus)  # a GPU the model cannot start on is not ranked
    per_gpu = per_gpu_overhead_bytes(estimate(spec, workload))  # each GPU's own start-up budget (fit.gpus_needed)
    ranking = rank(need, offers, gpus, engine=workload.engine, pricing_kinds=pricing_kinds, per_gpu_bytes=per_gpu)
    index = gpu_index(gpus)
    plans: dict[tuple[str, int, int], GpuPlan] = {}
    shown = [*ranking.by_gpu, *ranking.by_provider]
    captures = [capture_day(r.offer.captured_at) for r in shown if r.offer.captured_at]
    return Gpus(
        need_bytes=need,
        by_gpu=_offer_rows(ranking.by_gpu, need, spec, workload, index, plans),
        by_provider=_offer_rows(ranking.by_provider, need, spec, workload, index, plans),
        ranking=ranking,
        several_nodes=several_node_gpus(
            need, [g for g in gpus if g.segment in CARD_SEGMENTS], workload.engine, per_gpu
        ),
        newest_capture=max(captures) if captures else None,
        any_stale=any(r.offer.stale for r in shown),
        any_low_confidence=any(r.offer.confidence == "low" for r in shown),
        stale_by_gpu=stale_offers([r.offer for r in ranking.by_gpu]),
        stale_by_provider=stale_offers([r.offer for r in ranking.by_provider]),
        counted_on_capacity=_counted_on_capacity(ranking.by_gpu, need, index),
        kernels=kernels,
    )


def _counted_on_capacity(
    rows: Sequence[RankedOffer], need: int, gpus: dict[str, GpuSpec]
) -> tuple[CountedOnCapacity, ...]:
    found = []
    for row in rows:
        gpu = gpus.get(row.offer.gpu_slug)
        if gpu is None:
            continue
        reference = reference_gpus_needed(need, gpu.memory_bytes)
        if reference != row.gpus_needed:
            found.append(CountedOnCapacity(row.gpu_name, gpu.capacity_bytes, row.gpus_needed, reference))
    return tuple(found)


def capture_day(moment: date | datetime) -> date:
    """The day of a capture time (offers carry a day or a moment)."""
    return moment.date() if isinstance(moment, datetime) else moment


def largest_datacenter_gpu(gpus: Sequence[GpuSpec]) -> GpuSpec | None:
    rentable = [g for g in gpus if g.is_rentable_class]
    return max(rentable, key=lambda g: g.memory_bytes) if rentable else None


def smallest_single_gpu(need: int, gpus: Sequence[GpuSpec], engine: str) -> GpuSpec | None:
    fitting = [g for g in gpus if g.segment in CARD_SEGMENTS and need <= budget_bytes(g, engine)]
    return min(fitting, key=lambda g: (g.memory_bytes, g.slug)) if fitting else None
