"""Hostile input: schemathesis generates requests from the published OpenAPI document, valid and invalid, and every
answer must be below 500, carry a documented status and content type, and match its schema.

Bounded and repeatable: a fixed number of examples per operation with Hypothesis derandomized, so a run here takes
well under a minute and a failure reproduces. The catalog model and GPU are pinned in some runs so the generated
calculator parameters reach the real estimate rather than a 404.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from django.core import signals
from django.core.management import call_command
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from models_catalog import services
from pricing.api_price_services import api_prices_load
from tests.support import rows_for_the_module

SHIPPED = Path(services.__file__).resolve().parent / "data" / "hub"
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
GLM = "zai-org/GLM-5.3-Flash"
POSITIVE, NEGATIVE = schemathesis.GenerationMode.POSITIVE, schemathesis.GenerationMode.NEGATIVE

# (operation, generation mode, fixed inputs, examples)
RUNS: tuple[tuple[str, str, schemathesis.GenerationMode, dict[str, Any], int], ...] = (
    ("GET", "/api/v1/estimate", POSITIVE, {"query": {"model": GLM}}, 60),
    ("GET", "/api/v1/estimate", POSITIVE, {}, 15),
    ("GET", "/api/v1/estimate", NEGATIVE, {}, 25),
    ("POST", "/api/v1/estimate", POSITIVE, {}, 25),
    ("POST", "/api/v1/estimate", NEGATIVE, {}, 25),
    ("GET", "/api/v1/models", POSITIVE, {}, 30),
    ("GET", "/api/v1/models", NEGATIVE, {}, 15),
    ("GET", "/api/v1/models/{org}/{name}", POSITIVE, {}, 15),
    (
        "GET",
        "/api/v1/models/{org}/{name}",
        POSITIVE,
        {"path_parameters": {"org": "zai-org", "name": "GLM-5.3-Flash"}},
        3,
    ),
    ("GET", "/api/v1/gpus", POSITIVE, {}, 3),
    ("GET", "/api/v1/gpus/{slug}/offers", POSITIVE, {}, 15),
    ("GET", "/api/v1/gpus/{slug}/offers", POSITIVE, {"path_parameters": {"slug": "mi300x"}}, 10),
    ("GET", "/api/v1/gpus/{slug}/offers", NEGATIVE, {"path_parameters": {"slug": "mi300x"}}, 10),
    ("GET", "/api/v1/providers", POSITIVE, {}, 3),
    ("GET", "/api/v1/api-prices", POSITIVE, {}, 15),
    ("GET", "/api/v1/api-prices", NEGATIVE, {}, 10),
)
CASES: Counter[str] = Counter()
STATUSES: Counter[tuple[str, int]] = Counter()

# Under pytest-xdist one worker runs the whole module in a row, so its rows are written once.
pytestmark = [pytest.mark.django_db, pytest.mark.xdist_group("api-fuzz"), pytest.mark.slow]


def _write_site() -> None:
    services.model_import_offline(SHIPPED)
    call_command("loaddata", "seed_offers_2026-11-13", verbosity=0)
    api_prices_load()


@pytest.fixture(scope="module")
def _site_rows(django_db_setup, django_db_blocker):
    """The catalog, the seed offers and the API prices, written once for the module's 16 runs, rolled back to after
    each run."""
    with rows_for_the_module(django_db_blocker, _write_site):
        yield


@pytest.fixture
def api_schema(settings, _site_rows, db):
    settings.API_RATE_LIMIT = ""  # the fuzz run is one client sending hundreds of requests
    # The WSGI handler closes database connections when a request starts and ends; inside the test's transaction
    # that would close the one connection the test holds (PostgreSQL then answers "the connection is closed").
    # Django's own test client disconnects these receivers the same way.
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        yield schemathesis.openapi.from_wsgi("/api/v1/openapi.json", get_wsgi_application())
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)


def _label(run: tuple[str, str, schemathesis.GenerationMode, dict[str, Any], int]) -> str:
    method, path, mode, fixed, _ = run
    return f"{method} {path} {mode.value}{' pinned' if fixed else ''}"


@pytest.mark.parametrize("run", RUNS, ids=_label)
def test_generated_requests_never_fail_the_server_and_match_the_schema(api_schema, run):
    method, path, mode, fixed, examples = run
    operation = api_schema[path][method]

    @given(case=operation.as_strategy(generation_mode=mode, **fixed))
    @settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    def check(case: schemathesis.Case) -> None:
        CASES[_label(run)] += 1
        # the raw bytes the schema describes: the test client decodes no gzip/br/zstd (the site compresses on request)
        response = case.call_and_validate(checks=CHECKS, headers={"Accept-Encoding": "identity"})
        STATUSES[(_label(run), response.status_code)] += 1

    check()
    assert CASES[_label(run)] >= 1
    if fixed and mode is POSITIVE:
        assert STATUSES[(_label(run), 200)] >= 1, "pinned runs reach the real answer"


def test_fuzz_run_size_is_a_few_hundred_cases():
    planned = sum(run[-1] for run in RUNS)
    assert 200 <= planned <= 400
