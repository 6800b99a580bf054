"""HTTP load on the site as production serves it: ``.venv/bin/python bench/load.py [--quick] [--offers 1000000]``.

Creates a scratch PostgreSQL database (``<name>_bench`` on the server ``DATABASE_URL`` names; ``gpufit_bench`` on
postgres@127.0.0.1:5432 when it is unset), migrates it and loads the bundled catalog, the shipped prices, the hosted
API prices and the GLM-5.3-Flash reference offers; starts gunicorn (4 sync workers, ``--workers``) on a free port
with a Redis database of its own (``--redis-db``, which must be empty); warms up; then runs wrk (Debian's package;
2 threads, 64 connections, 60 s per target, ``--quick``: 5 s) against each target:

- ceiling: a bare Django view under the same gunicorn and middleware that answers with the model page's bytes and
  does nothing else (bench/ceiling_urls.py, mounted only by bench/settings.py);
- model page, one URL repeated: served by the page cache when config/page_cache.py is in MIDDLEWARE (the table
  says which);
- model page and its HTMX fragment (``HX-Request: true``) with a calculator state no earlier request asked for
  (bench/wrk_report.lua: 26,483,008 distinct query strings), so no cache can answer;
- the JSON API's estimate, with API_RATE_LIMIT raised far above the load so the limit is still counted (in Redis);
- a GPU page.

Prints a table (requests/s, p50, p99, errors = socket errors + answers other than 2xx/3xx, ratio to the ceiling,
target met) and writes it with the run's settings as JSON to test-artifacts/bench/load.json (wrk's own output to
load-wrk.log, gunicorn's to load-gunicorn.log beside it). ``--offers N`` then generates N synthetic offer rows
(``manage.py pricing_generate_offers``, when the command exists), empties the cache and runs every target but the
ceiling again, with each one's throughput as a share of its empty-table run. Stops gunicorn, drops the scratch
database and empties its Redis database at the end, also on Ctrl-C or failure.

Targets on a 2-core machine: cached model page >= 50 % of the ceiling with p99 < 30 ms; new-state model page
>= 15 % of the ceiling, and so the HTMX fragment (its p50 one at a time is bench_model_page.py's: at 64
connections a p50 measures the queue, about connections / throughput); no errors at 64 connections for 60 s; at
1M offer rows every page >= 50 % of its empty-table throughput.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NoReturn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the project, and bench.settings as a package of this folder

from load_site import (  # noqa: E402  (this folder is on sys.path)
    API_RATE_LIMIT,
    Gunicorn,
    Refused,
    create_database,
    database_urls,
    drop_database,
    fetch,
    flush_redis,
    generate_offers,
    load_data,
    redis_url_for,
    require_empty_redis,
    require_postgres,
    site_environment,
    where,
)
from load_wrk import DISTINCT_STATES, TIMEOUT_S, Measured, Target, WrkFailed, run_wrk, state_query  # noqa: E402

ARTIFACTS = ROOT / "test-artifacts" / "bench"
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/gpufit"  # its scratch database: gpufit_bench
DEFAULT_REDIS_DB = 15
MODEL_PATH = "/en/models/zai-org/GLM-5.3-Flash/"
# Request numbers where each run's new states start, so that no run meets a state an earlier one rendered.
STATES_MEASURED, STATES_AT_OFFERS, STATES_WARM_UP = 0, 8_000_000, 16_000_000


def targets(page_cache: bool) -> tuple[Target, ...]:
    repeated = "page cache" if page_cache else "uncached: no page cache"
    return (
        Target("ceiling", "ceiling: bare view, same bytes", "/bench/ceiling/"),
        Target(
            "model_page_cached", f"model page, one URL ({repeated})", MODEL_PATH, goal=">= 50 % ceiling, p99 < 30 ms"
        ),
        Target(
            "model_page_uncached",
            "model page, new state each request",
            MODEL_PATH,
            new_state_each_request=True,
            goal=">= 15 % ceiling",
        ),
        Target(
            "htmx_fragment",
            "HTMX fragment, new state each request",
            MODEL_PATH,
            fragment=True,
            new_state_each_request=True,
            goal=">= 15 % ceiling",
        ),
        Target("api_estimate", "API estimate (rate limit counted)", "/api/v1/estimate?model=zai-org/GLM-5.3-Flash"),
        Target("gpu_page", f"GPU page, one URL ({'page cache' if page_cache else 'uncached'})", "/en/gpus/h200-sxm/"),
    )


@dataclass(slots=True)
class Row:
    target: Target
    measured: Measured
    ratio_to_ceiling: float | None = None
    ratio_to_empty: float | None = None
    met: bool | None = None
    notes: list[str] = field(default_factory=list)


def check_answers(base_url: str, target: Target) -> None:
    """Each target answers 200 with what it should before any load: a redirect or an error page is not measured."""
    path = target.path
    if target.new_state_each_request:
        path += ("&" if "?" in path else "?") + state_query(STATES_WARM_UP - 1)
    answer = fetch(base_url + path, {"HX-Request": "true"} if target.fragment else {})
    if answer.status != 200:
        raise Refused(f"{target.label}: {path} answered {answer.status}, not 200")
    if target.key == "api_estimate":
        json.loads(answer.body)
    elif target.fragment == (b"<html" in answer.body[:2000].lower()):
        raise Refused(f"{target.label}: {path} answered the {'whole page' if target.fragment else 'fragment'}")


def measure(
    site: Gunicorn, target: Target, args: argparse.Namespace, seconds: int, states_from: int, log: Path
) -> Measured:
    site.settle()
    return run_wrk(
        site.base_url + target.path,
        target,
        seconds=seconds,
        threads=args.threads,
        connections=args.connections,
        states_from=states_from,
        log=log,
    )


def measure_all(
    site: Gunicorn, chosen: tuple[Target, ...], args: argparse.Namespace, states_from: int, log: Path
) -> list[Measured]:
    results = []
    for target in chosen:
        print(f"  {target.label} ...", end="", flush=True)
        results.append(measure(site, target, args, args.duration, states_from, log))
        print(f" {results[-1].requests_per_s:,.0f} req/s")
    return results


def warm_up(site: Gunicorn, chosen: tuple[Target, ...], args: argparse.Namespace, log: Path) -> None:
    """Every worker imports, compiles its templates and opens its connections before anything is measured."""
    for index, target in enumerate(chosen):
        check_answers(site.base_url, target)
        measure(site, target, args, args.warm_up, STATES_WARM_UP + 1_000_000 * index, log)


# --- Goals and the table ----------------------------------------------------------------------------------------


def judge(row: Row, ceiling: Measured) -> None:
    """The row's ratio to the ceiling and whether its goal is met (every goal includes zero errors)."""
    measured, key = row.measured, row.target.key
    if key != "ceiling":
        row.ratio_to_ceiling = measured.requests_per_s / ceiling.requests_per_s
    met = measured.error_count == 0
    if key == "model_page_cached":
        met = met and (row.ratio_to_ceiling or 0) >= 0.5 and measured.p99_ms is not None and measured.p99_ms < 30
    elif key in ("model_page_uncached", "htmx_fragment"):
        met = met and (row.ratio_to_ceiling or 0) >= 0.15
    row.met = met
    notes(row)


def judge_at_offers(row: Row, empty: Measured) -> None:
    row.ratio_to_empty = row.measured.requests_per_s / empty.requests_per_s
    row.met = row.measured.error_count == 0 and row.ratio_to_empty >= 0.5
    notes(row)


def notes(row: Row) -> None:
    measured = row.measured
    if measured.errors["timeout"]:
        row.notes.append(f"{measured.errors['timeout']} answers slower than {TIMEOUT_S} s (errors, not in p50/p99)")
    others = {kind: count for kind, count in measured.errors.items() if count and kind != "timeout"}
    if others:
        row.notes.append("errors: " + ", ".join(f"{kind} {count}" for kind, count in others.items()))
    if row.target.new_state_each_request and measured.requests > DISTINCT_STATES:
        row.notes.append(f"{measured.requests:,} requests > {DISTINCT_STATES:,} distinct states: some repeated")


def percent(value: float | None) -> str:
    return "" if value is None else f"{value * 100:.0f} %"


def milliseconds(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}"


def table(rows: list[Row], at_offers: bool) -> str:
    ratio_title = "/empty" if at_offers else "/ceiling"
    header = f"{'target':<44} {'req/s':>7} {'p50 ms':>7} {'p99 ms':>7} {'errors':>6} {ratio_title:>8}  goal: met?"
    lines = [header, "-" * (len(header) + 16)]
    for row in rows:
        m = row.measured
        ratio = row.ratio_to_empty if at_offers else row.ratio_to_ceiling
        goal = ">= 50 % of empty tables" if at_offers else (row.target.goal or "no errors")
        verdict = "—" if row.met is None else ("yes" if row.met else "NO")
        lines.append(
            f"{row.target.label:<44} {m.requests_per_s:>7.0f} {milliseconds(m.p50_ms):>7} "
            f"{milliseconds(m.p99_ms):>7} {m.error_count:>6} {percent(ratio):>8}  {goal}: {verdict}"
        )
        lines += [f"{'':<46}{note}" for note in row.notes]
    return "\n".join(lines)


def row_json(row: Row) -> dict[str, Any]:
    return {
        "key": row.target.key,
        "label": row.target.label,
        "path": row.target.path,
        "htmx_fragment": row.target.fragment,
        "new_state_each_request": row.target.new_state_each_request,
        **asdict(row.measured),
        "error_count": row.measured.error_count,
        "ratio_to_ceiling": row.ratio_to_ceiling,
        "ratio_to_empty_tables": row.ratio_to_empty,
        "goal": row.target.goal,
        "met": row.met,
        "notes": row.notes,
    }


# --- The run ----------------------------------------------------------------------------------------------------


def at_offers(args: argparse.Namespace, rows: list[Row], site: Gunicorn, redis_url: str, log: Path) -> dict[str, Any]:
    """Every target but the ceiling again at ``args.offers`` offer rows, each as a share of its empty-table run."""
    print(f"\nGenerating {args.offers:,} synthetic offer rows")
    skipped = generate_offers(args.offers)
    if skipped:
        print(skipped)
        return {"rows": args.offers, "skipped": skipped}
    flush_redis(redis_url)  # every page renders anew from the larger tables
    again = tuple(row.target for row in rows if row.target.key != "ceiling")
    warm_up(site, again, args, log)
    offer_rows = [
        Row(target, measured)
        for target, measured in zip(again, measure_all(site, again, args, STATES_AT_OFFERS, log), strict=True)
    ]
    empty = {row.target.key: row.measured for row in rows}
    for row in offer_rows:
        judge_at_offers(row, empty[row.target.key])
    print(f"\nAt {args.offers:,} offer rows")
    print(table(offer_rows, at_offers=True))
    return {"rows": args.offers, "targets": [row_json(row) for row in offer_rows]}


def run(
    args: argparse.Namespace, site: Gunicorn, page_cache: bool, redis_url: str, ceiling_file: Path
) -> dict[str, Any]:
    chosen = targets(page_cache)
    load_before = round(os.getloadavg()[0], 2)
    wrk_log = ARTIFACTS / "load-wrk.log"
    wrk_log.write_text("")
    fetch(site.base_url + MODEL_PATH)  # the first render fills the page cache, if there is one
    repeat = fetch(site.base_url + MODEL_PATH)
    if repeat.status != 200:
        raise Refused(f"the model page {MODEL_PATH} answered {repeat.status}")
    page = repeat.body
    ceiling_file.write_bytes(page)
    # the page cache says whether it answered; a repeat it did not answer is measured, and said, as uncached
    x_cache = repeat.headers.get("X-Cache", "")
    print(
        f"gunicorn: {args.workers} sync workers at {site.base_url}; page cache: {'on' if page_cache else 'absent'}"
        f"{f' (X-Cache of a repeated model page: {x_cache})' if x_cache else ''}; model page "
        f"{len(page) / 1000:.1f} kB. Warming up: {args.warm_up} s per target"
    )
    warm_up(site, chosen, args, wrk_log)
    print(f"wrk: {args.threads} threads, {args.connections} connections, {args.duration} s per target")
    measured = measure_all(site, chosen, args, STATES_MEASURED, wrk_log)
    rows = [Row(target, result) for target, result in zip(chosen, measured, strict=True)]
    for row in rows:
        judge(row, rows[0].measured)
    if page_cache and x_cache != "HIT":
        cached = next(row for row in rows if row.target.key == "model_page_cached")
        cached.notes.append(f"the page cache did not answer a repeat (X-Cache: {x_cache or 'none'})")
    print(f"\nLoad average (1 min) {load_before:.1f} before, {os.getloadavg()[0]:.1f} after, on {os.cpu_count()} CPUs")
    print(table(rows, at_offers=False))
    print(f"new state each request: a query string no earlier request carried ({DISTINCT_STATES:,} distinct)")
    report: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "commit": git("rev-parse", "--short", "HEAD"),
        "uncommitted_changes": bool(git("status", "--porcelain")),
        "cpus": os.cpu_count(),
        # other processes on the machine share these CPUs: the 1-minute load average before and after the runs
        "load_average_1m": [load_before, round(os.getloadavg()[0], 2)],
        "gunicorn_workers": args.workers,
        "wrk": {"threads": args.threads, "connections": args.connections, "timeout_s": TIMEOUT_S},
        "seconds_per_target": args.duration,
        "warm_up_seconds_per_target": args.warm_up,
        "page_cache": page_cache,
        "model_page_bytes": len(page),
        "model_page_repeat_x_cache": x_cache,
        "distinct_states": DISTINCT_STATES,
        "api_rate_limit": API_RATE_LIMIT,
        "targets": [row_json(row) for row in rows],
    }
    if args.offers:
        report["offers"] = at_offers(args, rows, site, redis_url, wrk_log)
    return report


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False).stdout.strip()


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--duration", type=int, default=60, help="seconds of load per target (default 60)")
    parser.add_argument("--quick", action="store_true", help="5 s per target and 1 s of warm-up")
    parser.add_argument("--warm-up", type=int, default=3, help="seconds of load per target before measuring")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn sync workers (default 4)")
    parser.add_argument("--threads", type=int, default=2, help="wrk threads (default 2)")
    parser.add_argument("--connections", type=int, default=64, help="wrk connections (default 64)")
    parser.add_argument("--redis-db", type=int, default=DEFAULT_REDIS_DB, help="an empty Redis db (default 15)")
    parser.add_argument("--offers", type=int, default=0, help="then run the pages again at N offer rows")
    args = parser.parse_args()
    if args.quick:
        args.duration, args.warm_up = 5, 1
    return args


def main() -> int:
    args = parse_args()

    def stop(signum: int, _frame: object) -> NoReturn:
        raise SystemExit(128 + signum)  # through the cleanup below, as Ctrl-C

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGHUP, stop)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # Ctrl-C, even where a parent shell ignored it
    database_url, scratch, admin_url = database_urls(os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL)
    redis_url = redis_url_for(args.redis_db)
    if not shutil.which("wrk"):
        raise Refused("wrk is not installed (Debian package 'wrk'; `make bench` installs it)")
    require_postgres(admin_url)
    require_empty_redis(redis_url)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    folder = tempfile.TemporaryDirectory(prefix="gpufit-load-")
    ceiling_file = Path(folder.name) / "model-page.html"
    site: Gunicorn | None = None
    try:
        create_database(admin_url, scratch)
        env = site_environment(database_url, redis_url, ceiling_file)
        os.environ.update(env)
        print(f"Scratch database {scratch} on {where(admin_url)}, Redis db {args.redis_db}: loading the bundled data")
        page_cache = load_data()
        site = Gunicorn(dict(os.environ), args.workers, ARTIFACTS / "load-gunicorn.log")
        site.wait_ready()
        report = {"database": f"PostgreSQL {scratch}", **run(args, site, page_cache, redis_url, ceiling_file)}
        output = ARTIFACTS / "load.json"
        output.write_text(json.dumps(report, indent=2) + "\n")
        print(f"\nJSON: {output.relative_to(ROOT)}; wrk's output: test-artifacts/bench/load-wrk.log")
        return 0
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, signal.SIG_IGN)  # a second Ctrl-C must not leave the database behind
        if site is not None:
            site.stop()
        if "django.db" in sys.modules:  # the data was loaded in this process
            from django.db import connections

            connections.close_all()
        drop_database(admin_url, scratch)
        flush_redis(redis_url)
        folder.cleanup()


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (Refused, WrkFailed) as refused:
        print(f"bench/load.py: {refused}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        print("\nbench/load.py: interrupted; gunicorn stopped, scratch database dropped", file=sys.stderr)
        sys.exit(130)
