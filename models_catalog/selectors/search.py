"""Finding one model: suggestions as the reader types, a model by its Hub id (and the one a page serves), close
matches for an id that names none, and the import request of an id not yet in the catalog."""

from __future__ import annotations

import difflib
import heapq
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Q, QuerySet
from django.db.models.functions import Lower
from django.utils import timezone
from rapidfuzz import fuzz, process

from models_catalog.hub_ids import HubId
from models_catalog.models import ImportRequest, Model
from web.generations import CATALOG_GENERATION
from web.kept import PROCESS, Kept

from .listing import models_list

SUGGESTIONS = 8
MAX_SERVED_MODELS = 1024  # model rows kept per process for serving their pages (each a few KB with its config)


@dataclass(frozen=True, slots=True)
class Suggestion:
    url: str
    hub_id: str
    display_name: str
    organisation: str
    family: str
    params_billions: float | None


def suggestions(text: str, limit: int = SUGGESTIONS) -> list[Suggestion]:
    """Models for the search box as the reader types: names that start with the text first, then organisations or
    families that do, then names that contain every word; each tier alphabetical, at most `limit` in all."""
    text = " ".join(text.split())[:200]
    if not text:
        return []
    fields = ("hub_id", "display_name", "organisation", "family", "params_total")
    picked: list[Model] = []
    tiers: list[QuerySet[Model]] = [
        Model.objects.filter(display_name__istartswith=text).order_by(Lower("display_name"), "pk"),
        Model.objects.filter(Q(organisation__istartswith=text) | Q(family__istartswith=text)).order_by(
            Lower("organisation"), Lower("display_name"), "pk"
        ),
        models_list(text).order_by(Lower("display_name"), "pk"),
    ]
    for tier in tiers:
        if len(picked) >= limit:
            break
        seen = [m.pk for m in picked]
        picked.extend(tier.exclude(pk__in=seen).only(*fields)[: limit - len(picked)])
    return [
        Suggestion(
            url=m.url,
            hub_id=m.hub_id,
            display_name=m.display_name,
            organisation=m.organisation,
            family=m.family,
            params_billions=m.params_total / 1e9 if m.params_total else None,
        )
        for m in picked
    ]


def model_by_hub_id(hub_id: HubId | str) -> Model | None:
    value = hub_id.value if isinstance(hub_id, HubId) else hub_id
    return Model.objects.filter(hub_id__iexact=value).first()


# The catalog row a page's URL names, read once per state of the catalog in this process (an import, a bundled load
# or an admin edit bumps the generation): reading the row parses its config.json, ~1 ms of every model page. Pages
# only read it; whatever writes a model reads it afresh with ``model_by_hub_id``.
SERVED_MODELS: Kept[Model | None] = Kept(
    "served-model", depends_on=(CATALOG_GENERATION,), where=PROCESS, max_entries=MAX_SERVED_MODELS
)


def served_model(hub_id: HubId) -> Model | None:
    """The catalog model ``hub_id`` names (any letter case), for serving a page."""
    return SERVED_MODELS.get(lambda: model_by_hub_id(hub_id), hub_id.value.lower())


def _close_strings(word: str, possibilities: list[str], limit: int, cutoff: float = 0.5) -> list[str]:
    """``difflib.get_close_matches(word, possibilities, limit, cutoff)``: the same answer, without difflib scoring
    every possibility in Python (0.2 to 1 s for one query at 20,000 catalog ids).

    difflib's ratio counts the characters of its matching blocks, which form a common subsequence, so it never
    exceeds rapidfuzz's ``fuzz.ratio`` (twice the longest common subsequence over the summed lengths), which C code
    computes for every possibility at once. difflib then scores candidates in falling order of that bound and stops
    once no remaining candidate can reach the ``limit``-th best score.
    """
    epsilon = 1e-9  # rapidfuzz's percentages are floats; never prune a candidate on a rounding error
    lowest = max(0.0, cutoff * 100 - epsilon)
    bounded = process.extract(word, possibilities, scorer=fuzz.ratio, processor=None, score_cutoff=lowest, limit=None)
    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(word)
    best: list[tuple[float, str]] = []  # a min-heap of the best (score, possibility) so far, as difflib ranks them
    for possibility, bound, _ in bounded:
        if len(best) == limit and bound / 100 + epsilon < best[0][0]:
            break
        matcher.set_seq1(possibility)
        score = matcher.ratio()
        if score >= cutoff:
            if len(best) < limit:
                heapq.heappush(best, (score, possibility))
            else:
                heapq.heappushpop(best, (score, possibility))
    return [possibility for _, possibility in heapq.nlargest(limit, best)]


def close_matches(text: str, limit: int = 5) -> list[Model]:
    """Catalog models whose id or name looks like what the reader typed."""
    text = text.strip().lower()
    if not text:
        return []
    ids = list(Model.objects.values_list("hub_id", flat=True))
    by_lower = {i.lower(): i for i in ids}
    names = {i.split("/", 1)[1].lower(): i for i in ids}
    found = _close_strings(text, list(by_lower), limit)
    picked = [by_lower[f] for f in found]
    name = text.split("/", 1)[-1]
    for match in _close_strings(name, list(names), limit):
        if names[match] not in picked:
            picked.append(names[match])
    for i in ids:
        if name and name in i.lower() and i not in picked:
            picked.append(i)
    order = {hub_id.lower(): n for n, hub_id in enumerate(picked[:limit])}
    # by lower-case id, which the case-insensitive unique index answers (a plain hub_id__in reads the whole table)
    rows = Model.objects.alias(hub_id_lower=Lower("hub_id")).filter(hub_id_lower__in=order)
    return sorted(rows, key=lambda m: order[m.hub_id.lower()])


def import_request_for(hub_id: HubId, now: datetime | None = None) -> ImportRequest | None:
    """The import request of a Hub id. One still pending past its time limit reads as failed (timed out), as the
    reaper will record it, so no page polls for it; posting the id again queues it anew."""
    request = ImportRequest.objects.filter(hub_id__iexact=hub_id.value).select_related("model").first()
    if request is not None and request.is_stale(now or timezone.now()):
        request.state = ImportRequest.State.FAILED
        request.failure, request.reason = ImportRequest.TIMED_OUT, ImportRequest.TIMED_OUT_REASON
    return request
