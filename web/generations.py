"""Cache generations: one token in the default cache per kind of stored data, naming its current state.

Anything computed from that data is kept under a key that includes the token (``web.kept``) or stored with the token
and compared on reading (the page cache); bumping the token makes every such entry outdated at once, with no need to
know where the entries are. The tokens live only in the cache, so reading them never touches the database (a cached
page still serves while the database is down).

The two generations the site has live here and nowhere else:
- ``CATALOG_GENERATION``: the model catalog (an import saves a model, the bundled data loads, an admin edit);
- ``PRICES_GENERATION``: the price data (a refresh stores or confirms prices, a prune, a fold into the history, an
  API-price load, an admin edit of a GPU or provider).

A request reads both tokens once (``current_tokens``): the page cache reads them with the page and hands them to the
rest of the request (``request_tokens``), so a kept value read later in the same request costs no second round trip.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from django.core.cache import cache


def _new_token() -> str:
    # A fresh random token, not a counter: after the key is evicted a counter would start again at a value some
    # entries were cached under, and those would be served as current.
    return secrets.token_hex(8)


# The tokens this request already read ({key: token}); empty outside a request that read them.
_request_tokens: ContextVar[dict[str, str] | None] = ContextVar("generation_tokens", default=None)


@dataclass(frozen=True, slots=True)
class Generation:
    key: str  # the cache key that holds the token

    def current(self) -> str:
        known = _request_tokens.get()
        if known is not None and self.key in known:
            return known[self.key]
        return str(cache.get_or_set(self.key, _new_token, timeout=None))

    def bump(self) -> None:
        token = _new_token()
        cache.set(self.key, token, timeout=None)
        known = _request_tokens.get()
        if known is not None and self.key in known:
            known[self.key] = token  # what this request keeps from now on is kept under the new state


CATALOG_GENERATION = Generation("catalog:generation")
PRICES_GENERATION = Generation("pricing:generation")
GENERATIONS: tuple[Generation, ...] = (CATALOG_GENERATION, PRICES_GENERATION)


def current_tokens(generations: tuple[Generation, ...] = GENERATIONS) -> dict[str, str] | None:
    """The current token of each generation by its key, in one cache round trip (a missing one is created and read
    back); the request's own tokens where it read them already. None when the cache cannot keep them (it is down
    and answers nothing): then nothing may be kept or reused."""
    known = _request_tokens.get()
    if known is not None and all(g.key in known for g in generations):
        return {g.key: known[g.key] for g in generations}
    keys = [g.key for g in generations]
    found = cache.get_many(keys)
    if len(found) < len(keys):
        for g in generations:
            if g.key not in found:
                g.current()
        found = cache.get_many(keys)
        if len(found) < len(keys):
            return None
    return {key: str(found[key]) for key in keys}


@contextmanager
def request_tokens(tokens: dict[str, str]) -> Iterator[None]:
    """The tokens one request read (the page cache reads them with the page); every kept value the request reads
    is keyed by these, so the page and what it is made of belong to one state of the data."""
    reset = _request_tokens.set(dict(tokens))
    try:
        yield
    finally:
        _request_tokens.reset(reset)
