"""Server time of the catalog list at 100,000 models: ``.venv/bin/python bench/bench_catalog.py [--requests 30]``.

Creates a scratch database like bench_model_page.py (``<name>_bench`` on the PostgreSQL that ``DATABASE_URL``
names, a temporary SQLite file otherwise), fills it with clearly synthetic models (organisation
``synthetic-bench-org-N``, names ``Synthetic-Bench-…``) by bulk_create, requests the list's first page, its page
500, a search, a filter and the search box's suggestions, prints p50 / p95 / max per request, then deletes the rows
and drops the scratch database. Nothing is cached between requests.

Measured 2026-11-30 on SQLite, p50: page 1 28 ms, page 500 29 ms (by name and largest first), a search by a word
inside a name 60 ms (a scan: LIKE '%word%' uses no index), weights-fit and size filters 49 ms, suggestions 16 ms
(name prefix) and 36 ms (organisation prefix). Without migration 0003's indexes, and with the filter menus' DISTINCT
still carrying the default ordering, page 500 took 4.5 s.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from bench_model_page import _percentiles, _scratch_database, _without_page_cache  # noqa: E402

ORG_PREFIX = "synthetic-bench-org-"
REQUESTS = (
    ("list, page 1, by name", "/en/models/", False),
    ("list, page 500, by name", "/en/models/?page=500", False),
    ("list, page 500, largest first", "/en/models/?sort=size&page=500", False),
    ("list fragment, page 500, by name", "/en/models/?page=500", True),
    ("search 'bench-4711' (contains)", "/en/models/?q=bench-4711", False),
    ("filter: weights fit 24 GB INT4, 10-40 B", "/en/models/?fits=24gb-int4&size=10-40", False),
    ("suggestions 'Synthetic-Bench-12'", "/en/models/suggest/?q=Synthetic-Bench-12", True),
    ("suggestions 'synthetic-bench-org-7'", "/en/models/suggest/?q=synthetic-bench-org-7", True),
)
FAMILIES = ("llama", "qwen3", "glm", "mistral", "gemma3", "deepseek_v3")
ATTENTION = ("gqa", "mla", "linear-hybrid", "sliding")
LICENCES = ("apache-2.0", "mit", "llama3.1", "other")


def synthetic_models(count: int) -> list:
    from models_catalog.models import Model

    rng = random.Random(20261130)
    now = datetime.now(UTC)
    rows = []
    for n in range(count):
        org = f"{ORG_PREFIX}{n % 997}"
        billions = rng.choice((0.5, 1, 3, 7, 8, 14, 24, 32, 70, 120, 235, 480, 671))
        name = f"Synthetic-Bench-{n}-{billions}B"
        rows.append(
            Model(
                hub_id=f"{org}/{name}",
                slug=f"{org}--{name}".lower().replace(".", "-"),
                display_name=name,
                organisation=org,
                params_total=int(billions * 1e9) + n,
                family=FAMILIES[n % len(FAMILIES)],
                attention_kind=ATTENTION[n % len(ATTENTION)],
                is_moe=billions > 100,
                modality="text",
                licence=LICENCES[n % len(LICENCES)],
                release_date=date(2023, 1, 1) + timedelta(days=n % 1200),
                origin="synthetic",
                fetched_at=now,
            )
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=30)
    args = parser.parse_args()
    database, cleanup = _scratch_database()
    try:
        import django

        django.setup()
        from django.core.management import call_command
        from django.test import Client
        from django.test.utils import setup_test_environment

        from models_catalog.models import Model

        setup_test_environment()
        _without_page_cache()
        call_command("migrate", verbosity=0)
        start = time.perf_counter()
        Model.objects.bulk_create(synthetic_models(args.models), batch_size=2000)
        print(f"{args.models:,} synthetic models created in {time.perf_counter() - start:.1f} s on {database}")
        client = Client()
        try:
            for label, path, fragment in REQUESTS:
                headers = {"HX-Request": "true"} if fragment else {}
                for _ in range(3):
                    assert client.get(path, headers=headers).status_code == 200
                samples = []
                for _ in range(args.requests):
                    begin = time.perf_counter()
                    response = client.get(path, headers=headers)
                    samples.append((time.perf_counter() - begin) * 1000)
                    assert response.status_code == 200
                print(f"  {label:42s} {_percentiles(samples)}   {len(response.content) / 1000:6.1f} kB")
        finally:
            deleted, _ = Model.objects.filter(organisation__startswith=ORG_PREFIX).delete()
            print(f"{deleted:,} synthetic rows deleted")
    finally:
        cleanup()


if __name__ == "__main__":
    main()
