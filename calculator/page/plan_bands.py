"""The error band beside each way to serve on the planner (docs/methodology.md §5.7): how close the speed model came to
published serving benchmarks of the row's engine on its GPU family for this kind of model (calculator/validation/
bands.py), the monthly cost that band spans once the replicas are counted again at either end, and whether a row's
span reaches the cheapest row's, so that the ranking does not claim an order the estimate cannot tell apart."""

from __future__ import annotations

from dataclasses import dataclass

from calculator.estimation.plan.planner import Demand, monthly_range
from calculator.validation.bands import THROUGHPUT_KINDS, Band, gpu_family, kept_band

from .planner import PlanAnswer, PlanRow

# A Mac's llama.cpp server is not in the serving benchmarks; its band is that of single-request decode on its family
DESK_KIND = "decode_tps"


@dataclass(frozen=True, slots=True)
class RowBand:
    """One row's band (None: an API's price, or no published run to compare with) and the monthly cost it spans."""

    band: Band | None
    low_usd: float
    high_usd: float
    near_cheapest: bool = False  # the span reaches the cheapest row's: the order of the two is not certain


def row_gpu(row: PlanRow) -> str:
    """The GPU slug a rented or owned row runs on; "" for an API."""
    if row.offer is not None:
        return row.offer.ranked.offer.gpu_slug
    if row.owned is not None:
        return row.owned.server.gpu_slug
    return ""


def _band(row: PlanRow, engine: str, family: str) -> Band | None:
    slug = row_gpu(row)
    if not slug:
        return None
    gpu_kind = gpu_family(slug)
    if row.owned is not None and row.owned.machine:
        return kept_band(DESK_KIND, "llama.cpp", family, gpu_kind)
    return kept_band(THROUGHPUT_KINDS, engine, family, gpu_kind)


def plan_bands(answer: PlanAnswer, rows: tuple[PlanRow, ...], family: str) -> tuple[RowBand, ...]:
    """The band of each of ``rows`` (the answer's, cheapest first), in order."""
    demand: Demand = answer.demand
    found: list[RowBand] = []
    for row in rows:
        band = _band(row, answer.engine, family)
        if band is None:
            low = high = row.served.monthly_usd
        else:
            low, high = monthly_range(row.served, demand, band.low_error, band.high_error)
        found.append(RowBand(band, low, high))
    if not found:
        return ()
    ceiling = found[0].high_usd
    return tuple(
        RowBand(b.band, b.low_usd, b.high_usd, index > 0 and b.low_usd <= ceiling) for index, b in enumerate(found)
    )
