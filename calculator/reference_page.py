"""The reference page's figures beside ours, for the methodology page (docs/methodology.md §4.14).

The reference page sized GLM-5.3-Flash with a rule of thumb: every stored parameter (the MTP layer included) and the
KV cache, plus 10 % of both and 1 GB, on GPUs filled to 90 % of their nameplate, priced with the offers it showed
(captured 2026-11-13, ``pricing/fixtures/seed_offers_2026-11-13.json``). Its rule reproduces its 708 / 372 / 187 GB
and 5 × MI300X at $19.12 an hour exactly; beside each row stands what vLLM allocates and the cheapest configuration
vLLM starts on among the same offers.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from calculator.estimation import Workload, estimate, rank, reference_gpus_needed
from calculator.estimation.engines.kernels import startable_gpus
from calculator.estimation.memory.fit import per_gpu_overhead_bytes
from calculator.estimation.memory.reference import ReferenceNeed, reference_need
from calculator.estimation.plan.ranking import RankedOffer
from models_catalog.architecture import ModelSpec
from pricing.gpus import GpuSpec
from pricing.offers import HOURS_PER_MONTH, OfferRecord, as_confidence, as_pricing_kind
from web.kept import PROCESS, Kept

REFERENCE_MODEL = "zai-org/GLM-5.3-Flash"
REFERENCE_OFFERS = Path(__file__).resolve().parents[1] / "pricing" / "fixtures" / "seed_offers_2026-11-13.json"
PRECISIONS = ("fp16", "int8", "int4")


@dataclass(frozen=True, slots=True)
class ReferenceCost:
    """The cheapest reference offer by the reference page's rule: the GPUs 90 % of the nameplate needs, the smallest
    instance that holds them."""

    gpus_needed: int
    instance_gpus: int
    gpu_name: str
    provider_name: str
    per_hour_usd: float

    @property
    def per_month_usd(self) -> float:
        return self.per_hour_usd * HOURS_PER_MONTH


@dataclass(frozen=True, slots=True)
class ReferenceRow:
    precision: str
    reference: ReferenceNeed
    reference_cost: ReferenceCost | None
    ours_bytes: int  # what vLLM allocates: weights as loaded, KV, its start-up budget
    ours: RankedOffer | None  # the cheapest configuration vLLM starts on among the same offers


# The dated fixture never changes while the process runs: read once per process.
REFERENCE_OFFERS_READ: Kept[tuple[OfferRecord, ...]] = Kept("reference-offers", where=PROCESS, max_entries=1)


def reference_offers() -> tuple[OfferRecord, ...]:
    """The offers the reference page showed, from the dated fixture."""
    return REFERENCE_OFFERS_READ.get(_read_offers)


def _read_offers() -> tuple[OfferRecord, ...]:
    rows = json.loads(REFERENCE_OFFERS.read_text())
    providers = {r["fields"]["slug"]: r["fields"]["name"] for r in rows if r["model"] == "pricing.provider"}
    found = []
    for row in rows:
        if row["model"] != "pricing.offer":
            continue
        f = row["fields"]
        found.append(
            OfferRecord(
                provider_slug=f["provider"][0],
                provider_name=providers[f["provider"][0]],
                gpu_slug=f["gpu"][0],
                instance_name=f["instance_name"],
                gpu_counts=tuple(f["gpu_counts"]),
                price_per_gpu_hour_usd=float(f["price_per_gpu_hour_usd"]),
                pricing_kind=as_pricing_kind(f["pricing_kind"]),
                region=f["region"],
                captured_at=datetime.fromisoformat(f["captured_at"].replace("Z", "+00:00")),
                confidence=as_confidence(f["confidence"]),
                instance_price_usd=tuple((int(c), float(p)) for c, p in f["instance_prices_usd"]),
            )
        )
    return tuple(found)


def _reference_cost(need_bytes: int, offers: Sequence[OfferRecord], gpus: dict[str, GpuSpec]) -> ReferenceCost | None:
    best: ReferenceCost | None = None
    for offer in offers:
        gpu = gpus.get(offer.gpu_slug)
        if gpu is None or offer.pricing_kind != "on-demand":
            continue
        needed = reference_gpus_needed(need_bytes, gpu.memory_bytes)
        count = offer.smallest_count_covering(needed)
        if count is None:
            continue
        cost = ReferenceCost(
            needed, count, gpu.short_name or gpu.name, offer.provider_name, offer.instance_price_per_hour(count)
        )
        if best is None or cost.per_hour_usd < best.per_hour_usd:
            best = cost
    return best


def reference_comparison(spec: ModelSpec, gpus: Sequence[GpuSpec]) -> tuple[ReferenceRow, ...]:
    """FP16, INT8 and INT4 at the reference page's state (8K tokens, one request): its rule and ours."""
    offers = reference_offers()
    by_slug = {g.slug: g for g in gpus}
    startable = startable_gpus(spec, "vllm", gpus)
    rows = []
    for precision in PRECISIONS:
        workload = Workload(precision=precision)
        reference = reference_need(spec, workload)
        ours = estimate(spec, workload)
        ranking = rank(ours.total_bytes, offers, startable, per_gpu_bytes=per_gpu_overhead_bytes(ours))
        cost = _reference_cost(reference.total_bytes, offers, by_slug)
        rows.append(ReferenceRow(precision, reference, cost, ours.total_bytes, ranking.cheapest))
    return tuple(rows)
