"""Cache generations: one token in the default cache that names the current state of some stored data.

Anything computed from that data is cached under a key that includes the token (or stored with the token and
compared on reading); bumping the token makes every such entry outdated at once, with no need to know where the
entries are. The token lives only in the cache, so reading it never touches the database (a cached page still
serves while the database is down).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from django.core.cache import cache


def _new_token() -> str:
    # A fresh random token, not a counter: after the key is evicted a counter would start again at a value some
    # entries were cached under, and those would be served as current.
    return secrets.token_hex(8)


@dataclass(frozen=True, slots=True)
class Generation:
    key: str  # the cache key that holds the token

    def current(self) -> str:
        return str(cache.get_or_set(self.key, _new_token, timeout=None))

    def bump(self) -> None:
        cache.set(self.key, _new_token(), timeout=None)


# Bumped whenever the model catalog changes (an import saves a model, the bundled data loads).
CATALOG_GENERATION = Generation("catalog:generation")
