"""Fixtures the browser tests share."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.apps import apps
from django.core.management.color import no_style
from django.db import connection
from django.db.models import Model as DjangoModel

from models_catalog import services
from tests.browser.bundled_site import serve_bundled_site
from web.generations import CATALOG_GENERATION

SHIPPED = Path(services.__file__).resolve().parent / "data" / "hub"


@pytest.fixture(scope="session")
def site_url(chromium_browser) -> Iterator[str]:
    """The base URL of the bundled site (gunicorn on the bundled catalog and prices, its own SQLite file).

    Session-scoped, so each pytest process (each pytest-xdist worker) starts it at most once, on the first test that
    asks for it, however the scheduler interleaves those tests with others: a module-scoped site would be started
    again each time the worker came back to the module.
    """
    with serve_bundled_site() as base_url:
        yield base_url


# What importing the shipped catalog wrote, per model class: the first test in this process that asks for the
# catalog imports it for real, the later ones get the same rows back in one INSERT per table.
_CATALOG_ROWS: dict[type[DjangoModel], list[DjangoModel]] = {}


def _row_counts() -> dict[type[DjangoModel], int]:
    return {model: model._default_manager.count() for model in apps.get_models()}


def _parents_first(models: list[type[DjangoModel]]) -> list[type[DjangoModel]]:
    ordered: list[type[DjangoModel]] = []
    while len(ordered) < len(models):
        for model in models:
            parents = {field.related_model for field in model._meta.concrete_fields if field.is_relation}
            if model not in ordered and not (parents & set(models)) - set(ordered) - {model}:
                ordered.append(model)
    return ordered


@pytest.fixture
def shipped_catalog(transactional_db) -> None:
    """The shipped catalog in the test database, for tests that need it committed (live server, transaction=True).

    `services.model_import_offline(SHIPPED)` costs a couple of seconds, and the tables are emptied after every
    transactional test. So the first test imports it and keeps the rows it wrote (of whatever tables); each later test
    writes those same rows back in bulk, sets the id sequences past them and bumps the catalog generation, as the
    import does.
    """
    if not _CATALOG_ROWS:
        before = _row_counts()
        services.model_import_offline(SHIPPED)
        written = [model for model, count in _row_counts().items() if count != before[model]]
        for model in _parents_first(written):
            _CATALOG_ROWS[model] = list(model._default_manager.order_by("pk"))
        return
    for model, rows in _CATALOG_ROWS.items():
        model._default_manager.bulk_create([copy.copy(row) for row in rows])
    with connection.cursor() as cursor:
        for sql in connection.ops.sequence_reset_sql(no_style(), list(_CATALOG_ROWS)):
            cursor.execute(sql)
    CATALOG_GENERATION.bump()
