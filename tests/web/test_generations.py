"""Cache generations: a token that stays until bumped, read from the cache alone."""

from __future__ import annotations

from django.core.cache import cache

from web.generations import Generation


def test_a_generation_stays_until_bumped_and_changes_when_it_is():
    catalog = Generation("test:generation")
    first = catalog.current()
    assert catalog.current() == first

    catalog.bump()

    assert catalog.current() != first


def test_an_evicted_generation_starts_a_new_token_not_an_old_one():
    catalog = Generation("test:generation")
    first = catalog.current()
    cache.delete(catalog.key)
    assert catalog.current() != first
