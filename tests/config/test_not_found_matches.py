"""The 404 model page's "did you mean" list: difflib's answer, found without scoring the whole catalog in Python.

models_catalog.selectors.search scores only the candidates a C upper bound (rapidfuzz) cannot rule out; these tests hold
it to exactly difflib.get_close_matches, ties included, on catalogs built to be full of near misses.
"""

from __future__ import annotations

import difflib
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models_catalog.models import Model
from models_catalog.selectors import close_matches
from models_catalog.selectors.search import _close_strings

# Few letters, so that ids share long runs, scores tie and the cutoff falls between candidates.
ids = st.text(alphabet="ab-/.3", min_size=1, max_size=14)


@settings(max_examples=400, deadline=None)
@given(
    word=st.text(alphabet="ab-/.3x", max_size=14),
    possibilities=st.lists(ids, max_size=60, unique=True),
    limit=st.integers(min_value=1, max_value=6),
    cutoff=st.sampled_from([0.0, 0.3, 0.5, 0.6, 0.8, 1.0]),
)
def test_the_same_answer_as_difflib(word, possibilities, limit, cutoff):
    expected = difflib.get_close_matches(word, possibilities, n=limit, cutoff=cutoff)
    assert _close_strings(word, possibilities, limit, cutoff) == expected


@pytest.mark.django_db
def test_a_typo_in_a_large_catalog_finds_the_model_first():
    now = datetime.now(UTC)
    names = [f"Model-{size}B-{variant}" for size in range(1, 400) for variant in ("Base", "Instruct", "Chat")]
    Model.objects.bulk_create(
        Model(hub_id=f"lab/{name}", slug=f"lab--{name}".lower(), display_name=name, organisation="lab", fetched_at=now)
        for name in names
    )

    found = [model.hub_id for model in close_matches("lab/Model-123B-Instrcut")]

    assert found[0] == "lab/Model-123B-Instruct"
    assert len(found) == 5
    assert found == [m.hub_id for m in close_matches("LAB/model-123b-instrcut ")]  # case and spaces do not matter
