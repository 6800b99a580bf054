"""Every query a page runs against the price tables uses an index, checked with EXPLAIN on months of history.

The history is synthetic (``pricing_generate_offers``: hourly snapshots of every provider, prices varied from the
bundled snapshot), generated into the test database and rolled back with it.
"""

from __future__ import annotations

import json
import os
from contextlib import contextmanager
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from calculator.page.sources import page_offers
from pricing.selectors import prices_captured_at

# A million offers (about five months of hourly refreshes of the bundled providers): the size the indexes are for.
# Smaller tables get other plans (at 50,000 the planner rightly reads the whole, small, snapshot table), so they
# would not show what a million does. About 30 s, most of it generating the rows; PRICING_PAGE_QUERY_ROWS changes it.
ROWS = int(os.environ.get("PRICING_PAGE_QUERY_ROWS", "1000000"))
BIG_TABLES = {"pricing_offer", "pricing_pricesnapshot"}
PAGES = ["/en/gpus/h100-sxm/", "/en/gpus/", "/en/providers/", "/en/providers/runpod/"]

pytestmark = pytest.mark.django_db


def _plan_nodes(sql: str) -> list[dict]:
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (FORMAT JSON) " + sql)
        plan = cursor.fetchone()[0]
    plan = json.loads(plan) if isinstance(plan, str) else plan
    nodes, todo = [], [plan[0]["Plan"]]
    while todo:
        node = todo.pop()
        nodes.append(node)
        todo.extend(node.get("Plans", []))
    return nodes


@pytest.fixture
def months_of_history(require_postgres):
    call_command("load_prices", stdout=StringIO())
    with _without_deferred_key_checks():
        call_command("pricing_generate_offers", rows=ROWS, synthetic_confirmed=True, stdout=StringIO())


@contextmanager
def _without_deferred_key_checks():
    """Django's foreign keys are checked at commit, and a test case checks them all before its rollback: for a
    million generated rows that is 20-30 s spent on keys the generator copied from rows that exist. As a superuser
    (CI's postgres) the rows are written with triggers off, so no check is queued; otherwise they are checked."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")
        superuser = bool(cursor.fetchone()[0])
        if superuser:
            cursor.execute("SET LOCAL session_replication_role = replica")
    try:
        yield
    finally:
        if superuser:
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL session_replication_role = origin")


@pytest.mark.services
@pytest.mark.slow
def test_every_page_query_on_the_price_tables_uses_an_index(months_of_history, client):
    with CaptureQueriesContext(connection) as queries:
        for path in PAGES:
            assert client.get(path).status_code == 200, path
        assert page_offers()  # the model pages' ranking
        assert prices_captured_at()  # the footer, on a cache miss
    checked = {q["sql"] for q in queries.captured_queries if any(t in q["sql"] for t in BIG_TABLES)}
    assert len(checked) >= 8
    for sql in checked:
        nodes = _plan_nodes(sql)
        scans = [(n["Node Type"], n.get("Relation Name")) for n in nodes if n.get("Relation Name") in BIG_TABLES]
        assert scans and all(kind != "Seq Scan" for kind, _table in scans), f"{scans}\n{sql}"
    footer = next(sql for sql in checked if 'MAX("pricing_offer"."captured_at")' in sql)
    assert {n.get("Index Name") for n in _plan_nodes(footer)} >= {"pricing_offer_captured_at"}
