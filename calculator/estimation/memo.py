"""What the core derives from a model's spec, remembered per spec object: a spec is immutable, so whatever is
computed from it (its constants, its per-tensor GGUF sizes, an estimate for a workload) holds as long as it lives.

One store for the whole core (``per_spec``), keyed by what is remembered, the spec's identity and the other
inputs. Each entry holds its spec, so the spec's id is never reused while the entry lives; the store is emptied
when full. The web layer keeps one spec object per catalog row version (``calculator.page.sources``), so every
request for a model reuses what the core remembered.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar, cast

from models_catalog.architecture import ModelSpec

V = TypeVar("V")
LIMIT = 16384  # entries of every kind together: a few MB

_store: dict[tuple[str, int, Hashable], tuple[ModelSpec, Any]] = {}


def per_spec(kind: str, spec: ModelSpec, key: Hashable, compute: Callable[[], V]) -> V:
    """``compute()`` for ``spec`` and ``key``, remembered under ``kind`` (what it is: "facts", "estimate", ...).
    A ``key`` that cannot be hashed is computed, not remembered."""
    try:
        entry = _store.get((kind, id(spec), key))
    except TypeError:
        return compute()
    if entry is not None and entry[0] is spec:
        return cast(V, entry[1])  # what compute() returned for the same kind, spec and key
    value = compute()
    if len(_store) >= LIMIT:
        _store.clear()
    _store[(kind, id(spec), key)] = (spec, value)
    return value


def forget() -> None:
    """Empties the store (tests, benchmarks that time a first computation)."""
    _store.clear()
