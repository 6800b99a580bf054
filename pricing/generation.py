"""The price-data generation: one cache token for everything computed from prices (``web.generations``).

Every price store (a refresh that stores or confirms prices, a prune that deletes old ones, a fold into the price
history) bumps it, so a value cached under it (``cache.get(key, version=prices_generation())``) is computed once per
state of the price tables and never outlives it.
"""

from __future__ import annotations

from web.generations import Generation

PRICES_GENERATION_KEY = "pricing:generation"
PRICES_GENERATION = Generation(PRICES_GENERATION_KEY)


def prices_generation() -> str:
    """Cache version for anything computed from prices; a refresh bumps it."""
    return PRICES_GENERATION.current()


def prices_generation_bump() -> None:
    PRICES_GENERATION.bump()
