"""Server time of the API's estimate: ``.venv/bin/python bench/bench_api.py [--requests 200]``.

Same scratch database as bench/bench_model_page.py (``<name>_bench`` on PostgreSQL, a temporary SQLite file
otherwise) with the bundled catalog, the shipped prices, the GLM-5.3-Flash reference offers and the hosted API
prices; no rate limit and nothing cached between requests. Prints p50 / p95 / max per query.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ["API_RATE_LIMIT"] = ""

from bench_model_page import _percentiles, _scratch_database  # noqa: E402  (this folder is on sys.path)

QUERIES = (
    ("estimate, GLM-5.3-Flash (MoE, builds)", "/api/v1/estimate?model=zai-org/GLM-5.3-Flash"),
    ("estimate, Llama-3.1-8B (dense)", "/api/v1/estimate?model=meta-llama/Llama-3.1-8B-Instruct"),
    (
        "estimate, GLM-5.3-Flash INT4, 32K x 4",
        "/api/v1/estimate?model=zai-org/GLM-5.3-Flash&precision=int4&context=32K&concurrency=4",
    ),
    ("models, first page", "/api/v1/models"),
    ("plan, GLM-5.3-Flash 10B p95", "/api/v1/plan?model=zai-org/GLM-5.3-Flash&out=10B&cached=50&pct=95"),
)


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

        from pricing.api_price_services import api_prices_load

        setup_test_environment()
        call_command("migrate", verbosity=0)
        call_command("load_bundled_data", verbosity=0, stdout=open(os.devnull, "w"))  # noqa: SIM115
        call_command("loaddata", "seed_offers_2026-11-13", verbosity=0)
        api_prices_load()
        client = Client()
        print(f"API server time on {database}, {args.requests} requests each, no cache")
        for label, path in QUERIES:
            for _ in range(5):
                assert client.get(path).status_code == 200
            samples = []
            for _ in range(args.requests):
                start = time.perf_counter()
                response = client.get(path)
                samples.append((time.perf_counter() - start) * 1000)
                assert response.status_code == 200
            print(f"  {label:44s} {_percentiles(samples)}   {len(response.content) / 1000:5.1f} kB")
    finally:
        cleanup()


if __name__ == "__main__":
    main()
