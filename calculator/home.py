"""The home page's direct answers: popular models with their headline need and cheapest configuration, what runs
on a 24 GB GPU or a 64 GB Mac, and the newest models. Computed once per catalog and price generation and language."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from django.db.models import F

from calculator.estimation import RankedOffer, Workload, estimate, rank
from calculator.estimation.builds import released_precision
from calculator.page.machines import hardware_for, verdict_on
from calculator.page.sources import page_builds
from calculator.state import MAC_PREFIX
from models_catalog.models import Model
from models_catalog.selectors import build_rows
from models_catalog.specs import SpecUnavailable, spec_from_model
from pricing.gpus import load_gpus
from pricing.selectors import current_offers
from web.generations import CATALOG_GENERATION, PRICES_GENERATION
from web.kept import Kept

POPULAR = 8
LISTED = 12
NEWEST = 6
CARD = "rtx-4090"  # the most common large consumer card
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
    precision: str  # the key of the widest precision or build that fits (machines.verdict_on)
    label: str
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
    card_gb: int = 24  # the RTX 4090's memory, as the question names it
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
    rows = build_rows([m.pk for m in models])
    offers = current_offers(pricing_kinds=("on-demand",))
    gpus = load_gpus()
    card, mac = hardware_for(CARD, gpus), hardware_for(f"{MAC_PREFIX}{MAC_GIB}", gpus)
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
        # the verdict of each model's "can it run" page for the machine, as its local section gives it
        builds = page_builds(rows.get(model.pk, ()), spec.params_total)
        for machine, found in ((card, on_card), (mac, on_mac)):
            if machine is None:
                continue
            best = verdict_on(spec, builds, machine).best
            if best is not None:
                url = f"{model.url}runs-on/{machine.key}/"
                found.append(RunsOnLocal(url, model.display_name, best.key, best.label, best.need_bytes))
    newest = sorted(models, key=lambda m: m.release_date or date.min, reverse=True)[:NEWEST]
    return HomeAnswers(
        popular=tuple(popular),
        on_card=_largest_first(on_card),
        on_mac=_largest_first(on_mac),
        card_gb=round(card.gpu.memory_bytes / 10**9) if card is not None and card.gpu is not None else 24,
        newest=tuple(
            NewModel(m.url, m.display_name, m.release_date, m.params_total / 1e9 if m.params_total else None)
            for m in newest
        ),
    )


def _largest_first(rows: list[RunsOnLocal]) -> tuple[RunsOnLocal, ...]:
    return tuple(sorted(rows, key=lambda r: -r.need_bytes)[:LISTED])
