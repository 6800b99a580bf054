"""The query-string parser the model page and the API share (calculator/forms.py), under arbitrary input: it never
raises, and every value it returns lies inside the bounds the form states."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from django.http import QueryDict
from hypothesis import given, settings
from hypothesis import strategies as st

from calculator.estimation import ENGINES, FRAMEWORKS_KEYS, KV_DTYPES, OPTIMIZERS, Mode
from calculator.state import (
    FIELD_NAMES,
    MAX_BATCH,
    MAX_CONCURRENCY,
    MAX_CONTEXT_TOKENS,
    MAX_GPUS,
    MAX_LORA_RANK,
    Choice,
    PageChoices,
    parse_state,
    parse_state_strict,
    parse_tokens,
)

CHOICES = PageChoices(
    precisions=(Choice("fp16", "FP16"), Choice("int4", "INT4"), Choice("build:q4", "Q4")),
    max_context=131072,
    gpus=(Choice("h200-sxm", "H200"), Choice("mac-64", "Mac 64 GB")),
)
# Text the way a query string carries it: numbers, token counts, words, odd characters and long runs.
VALUES = st.one_of(
    st.text(max_size=80),
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.from_regex(r"\s*[0-9]{1,12}(\.[0-9]{1,4})?\s*[kKmM]?\s*", fullmatch=True),
    st.sampled_from(["on", "off", "1", "0", "fp16", "INT4", "build:q4", "mac-64", "vLLM", "qlora", "1e309", "-0"]),
)
QUERIES = st.lists(st.tuples(st.sampled_from([*FIELD_NAMES, "other"]), VALUES), max_size=24)


def _query(pairs: list[tuple[str, str]]) -> QueryDict:
    return QueryDict(urlencode(pairs))


@pytest.mark.slow
@settings(max_examples=300, derandomize=True, database=None)
@given(QUERIES)
def test_parser_never_raises_and_stays_in_bounds(pairs):
    state = parse_state(_query(pairs), CHOICES).state

    assert state.precision in {c.value for c in CHOICES.precisions}
    assert state.mode in {m.value for m in Mode}
    assert state.engine in ENGINES and state.kv in KV_DTYPES and state.optimizer in OPTIMIZERS
    assert state.framework in FRAMEWORKS_KEYS
    assert 1 <= state.concurrency <= MAX_CONCURRENCY
    assert 1 <= state.context <= CHOICES.max_context
    assert 0 <= state.seq <= CHOICES.max_context
    assert 1 <= state.batch <= MAX_BATCH and 1 <= state.rank <= MAX_LORA_RANK
    assert state.gpu in {c.value for c in CHOICES.gpus} and 1 <= state.gpus <= MAX_GPUS
    assert 0 <= state.ratio <= 1000 and 0 <= state.cached <= 100
    assert isinstance(state.checkpointing, bool)


@settings(max_examples=200, derandomize=True, database=None)
@given(QUERIES)
def test_strict_parser_flags_exactly_what_the_page_ignores(pairs):
    query = _query(pairs)
    page = parse_state(query, CHOICES)
    strict = parse_state_strict(query, CHOICES)

    assert strict.state == page.state
    assert set(strict.problems) == {item.name for item in page.ignored}


@settings(max_examples=200, derandomize=True, database=None)
@given(VALUES)
def test_token_counts_are_whole_and_never_negative(text):
    tokens = parse_tokens(text)

    assert tokens is None or (isinstance(tokens, int) and tokens >= 0)


def test_a_model_without_a_known_window_is_bounded_by_the_form_limit():
    choices = PageChoices(precisions=(Choice("fp16", "FP16"),), max_context=None)

    assert parse_state(_query([("context", "1e12")]), choices).state.context == 8192
    assert parse_state(_query([("context", "999M")]), choices).state.context == MAX_CONTEXT_TOKENS
