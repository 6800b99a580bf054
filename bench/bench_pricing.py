"""Pricing benchmarks: rank 2,000 offers for one need; parse a 10,000-offer provider payload.

Run: ``.venv/bin/python bench/bench_pricing.py``. Targets: ranking < 2 ms, one provider parse < 1 s.
Payloads are built from the recorded responses in ``tests/data/provider-apis`` (the real rows, repeated with
varied prices and GPU counts) so the parsers run their real code paths.
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from calculator.estimation.plan.ranking import rank  # noqa: E402
from pricing.gpus import load_gpus  # noqa: E402
from pricing.offers import OfferRecord, PricingKind  # noqa: E402
from pricing.providers import runpod, vastai  # noqa: E402

RECORDED = ROOT / "tests" / "data" / "provider-apis"
AT = datetime(2026, 8, 8, tzinfo=UTC)


def timed(fn, repeat: int) -> tuple[float, float]:
    """Median and best wall time of ``fn`` in seconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), min(times)


def offers_book(count: int) -> list[OfferRecord]:
    rng = random.Random(42)
    gpus = [gpu for gpu in load_gpus() if gpu.is_rentable_class]
    kinds: list[PricingKind] = ["on-demand", "on-demand", "spot", "community"]
    sizes = [(1,), (8,), (1, 2, 4, 8), (4,), (), (2, 4)]
    return [
        OfferRecord(
            provider_slug=f"p{i % 40}",
            provider_name=f"Provider {i % 40}",
            gpu_slug=rng.choice(gpus).slug,
            instance_name=f"instance {i}",
            gpu_counts=rng.choice(sizes),
            price_per_gpu_hour_usd=round(rng.uniform(0.2, 12.0), 3),
            pricing_kind=rng.choice(kinds),
            captured_at=AT,
        )
        for i in range(count)
    ]


def vast_payload(count: int) -> bytes:
    base = json.loads((RECORDED / "vastai-recorded-offers-2026-08-08.json").read_text())["offers"]
    rng = random.Random(7)
    rows = []
    for i in range(count):
        row = dict(base[i % len(base)])
        gpus = rng.choice([1, 1, 2, 4, 8])
        row.update(id=i, num_gpus=gpus, dph_total=round(rng.uniform(0.2, 6.0) * gpus, 6))
        rows.append(row)
    return json.dumps({"offers": rows}).encode()


def runpod_payload(count: int) -> bytes:
    base = json.loads((RECORDED / "runpod-example.json").read_text())["data"]["gpuTypes"]
    rows = [dict(base[i % len(base)], securePrice=round(1 + (i % 500) / 100, 2)) for i in range(count)]
    return json.dumps({"data": {"gpuTypes": rows}}).encode()


def main() -> None:
    gpus = load_gpus()
    book = offers_book(2000)
    need = 708 * 10**9
    median, best = timed(lambda: rank(need, book, gpus), 300)
    print(
        f"rank 2,000 offers, 708 GB need:        median {median * 1e3:.3f} ms, best {best * 1e3:.3f} ms (target < 2 ms)"
    )
    median, best = timed(lambda: rank(187 * 10**9, book, gpus), 300)
    print(
        f"rank 2,000 offers, 187 GB need:        median {median * 1e3:.3f} ms, best {best * 1e3:.3f} ms (target < 2 ms)"
    )

    for name, module, raw in (
        ("Vast.ai", vastai, vast_payload(10_000)),
        ("RunPod", runpod, runpod_payload(10_000)),
    ):

        def parse(module=module, raw=raw):
            return module.parse(json.loads(raw), AT)

        count = len(parse())
        median, best = timed(parse, 7)
        print(
            f"parse {name} 10,000-offer payload ({len(raw) / 1e6:.1f} MB, {count} offers out): "
            f"median {median * 1e3:.1f} ms, best {best * 1e3:.1f} ms (target < 1 s)"
        )


if __name__ == "__main__":
    main()
