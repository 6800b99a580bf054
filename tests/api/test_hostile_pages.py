"""Hostile input at the site's other entry points: the model page's query string, the catalog search and the
import form's model id. Whatever arrives, the answer is never a server error."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlencode

import pytest
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from calculator.state import FIELD_NAMES
from models_catalog import services
from models_catalog.hub_ids import InvalidHubId, parse_hub_id

SHIPPED = Path(services.__file__).resolve().parent / "data" / "hub"
TEXT = st.text(max_size=120)
PAIRS = st.lists(st.tuples(st.sampled_from([*FIELD_NAMES, "q", "page", "sort"]), TEXT), max_size=12)
FUZZ = settings(
    max_examples=40,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


@pytest.fixture
def catalog():
    services.model_import_offline(SHIPPED)


@FUZZ
@given(pairs=PAIRS)
def test_model_page_query_strings_never_fail(catalog, pairs):
    response = Client().get("/en/models/zai-org/GLM-5.3-Flash/?" + urlencode(pairs))

    assert response.status_code == 200


@FUZZ
@given(pairs=PAIRS)
def test_catalog_search_never_fails(catalog, pairs):
    response = Client().get("/en/models/?" + urlencode(pairs))

    assert response.status_code < 500


@settings(max_examples=300, derandomize=True, database=None)
@given(text=st.one_of(TEXT, st.from_regex(r"[A-Za-z0-9._-]{0,100}/[A-Za-z0-9._-]{0,100}", fullmatch=True)))
def test_import_ids_parse_or_say_why(text):
    try:
        hub_id = parse_hub_id(text)
    except InvalidHubId as exc:
        assert str(exc)
    else:
        assert hub_id.value == text.strip() and hub_id.value.count("/") == 1
