"""One wrk run of bench/load.py against one target, read back from bench/wrk_report.lua's summary line."""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

WRK_SCRIPT = Path(__file__).resolve().parent / "wrk_report.lua"
TIMEOUT_S = 2  # an answer slower than this is an error, and outside the percentiles (wrk's --timeout)
DISTINCT_STATES = 64 * 4097 * 101  # bench/wrk_report.lua: concurrency x ram x cached
SUMMARY = re.compile(r"^BENCH_JSON (\{.*\})$", flags=re.MULTILINE)
ERROR_KINDS = ("connect", "read", "write", "timeout", "status")


class WrkFailed(Exception):
    """wrk exited with an error or without its summary line."""


@dataclass(frozen=True, slots=True)
class Target:
    key: str
    label: str
    path: str
    fragment: bool = False  # sent with HX-Request: true
    new_state_each_request: bool = False  # bench/wrk_report.lua adds a query no earlier request carried
    goal: str = ""  # what "goal / met" checks besides zero errors


@dataclass(frozen=True, slots=True)
class Measured:
    requests: int
    seconds: float
    requests_per_s: float
    # percentiles of the answers within TIMEOUT_S, as wrk reports them; None when every answer was slower
    p50_ms: float | None
    p90_ms: float | None
    p99_ms: float | None
    max_ms: float | None
    # connect, read, write: socket errors; timeout: answers slower than TIMEOUT_S; status: answers >= 400
    errors: dict[str, int]

    @property
    def error_count(self) -> int:
        return sum(self.errors.values())


def state_query(n: int) -> str:
    """The query bench/wrk_report.lua sends as request number ``n``."""
    return f"concurrency={n % 64 + 1}&ram={(n // 64) % 4097}&cached={(n // (64 * 4097)) % 101}"


def run_wrk(
    url: str, target: Target, *, seconds: int, threads: int, connections: int, states_from: int, log: Path
) -> Measured:
    """wrk against ``url`` for ``seconds``; its whole output is appended to ``log``."""
    command = ["wrk", "-t", str(threads), "-c", str(connections), "-d", f"{seconds}s"]
    command += ["--timeout", f"{TIMEOUT_S}s", "--latency", "-s", str(WRK_SCRIPT)]
    if target.fragment:
        command += ["-H", "HX-Request: true"]
    command.append(url)
    env = {**os.environ, "BENCH_WRK_THREADS": str(threads)}
    env.pop("BENCH_STATES_FROM", None)
    if target.new_state_each_request:
        env["BENCH_STATES_FROM"] = str(states_from)
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=seconds + 60, check=False)
    with log.open("a") as out:
        out.write(f"$ {' '.join(command)}\n{result.stdout}{result.stderr}\n")
    match = SUMMARY.search(result.stdout)
    if result.returncode != 0 or not match:
        raise WrkFailed(f"wrk failed on {target.label} (exit {result.returncode}):\n{result.stdout}{result.stderr}")
    return measured_from(json.loads(match.group(1)))


def measured_from(raw: dict[str, int]) -> Measured:
    elapsed = raw["duration_us"] / 1e6
    answered_in_time = raw["requests"] > raw["timeout"]

    def ms(key: str) -> float | None:
        return raw[key] / 1000 if answered_in_time else None

    return Measured(
        requests=raw["requests"],
        seconds=round(elapsed, 2),
        requests_per_s=round(raw["requests"] / elapsed, 1),
        p50_ms=ms("p50_us"),
        p90_ms=ms("p90_us"),
        p99_ms=ms("p99_us"),
        max_ms=ms("max_us"),
        errors={kind: raw[kind] for kind in ERROR_KINDS},
    )
