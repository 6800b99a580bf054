"""A model's headline as lists show it (the home page's popular models, the catalog list): what inference needs at
the precision the model ships in (8K tokens, one request, vLLM: the model page's default state), at INT4, and the
cheapest on-demand instance that holds the first. One function for both lists, kept per model until the catalog or
the prices change."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from calculator.estimation import RankedOffer, Workload, estimate, rank
from calculator.estimation.engines.builds import released_precision
from calculator.estimation.engines.kernels import startable_gpus
from calculator.estimation.memory.fit import per_gpu_overhead_bytes
from calculator.page.sources import model_spec, page_offers
from models_catalog.list_figures import ListFigures
from models_catalog.models import Model
from models_catalog.specs import SpecUnavailable
from pricing.gpus import load_gpus
from web.generations import CATALOG_GENERATION, PRICES_GENERATION
from web.kept import PROCESS, Kept


@dataclass(frozen=True, slots=True)
class Headline:
    precision: str  # the precision the model's repository ships (``released_precision``)
    need_bytes: int  # inference at that precision, 8K tokens, one request
    int4_bytes: int
    cheapest: RankedOffer | None  # for need_bytes; None: nothing on sale holds it on one node


# In this process: a catalog page reads some fifty at once, which a shared cache would answer one round trip each.
HEADLINES: Kept[Headline | None] = Kept(
    "model-headline", depends_on=(CATALOG_GENERATION, PRICES_GENERATION), where=PROCESS, max_entries=4096
)


def model_headline(model: Model) -> Headline | None:
    """The headline of ``model``; None when its architecture is unknown (no config)."""
    return HEADLINES.get(lambda: _headline(model), model.hub_id)


def _headline(model: Model) -> Headline | None:
    try:
        spec = model_spec(model)
    except SpecUnavailable:
        return None
    released = released_precision(spec.native_dtype)
    workload = Workload(precision=released)  # the model page's default state
    need = estimate(spec, workload).total_bytes
    int4 = estimate(spec, Workload(precision="int4")).total_bytes
    # the offers and the ranking rule the model page ranks with (calculator/page/gpus.py)
    gpus = startable_gpus(spec, workload.engine, load_gpus())  # only GPUs the model's kernels run on
    per_gpu = per_gpu_overhead_bytes(estimate(spec, workload))
    cheapest = rank(need, page_offers(), gpus, engine=workload.engine, per_gpu_bytes=per_gpu).cheapest
    return Headline(released, need, int4, cheapest)


def catalog_list_figures(models: Sequence[Model]) -> Mapping[int, ListFigures]:
    """The catalog list's columns for a page of models (registered with models_catalog.list_figures)."""
    found: dict[int, ListFigures] = {}
    for model in models:
        headline = model_headline(model)
        if headline is None:
            continue
        cheapest = headline.cheapest
        found[model.pk] = ListFigures(
            precision=headline.precision,
            need_bytes=headline.need_bytes,
            cheapest_per_hour_usd=cheapest.per_hour_rounded if cheapest else None,
            cheapest_instance=f"{cheapest.instance_gpus} × {cheapest.gpu_name}" if cheapest else "",
            cheapest_provider=cheapest.provider_name if cheapest else "",
        )
    return found
