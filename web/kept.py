"""The one way to keep a computed value: ``Kept``, keyed by exactly the data generations and inputs it depends on.

Declare a kept value once, at module level, saying what it depends on::

    HOME_ANSWERS = Kept("home-answers", depends_on=(CATALOG_GENERATION, PRICES_GENERATION), per_language=True)
    answers = HOME_ANSWERS.get(compute, today)

The key is the name, the current token of each generation in ``depends_on`` (``web.generations``), the active
language when ``per_language`` is set, and the inputs passed to ``get`` (hashable, with a stable ``repr`` when the
value is shared). Nothing else invalidates a kept value: a bumped generation, another language or other inputs give
another key, and the old entry is never read again (it expires, or falls out of the bounded store).

Two places to keep it:
- ``SHARED`` (the default cache, Redis in production): every process reads the same entry; for values that cost
  more to compute than a round trip (the home answers, a share-card PNG, the offers every page ranks);
- ``PROCESS``: a bounded store in this process (least recently used out first), for values read many times per
  request or too large to ship (a model's page basis, a parsed spec, an offload row). Keyed by the same shared
  generations, so every process drops them at the same import or refresh.

When the cache is down the generations cannot be read: a value that depends on one is then computed, never kept.

``checking_language()`` (tests) makes every value not declared ``per_language`` compute itself again in the other
language and fail with ``LanguageDependentValue`` when the two differ: a key that omits the language of a value
whose text or links depend on it (the German home page once linked to English model pages that way).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Generic, Literal, TypeVar

from django.conf import settings
from django.core.cache import cache
from django.utils import translation

from web.generations import Generation, current_tokens

T = TypeVar("T")
Where = Literal["shared", "process"]
SHARED: Where = "shared"
PROCESS: Where = "process"
KEY_PREFIX = "kept:1:"  # bump when the shape of a kept value changes: entries of the old shape are never read

_checking_language: ContextVar[bool] = ContextVar("kept_checking_language", default=False)


class LanguageDependentValue(AssertionError):
    """A kept value not declared ``per_language`` came out different in another language."""


class Kept(Generic[T]):
    """A value computed once per key; see the module's docstring."""

    registry: dict[str, Kept[Any]] = {}

    def __init__(
        self,
        name: str,
        *,
        depends_on: tuple[Generation, ...] = (),
        per_language: bool = False,
        where: Where = SHARED,
        seconds: int | None = 60 * 60,
        max_entries: int = 512,
    ) -> None:
        if name in Kept.registry:
            raise ValueError(f"a kept value named {name!r} is declared already")
        self.name = name
        self.depends_on = depends_on
        self.per_language = per_language
        self.where = where
        self.seconds = seconds  # shared entries expire after this (None: never)
        self.max_entries = max_entries  # process entries kept at most
        self._entries: OrderedDict[tuple[Hashable, ...], T] = OrderedDict()
        self._lock = threading.Lock()
        Kept.registry[name] = self

    def __repr__(self) -> str:
        return f"Kept({self.name!r})"

    def key(self, inputs: tuple[Hashable, ...]) -> tuple[Hashable, ...] | None:
        """The parts of the key for ``inputs`` now, or None when the generations cannot be read (cache down)."""
        tokens: tuple[str, ...] = ()
        if self.depends_on:
            found = current_tokens(self.depends_on)
            if found is None:
                return None
            tokens = tuple(found[g.key] for g in self.depends_on)
        language = (translation.get_language() or settings.LANGUAGE_CODE) if self.per_language else ""
        return (self.name, tokens, language, inputs)

    def get(self, compute: Callable[[], T], *inputs: Hashable) -> T:
        """The kept value for ``inputs``, computed with ``compute()`` the first time its key is asked for."""
        if _checking_language.get() and not self.per_language:
            return self._checked(compute)
        return self._found(self.key(inputs), compute)

    def reader(self) -> Callable[..., T]:
        """``get`` with the generations and the language read once, for many values read together (a page's
        sections): ``read = KEPT.reader(); read(compute, *inputs)``. Use it within one request."""
        if _checking_language.get() and not self.per_language:
            return self.get
        common = self.key(())
        if common is None:
            return lambda compute, *inputs: compute()
        name, tokens, language, _ = common
        return lambda compute, *inputs: self._found((name, tokens, language, inputs), compute)

    def _found(self, parts: tuple[Hashable, ...] | None, compute: Callable[[], T]) -> T:
        if parts is None:
            return compute()
        if self.where == PROCESS:
            return self._in_process(parts, compute)
        shared_key = KEY_PREFIX + hashlib.blake2b(repr(parts).encode(), digest_size=20).hexdigest()
        found = cache.get(shared_key)  # (value,): a kept None is told apart from a miss
        if found is None:
            found = (compute(),)
            cache.set(shared_key, found, self.seconds)
        return found[0]

    def _in_process(self, parts: tuple[Hashable, ...], compute: Callable[[], T]) -> T:
        with self._lock:
            if parts in self._entries:
                self._entries.move_to_end(parts)
                return self._entries[parts]
        value = compute()
        with self._lock:
            self._entries[parts] = value
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)
        return value

    def _checked(self, compute: Callable[[], T]) -> T:
        value = compute()
        current = translation.get_language() or settings.LANGUAGE_CODE
        other = next(code for code, _ in settings.LANGUAGES if code != current)
        with translation.override(other):
            again = compute()
        if again != value:
            raise LanguageDependentValue(
                f"{self.name} differs between {current!r} and {other!r} but its key leaves the language out"
            )
        return value

    def forget(self) -> None:
        """Drops what this process keeps of it (tests; shared entries go with their generation)."""
        with self._lock:
            self._entries.clear()


def forget_all() -> None:
    """Drops every value kept in this process."""
    for kept in Kept.registry.values():
        kept.forget()


@contextmanager
def checking_language() -> Iterator[None]:
    """Every kept value read inside is checked: one not declared per language must not depend on it."""
    reset = _checking_language.set(True)
    try:
        yield
    finally:
        _checking_language.reset(reset)
