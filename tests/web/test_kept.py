"""The one caching seam: a kept value is keyed by exactly the generations, language and inputs it depends on."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
from django.core.cache import cache
from django.utils import translation
from django.utils.translation import gettext

from tests.support import ROOT
from web.generations import CATALOG_GENERATION, PRICES_GENERATION, Generation, current_tokens, request_tokens
from web.kept import PROCESS, SHARED, Kept, LanguageDependentValue, checking_language


@pytest.fixture
def declared():
    """Kept values declared by a test, dropped from the registry after it."""
    names: list[str] = []

    def declare(name: str, **options) -> Kept:
        names.append(name)
        return Kept(name, **options)

    yield declare
    for name in names:
        Kept.registry.pop(name, None)


@pytest.mark.parametrize("where", [SHARED, PROCESS])
def test_kept_until_a_generation_it_depends_on_is_bumped(declared, where):
    counter = itertools.count()
    kept = declared(f"test-counter-{where}", depends_on=(CATALOG_GENERATION,), where=where)

    first = kept.get(lambda: next(counter), "a")
    assert kept.get(lambda: next(counter), "a") == first
    assert kept.get(lambda: next(counter), "b") != first  # other inputs, another entry
    PRICES_GENERATION.bump()
    assert kept.get(lambda: next(counter), "a") == first  # a generation it does not depend on
    CATALOG_GENERATION.bump()
    assert kept.get(lambda: next(counter), "a") != first


def test_a_kept_none_is_not_computed_again(declared):
    calls = []
    kept = declared("test-none")
    assert kept.get(lambda: calls.append(1)) is None
    assert kept.get(lambda: calls.append(1)) is None
    assert calls == [1]


@pytest.mark.parametrize("where", [SHARED, PROCESS])
def test_per_language_values_are_kept_once_per_language(declared, where):
    kept = declared(f"test-language-{where}", per_language=True, where=where)
    with translation.override("en"):
        english = kept.get(lambda: gettext("Weights"))
    with translation.override("de"):
        german = kept.get(lambda: gettext("Weights"))
    assert (english, german) == ("Weights", "Gewichte")


def test_a_value_whose_key_leaves_out_the_language_it_depends_on_fails_the_check(declared):
    kept = declared("test-forgot-language")
    with translation.override("en"), checking_language(), pytest.raises(LanguageDependentValue, match="test-forgot"):
        kept.get(lambda: gettext("Weights"))
    with translation.override("en"), checking_language():
        assert kept.get(lambda: 42) == 42  # the same in every language: fine


def test_nothing_kept_while_the_cache_cannot_name_the_generations(declared, monkeypatch):
    counter = itertools.count()
    kept = declared("test-down", depends_on=(PRICES_GENERATION,), where=PROCESS)
    monkeypatch.setattr(cache, "get_many", lambda keys: {})  # a cache that is down answers nothing
    assert kept.get(lambda: next(counter)) != kept.get(lambda: next(counter))


def test_process_entries_are_bounded_least_recently_used_out_first(declared):
    kept = declared("test-bounded", where=PROCESS, max_entries=2)
    kept.get(lambda: 1, "a")
    kept.get(lambda: 2, "b")
    kept.get(lambda: 1, "a")  # used again: "b" is now the oldest
    kept.get(lambda: 3, "c")
    assert [key[-1] for key in kept._entries] == [("a",), ("c",)]


def test_a_request_reads_the_generations_once_and_follows_its_own_bump():
    tokens = current_tokens()
    assert tokens is not None
    with request_tokens(tokens):
        cache.set(PRICES_GENERATION.key, "changed by another process", None)
        assert current_tokens() == tokens  # one state of the data for the whole request
        CATALOG_GENERATION.bump()
        assert current_tokens()[CATALOG_GENERATION.key] != tokens[CATALOG_GENERATION.key]
    assert current_tokens()[PRICES_GENERATION.key] == "changed by another process"


def test_two_values_cannot_share_a_name(declared):
    declared("test-twice")
    with pytest.raises(ValueError, match="declared already"):
        Kept("test-twice")


def test_every_generation_lives_in_one_module():
    generations = [m for m in re.finditer(r"Generation\(\"", _project_source()) if m]
    assert len(generations) == 2, "a data generation is declared outside web/generations.py"
    assert isinstance(CATALOG_GENERATION, Generation) and isinstance(PRICES_GENERATION, Generation)


# Direct uses of a cache that are not kept values: the page cache (pages stored with their generations, a stampede
# lock, compressed copies), locks and counters, and the health check's round trip.
NOT_KEPT_VALUES = {
    "config/page_cache.py",
    "config/health.py",
    "models_catalog/import_requests.py",  # the import throttle's counter
    "models_catalog/discovery.py",  # a discovery step's lock (one worker runs it at a time)
    "pricing/services.py",  # the refresh lock
    "web/generations.py",
    "web/kept.py",
    "web/cache.py",
}

# Memos of pure functions whose every input, the locale or language included, is an argument, and files shipped
# with the code, read once per process (they change only with a deploy).
PURE_MEMOS = {
    "calculator/formatting.py",  # number and date formats per value and locale
    "config/page_cache.py",  # a path's URL name per language
    "config/jinja2.py",  # a URL name's path, a page's path in another language, static URLs, translations
    "calculator/og_image.py",  # Pillow's bundled font per size
    "calculator/management/options.py",  # the recorded catalog ids and GPU names the CLI accepts
    "models_catalog/specs.py",  # reference_facts.json
    "pricing/gpus.py",  # gpus.json
    "pricing/owned.py",  # owned-servers.json
    "calculator/validation/computed.py",  # computed.json, the matrix's kept predictions
    "calculator/validation/bands.py",  # the error bands of those kept predictions
    "calculator/estimation/speed/kernels.py",  # kernels.json, the measured kernel tables
}


def test_every_kept_value_goes_through_the_seam():
    offenders = []
    for path in _project_files():
        relative = path.relative_to(ROOT).as_posix()
        text = path.read_text()
        if relative not in NOT_KEPT_VALUES and re.search(r"\bcache\.(get|set|get_many|add|get_or_set)\(", text):
            offenders.append(f"{relative}: reads or writes the cache directly")
        if re.search(r"@(functools\.)?(lru_cache|cache)\b", text) and relative not in PURE_MEMOS:
            offenders.append(f"{relative}: a memo of its own")
        if re.search(r"_(CACHE|REMEMBERED|SPECS|kept)\w*: dict", text):
            offenders.append(f"{relative}: a store of its own")
    assert offenders == []


# The model page's modules that keep values: the readers of its inputs (the spec and offers: sources;
# the basis per model and day: basis), the view (each section's HTML) and the FAQ's plan (plan_kept; the planner's
# builder keeps nothing; the FAQ and the self-host chapter read the one kept plan). A section's builder keeps nothing
# itself: what it asks for more than once per page is computed once per page (``page.work.PageWork``).
PAGE_MODULES_THAT_KEEP = {"sources.py", "basis.py", "view.py", "plan_kept.py"}


def test_the_page_sections_builders_keep_nothing_themselves():
    keeping = sorted(
        path.name
        for path in (ROOT / "calculator" / "page").glob("*.py")
        if re.search(r"^from web\.kept import|^import web\.kept", path.read_text(), re.M)
    )
    assert set(keeping) <= PAGE_MODULES_THAT_KEEP, keeping


def _project_files() -> list[Path]:
    return [
        path
        for package in ("calculator", "config", "models_catalog", "pricing", "web")
        for path in (ROOT / package).rglob("*.py")
        if "migrations" not in path.parts
    ]


def _project_source() -> str:
    return "\n".join(path.read_text() for path in _project_files())
