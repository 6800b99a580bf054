"""Crawl the site as a search engine would: ``.venv/bin/python bench/crawl.py [--limit N]``.

Starts at ``/`` and at ``/sitemap.xml`` on a scratch database loaded with the bundled catalog, the shipped price
snapshot, the GLM-5.3-Flash reference offers and the hosted API prices; follows every same-site link and every
sitemap URL (HTML pages only, no query strings but the ones links carry); prints the pages per type, any 4xx/5xx,
and the server time per page type (p50 / max). Exits 1 when a page answers 4xx/5xx.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import time
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from bench_model_page import _scratch_database  # noqa: E402

LINK = re.compile(r'href="(/[^"#]*)"')
SM = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
TYPES = (
    ("can-it-run", re.compile(r"^/\w\w/models/[^/]+/[^/]+/runs-on/[^/]+/$")),
    ("model FAQ", re.compile(r"^/\w\w/models/[^/]+/[^/]+/faq/$")),
    ("model (Markdown)", re.compile(r"^/\w\w/models/[^/]+/[^/]+\.md")),
    ("model card image", re.compile(r"^/\w\w/models/[^/]+/[^/]+/og\.png$")),
    ("model page", re.compile(r"^/\w\w/models/[^/]+/[^/]+/(\?.*)?$")),
    ("catalog list", re.compile(r"^/\w\w/models/(\?.*)?$")),
    ("GPU page", re.compile(r"^/\w\w/gpus/[^/]+/$")),
    ("GPU index", re.compile(r"^/\w\w/gpus/$")),
    ("provider page", re.compile(r"^/\w\w/providers/[^/]+/$")),
    ("provider index", re.compile(r"^/\w\w/providers/$")),
    ("compare", re.compile(r"^/\w\w/compare/")),
    ("home", re.compile(r"^/\w\w/$")),
)


def page_type(path: str) -> str:
    for name, pattern in TYPES:
        if pattern.match(path):
            return name
    return "other"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=20000, help="stop after this many pages")
    args = parser.parse_args()
    _, cleanup = _scratch_database()
    try:
        import django

        django.setup()
        from django.core.management import call_command
        from django.test import Client
        from django.test.utils import setup_test_environment

        setup_test_environment()
        call_command("migrate", verbosity=0)
        call_command("load_bundled_data", verbosity=0, stdout=open(os.devnull, "w"))  # noqa: SIM115
        call_command("loaddata", "seed_offers_2026-11-13", verbosity=0)
        client = Client()
        queue = ["/en/", "/de/"]
        for section in ET.fromstring(client.get("/sitemap.xml").content).iter(f"{SM}loc"):
            urlset = ET.fromstring(client.get((section.text or "").replace("http://testserver", "")).content)
            queue += [(loc.text or "/").replace("http://testserver", "") for loc in urlset.iter(f"{SM}loc")]
        seen: set[str] = set()
        times: dict[str, list[float]] = defaultdict(list)
        failures: list[tuple[str, int]] = []
        while queue and len(seen) < args.limit:
            path = queue.pop()
            if path in seen or path.startswith(("/static/", "/admin/", "/api/")) or "?" in path.split("/")[-1][:1]:
                continue
            seen.add(path)
            start = time.perf_counter()
            response = client.get(path)
            elapsed = (time.perf_counter() - start) * 1000
            if response.status_code in (301, 302):
                queue.append(response["Location"])
                continue
            times[page_type(path)].append(elapsed)
            if response.status_code >= 400:
                failures.append((path, response.status_code))
                continue
            if response["Content-Type"].startswith("text/html"):
                queue += [link for link in LINK.findall(response.content.decode()) if link not in seen]
        print(f"Crawled {sum(len(t) for t in times.values())} pages from / and the sitemap")
        for name, samples in sorted(times.items(), key=lambda item: -statistics.median(item[1])):
            p50, worst = statistics.median(samples), max(samples)
            print(f"  {name:18s} {len(samples):6d} pages   p50 {p50:6.1f} ms   max {worst:6.1f} ms")
        for path, status in failures[:50]:
            print(f"  {status} {path}")
        if failures:
            print(f"{len(failures)} pages answered 4xx/5xx")
            raise SystemExit(1)
        print("no 4xx/5xx")
    finally:
        cleanup()


if __name__ == "__main__":
    main()
