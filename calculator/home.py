"""The home page's direct answers: the most downloaded models with their headline need and cheapest configuration,
what runs on the reader's remembered machine (or a 24 GB card and a 64 GB Mac), and the newest models. Computed once
per catalog and price generation and language, the machine lists once per machine."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from django.db.models import F

from calculator.estimation.memory.fit import DEFAULT_MACOS
from calculator.headline import Headline, model_headline
from calculator.page.machines import hardware_for, verdict_on
from calculator.page.sources import model_spec, page_builds
from calculator.state import MAC_PREFIX
from models_catalog.models import Model
from models_catalog.new_models import new_this_week
from models_catalog.selectors import build_rows
from models_catalog.specs import SpecUnavailable
from pricing.gpus import load_gpus
from web.generations import CATALOG_GENERATION, PRICES_GENERATION
from web.kept import Kept
from web.rig import RememberedRig

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
    headline: Headline  # as released and at INT4, with the cheapest configuration (calculator/headline.py)


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
class MachineAnswer:
    """What runs on one machine: a card (one GPU) or a Mac, the widest precision or build that fits each model."""

    key: str  # the "can it run" pages' part: a GPU slug or "mac-64"
    name: str  # "RTX 4090" or "Mac 64 GB"
    memory_gb: int  # the card's memory as sold, or the Mac's unified memory
    is_mac: bool
    macos: str
    engine: str  # the engine the verdicts are sized for (machines.engine_for: llama.cpp on cards people own)
    remembered: bool  # the reader's remembered machine, not the default question
    rows: tuple[RunsOnLocal, ...]


@dataclass(frozen=True, slots=True)
class HomeAnswers:
    popular: tuple[PopularModel, ...]
    newest: tuple[NewModel, ...]
    # the days the listed models' Hub download counts were read (first, last); None: no count recorded, the
    # popular list shows the largest models instead
    downloads_read: tuple[date, date] | None = None
    # the models the catalog first listed in the last seven days (discovery, on-demand imports), newest first
    new_this_week: tuple[NewModel, ...] = ()


@dataclass(frozen=True, slots=True)
class HomeMachines:
    card: MachineAnswer | None
    mac: MachineAnswer | None


# Each row links to the model's page in the reader's language: one set of answers per language.
HOME_ANSWERS: Kept[HomeAnswers] = Kept(
    "home-answers", depends_on=(CATALOG_GENERATION, PRICES_GENERATION), per_language=True, seconds=CACHE_SECONDS
)
# One list per machine and macOS version: the default card and Mac, or a reader's remembered machine.
HOME_MACHINE: Kept[MachineAnswer | None] = Kept(
    "home-machine", depends_on=(CATALOG_GENERATION,), per_language=True, seconds=CACHE_SECONDS
)


def home_answers() -> HomeAnswers:
    """Kept per catalog and price generation and language (a new import or a price refresh shows at once)."""
    return HOME_ANSWERS.get(_compute)


def home_machines(remembered: RememberedRig | None) -> HomeMachines:
    """The card and the Mac the home page answers for: the reader's remembered machine in its place (a card, or a Mac
    on its macOS version), the RTX 4090 and a 64 GB Mac on macOS 15 otherwise."""
    card_key, mac_key, macos = CARD, f"{MAC_PREFIX}{MAC_GIB}", DEFAULT_MACOS
    mine = remembered.gpu if remembered is not None else ""
    if remembered is not None and mine.startswith(MAC_PREFIX):
        mac_key, macos = mine, remembered.macos
    elif mine:
        card_key = mine
    card = HOME_MACHINE.get(lambda: _machine_answer(card_key, DEFAULT_MACOS, card_key == mine), card_key, mine)
    mac = HOME_MACHINE.get(lambda: _machine_answer(mac_key, macos, mac_key == mine), mac_key, macos, mine)
    if (card is None or mac is None) and remembered is not None:  # a machine the catalog no longer lists
        return home_machines(None)
    return HomeMachines(card, mac)


def _models() -> list[Model]:
    # PostgreSQL sorts NULL first in descending order, SQLite last: say which
    return list(
        Model.objects.exclude(config__isnull=True).order_by(
            F("downloads").desc(nulls_last=True), F("params_total").desc(nulls_last=True), "id"
        )
    )


def _compute() -> HomeAnswers:
    models = _models()
    popular: list[PopularModel] = []
    counted = [m for m in models if m.downloads]
    read_on: list[date] = []
    for model in counted or models:
        if len(popular) >= POPULAR:
            break
        headline = model_headline(model)
        if headline is None:
            continue
        popular.append(PopularModel(model.url, model.display_name, headline))
        if model.downloads_as_of:
            read_on.append(model.downloads_as_of)
    newest = sorted(models, key=lambda m: m.release_date or date.min, reverse=True)[:NEWEST]
    return HomeAnswers(
        popular=tuple(popular),
        newest=tuple(_new_model(m) for m in newest),
        downloads_read=(min(read_on), max(read_on)) if counted and read_on else None,
        new_this_week=tuple(_new_model(m) for m in new_this_week()),
    )


def _new_model(model: Model) -> NewModel:
    return NewModel(
        model.url, model.display_name, model.release_date, model.params_total / 1e9 if model.params_total else None
    )


def _machine_answer(key: str, macos: str, remembered: bool) -> MachineAnswer | None:
    """The models one machine runs, the largest first: each row the verdict of the model's "can it run" page."""
    machine = hardware_for(key, load_gpus(), macos)
    if machine is None:
        return None
    models = _models()
    rows = build_rows([m.pk for m in models])
    found: list[RunsOnLocal] = []
    for model in models:
        try:
            spec = model_spec(model)
        except SpecUnavailable:
            continue
        builds = page_builds(rows.get(model.pk, ()), spec.params_total)
        best = verdict_on(spec, builds, machine).best
        if best is not None:
            url = f"{model.url}runs-on/{machine.key}/"
            found.append(RunsOnLocal(url, model.display_name, best.key, best.label, best.need_bytes))
    if machine.mac_gib is not None:
        memory_gb = machine.mac_gib
    else:
        memory_gb = round(machine.gpu.memory_bytes / 10**9) if machine.gpu is not None else 0
    return MachineAnswer(
        key, machine.name, memory_gb, machine.is_mac, machine.macos, machine.engine, remembered, _largest_first(found)
    )


def _largest_first(rows: list[RunsOnLocal]) -> tuple[RunsOnLocal, ...]:
    return tuple(sorted(rows, key=lambda r: -r.need_bytes)[:LISTED])
