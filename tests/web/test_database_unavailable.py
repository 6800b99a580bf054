"""The database not answering: 503 with Retry-After instead of a 500, and a dropped connection that heals itself.

Real failures against the real PostgreSQL: the connection is pointed at a port where nothing listens, or its
server process is terminated from a second connection, as a restart would.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest
from django.db import OperationalError, connection
from django.http import HttpResponse
from django.test import RequestFactory

from models_catalog import services
from tests.web.wsgi import serve
from web.middleware import DatabaseUnavailable

SHIPPED = Path(services.__file__).resolve().parent / "data" / "hub"

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


@contextmanager
def database_unreachable() -> Iterator[None]:
    """Every new connection is refused (port 1: nothing listens there); the real settings come back afterwards."""
    saved = dict(connection.settings_dict)
    connection.close()
    connection.settings_dict.update(HOST="127.0.0.1", PORT="1")
    try:
        yield
    finally:
        connection.close()
        connection.settings_dict.clear()
        connection.settings_dict.update(saved)


def test_a_page_answers_503_with_retry_after_while_the_database_is_down(client, require_postgres, caplog):
    with database_unreachable():
        response = client.get("/en/models/")

    assert response.status_code == 503
    assert response["Retry-After"] == "30"
    assert response["Cache-Control"] == "no-store"
    html = response.content.decode()
    assert "The site is briefly unavailable" in html
    assert "127.0.0.1" not in html and "refused" not in html
    assert "Connection refused" in caplog.text or "connection failed" in caplog.text  # logged, not served


def test_the_api_answers_its_json_error_with_503(client, require_postgres):
    with database_unreachable():
        response = client.get("/api/v1/models")

    assert response.status_code == 503
    assert response["Retry-After"] == "30"
    body = response.json()
    assert body["error"]["code"] == "unavailable"
    assert "try again" in body["error"]["message"]
    assert "127.0.0.1" not in response.content.decode()


def test_healthz_names_only_the_failed_check(client, require_postgres):
    with database_unreachable():
        response = client.get("/healthz")

    assert response.status_code == 503
    assert response.json() == {
        "status": "fail",
        "checks": {"database": "fail", "cache": "ok"},
        "failed": {"database": "the database did not answer"},
    }
    assert "127.0.0.1" not in response.content.decode()


def test_other_exceptions_are_left_to_the_500_handler():
    middleware = DatabaseUnavailable(lambda request: HttpResponse())
    request = RequestFactory().get("/en/models/")
    assert middleware.process_exception(request, ValueError("a bug")) is None
    assert middleware.process_exception(request, OperationalError("gone")) is not None


def test_a_connection_dropped_between_requests_is_replaced_not_served_as_an_error(require_postgres, monkeypatch):
    assert connection.settings_dict["CONN_HEALTH_CHECKS"] is True
    monkeypatch.setitem(connection.settings_dict, "CONN_MAX_AGE", 60)  # kept between requests, as in production
    connection.close()  # the next connection opens with these settings
    services.model_import_offline(SHIPPED, only=["zai-org/GLM-5.3-Flash"])

    status, _, _ = serve("GET", "/api/v1/models")
    assert status == "200 OK"
    assert connection.connection is not None  # kept for the next request
    dropped_pid = connection.connection.info.backend_pid

    db = connection.settings_dict
    with psycopg.connect(
        host=db["HOST"] or "127.0.0.1",
        port=db["PORT"] or 5432,
        user=db["USER"],
        password=db["PASSWORD"] or None,
        dbname=db["NAME"],
        autocommit=True,
    ) as other:
        terminated = other.execute("SELECT pg_terminate_backend(%s)", [dropped_pid]).fetchone()
    assert terminated == (True,)

    status, _, body = serve("GET", "/api/v1/models")

    assert status == "200 OK"
    assert [row["id"] for row in json.loads(body)["results"]] == ["zai-org/GLM-5.3-Flash"]
    assert connection.connection.info.backend_pid != dropped_pid
