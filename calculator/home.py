"""The home page's direct answers: popular models with their headline need and cheapest configuration, what runs
on a 24 GB GPU or a 64 GB Mac, and the newest models. Computed once per catalog and price generation and language."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from django.db.models import F

from calculator.estimation import GIB, PRECISIONS, RankedOffer, Workload, apple_fit, estimate, rank, usable_bytes
from calculator.estimation.builds import released_precision
from models_catalog.models import Model
from models_catalog.specs import SpecUnavailable, spec_from_model
from pricing.gpus import load_gpus
from pricing.selectors import current_offers
from web.generations import CATALOG_GENERATION, PRICES_GENERATION
from web.kept import Kept

POPULAR = 8
LISTED = 12
NEWEST = 6
CARD_GB = 24  # the most common large consumer card (RTX 3090 / 4090)
MAC_GIB = 64
CACHE_SECONDS = 60 * 60


@dataclass(frozen=True, slots=True)
class PopularModel:
    url: str
    name: str
    precision: str  # the precision the model's repository ships (``released_precision``)
    released_bytes: int  # inference at that precision, 8K tokens, one request
    int4_bytes: int
    cheapest: RankedOffer | None  # for released_bytes


@dataclass(frozen=True, slots=True)
class RunsOnLocal:
    url: str  # the model's "can it run" page for that machine
    name: str
    precision: str  # the widest precision of local_ladder that fits
    need_bytes: int


@dataclass(frozen=True, slots=True)
class NewModel:
    url: str
    name: str
    released: date | None
    params_billions: float | None


@dataclass(frozen=True, slots=True)
class HomeAnswers:
    popular: tuple[PopularModel, ...]
    on_card: tuple[RunsOnLocal, ...]
    on_mac: tuple[RunsOnLocal, ...]
    newest: tuple[NewModel, ...]
    card_gb: int = CARD_GB
    mac_gib: int = MAC_GIB


# Each row links to the model's page in the reader's language: one set of answers per language.
HOME_ANSWERS: Kept[HomeAnswers] = Kept(
    "home-answers", depends_on=(CATALOG_GENERATION, PRICES_GENERATION), per_language=True, seconds=CACHE_SECONDS
)


def home_answers() -> HomeAnswers:
    """Kept per catalog and price generation and language (a new import or a price refresh shows at once)."""
    return HOME_ANSWERS.get(_compute)


def _compute() -> HomeAnswers:
    # PostgreSQL sorts NULL first in descending order, SQLite last: say which
    models = list(
        Model.objects.exclude(config__isnull=True).order_by(
            F("downloads").desc(nulls_last=True), F("params_total").desc(nulls_last=True), "id"
        )
    )
    offers = current_offers(pricing_kinds=("on-demand",))
    gpus = load_gpus()
    card = usable_bytes(CARD_GB * 10**9)
    mac = apple_fit(0, MAC_GIB * GIB).max_raised_limit_bytes
    popular: list[PopularModel] = []
    on_card: list[RunsOnLocal] = []
    on_mac: list[RunsOnLocal] = []
    for model in models:
        try:
            spec = spec_from_model(model)
        except SpecUnavailable:
            continue
        released = released_precision(spec.native_dtype)
        if len(popular) < POPULAR:
            need = estimate(spec, Workload(precision=released)).total_bytes
            int4 = estimate(spec, Workload(precision="int4")).total_bytes
            cheapest = rank(need, offers, gpus).cheapest
            popular.append(PopularModel(model.url, model.display_name, released, need, int4, cheapest))
        local = [
            (p, estimate(spec, Workload(precision=p, engine="llama.cpp")).total_bytes) for p in local_ladder(released)
        ]
        for budget, found, machine in ((card, on_card, "rtx-4090"), (mac, on_mac, f"mac-{MAC_GIB}")):
            fitting = [(p, need) for p, need in local if need <= budget]
            if fitting:
                precision, need = fitting[0]
                found.append(RunsOnLocal(f"{model.url}runs-on/{machine}/", model.display_name, precision, need))
    newest = sorted(models, key=lambda m: m.release_date or date.min, reverse=True)[:NEWEST]
    return HomeAnswers(
        popular=tuple(popular),
        on_card=_largest_first(on_card),
        on_mac=_largest_first(on_mac),
        newest=tuple(
            NewModel(m.url, m.display_name, m.release_date, m.params_total / 1e9 if m.params_total else None)
            for m in newest
        ),
    )


def local_ladder(released: str) -> tuple[str, ...]:
    """The precisions tried on a machine of one's own, widest first: the released one, then the generic 8- and
    4-bit ones that store fewer bits (an FP8 or MXFP4 release is not widened back to 16 bits)."""
    bits = PRECISIONS[released].nominal_bits if released in PRECISIONS else 16
    return (released, *(p for p in ("int8", "int4") if PRECISIONS[p].nominal_bits < bits))


def _largest_first(rows: list[RunsOnLocal]) -> tuple[RunsOnLocal, ...]:
    return tuple(sorted(rows, key=lambda r: -r.need_bytes)[:LISTED])
