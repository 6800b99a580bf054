"""Server time of the model page: ``.venv/bin/python bench/bench_model_page.py [--requests 200]``.

Runs against the database ``DATABASE_URL`` names (PostgreSQL in CI and production; the embedded SQLite file
otherwise), in a scratch database it creates and drops (``<name>_bench`` on PostgreSQL, a temporary file for
SQLite), loaded with the bundled catalog, the shipped price snapshot, the GLM-5.3-Flash reference offers and the
hosted API prices. The page cache is off, so every request renders; what a page reads about the model and the
market stays kept per process after a model's first request, as in production (``calculator/page/basis.py``),
and the "first view" row drops it before each request. Prints p50 / p95 / max per page kind and the estimation
math of one page alone.

Targets: full model page p50 < 30 ms, the HTMX fragment p50 < 15 ms, the page's estimation math < 5 ms.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

PAGES = (
    ("model page, GLM-5.3-Flash (MoE, builds)", "/en/models/zai-org/GLM-5.3-Flash/", False),
    ("  the same, first view of the model", "/en/models/zai-org/GLM-5.3-Flash/", "cold"),
    ("model page, Llama-3.1-8B (dense)", "/en/models/meta-llama/Llama-3.1-8B-Instruct/", False),
    (
        "model page, German, INT4, 32K x 4",
        "/de/models/zai-org/GLM-5.3-Flash/?precision=int4&context=32K&concurrency=4",
        False,
    ),
    ("HTMX fragment, GLM-5.3-Flash INT8", "/en/models/zai-org/GLM-5.3-Flash/?precision=int8", True),
    ("HTMX fragment, Llama-3.1-8B LoRA", "/en/models/meta-llama/Llama-3.1-8B-Instruct/?mode=lora", True),
    ("planner, GLM-5.3-Flash 10B, p95", "/en/plan/?model=zai-org/GLM-5.3-Flash&out=10B&cached=50&pct=95", False),
    ("planner, Llama-3.1-8B 100M (a Mac row)", "/de/plan/?model=meta-llama/Llama-3.1-8B-Instruct&out=100M", False),
)


def _scratch_database() -> tuple[str, Callable[[], None]]:
    """Points DATABASE_URL at a scratch database; returns (description, cleanup)."""
    url = os.environ.get("DATABASE_URL", "")
    if url.startswith(("postgres://", "postgresql://")):
        import psycopg

        base, _, name = url.rpartition("/")
        scratch = f"{name.split('?')[0]}_bench"
        admin = f"{base}/postgres"
        with psycopg.connect(admin, autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{scratch}"')
            connection.execute(f'CREATE DATABASE "{scratch}"')
        os.environ["DATABASE_URL"] = f"{base}/{scratch}"

        def drop() -> None:
            from django.db import connections

            connections.close_all()
            with psycopg.connect(admin, autocommit=True) as connection:
                connection.execute(f'DROP DATABASE IF EXISTS "{scratch}"')

        return f"PostgreSQL ({scratch})", drop
    folder = tempfile.TemporaryDirectory(prefix="gpufit-bench-")
    os.environ["DATABASE_URL"] = f"sqlite:///{folder.name}/bench.sqlite3"
    return "SQLite (temporary file)", folder.cleanup


def _without_page_cache() -> None:
    """Server time here is the render: the page cache (config/page_cache.py) would answer every repeat from the
    cache; bench/load.py measures cached pages, under load."""
    from django.conf import settings

    settings.MIDDLEWARE = [entry for entry in settings.MIDDLEWARE if not entry.startswith("config.page_cache.")]


def _percentiles(samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[int(len(ordered) * 0.95) - 1]
    return f"p50 {statistics.median(ordered):6.1f} ms   p95 {p95:6.1f} ms   max {ordered[-1]:6.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()
    database, cleanup = _scratch_database()
    try:
        import django

        django.setup()
        from django.core.management import call_command
        from django.test import Client
        from django.test.utils import setup_test_environment

        setup_test_environment()  # the test client's host and no outgoing mail; nothing here is cached
        _without_page_cache()
        call_command("migrate", verbosity=0)
        call_command("load_bundled_data", verbosity=0, stdout=open(os.devnull, "w"))  # noqa: SIM115
        call_command("loaddata", "seed_offers_2026-11-13", verbosity=0)
        client = Client()
        print(f"Model page server time on {database}, {args.requests} requests each, no page cache")
        from calculator.page import basis as page_basis

        for label, path, fragment in PAGES:
            headers = {"HX-Request": "true"} if fragment is True else {}
            cold = fragment == "cold"
            for _ in range(5):  # warm the process: imports, the GPU catalog, compiled templates
                assert client.get(path, headers=headers).status_code == 200
            samples = []
            for _ in range(args.requests):
                if cold:
                    page_basis.forget()
                start = time.perf_counter()
                response = client.get(path, headers=headers)
                samples.append((time.perf_counter() - start) * 1000)
                assert response.status_code == 200
            print(f"  {label:44s} {_percentiles(samples)}   {len(response.content) / 1000:5.1f} kB")
        _math_only()
    finally:
        cleanup()


def _math_only() -> None:
    from datetime import date

    from django.http import QueryDict

    from calculator.page import model_page
    from calculator.page import sources as page_data
    from calculator.state import parse_state
    from models_catalog import selectors

    for hub_id in ("zai-org/GLM-5.3-Flash", "meta-llama/Llama-3.1-8B-Instruct"):
        model = selectors.model_by_hub_id(hub_id)
        assert model is not None, f"{hub_id} is in the bundled catalog"
        sources = page_data.page_sources(model, selectors.model_facts(model), date.today())
        inputs = sources.inputs(parse_state(QueryDict(""), sources.choices).state)
        model_page(inputs)
        samples = []
        for _ in range(50):
            start = time.perf_counter()
            model_page(inputs)
            samples.append((time.perf_counter() - start) * 1000)
        print(f"  estimation math of one page, {hub_id:32s} p50 {statistics.median(samples):5.2f} ms")


if __name__ == "__main__":
    main()
