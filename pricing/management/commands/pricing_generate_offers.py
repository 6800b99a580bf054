"""Fill a test or benchmark database with synthetic hourly offer history (pricing/synthetic.py)."""

from __future__ import annotations

import time

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import connection

from pricing.models import Offer
from pricing.synthetic import synthetic_history_generate

# Synthetic prices folded into the kept daily history could never be told apart from real ones on a chart, so the
# command runs only on a database whose name says it is disposable, and only when asked in so many words.
DISPOSABLE_NAME_PARTS = ("test", "bench")


class Command(BaseCommand):
    help = (
        "Generate about --rows synthetic offers (hourly snapshots of every provider, prices varied from the current "
        "ones) before the stored history. Only on a database named like a test/bench database, and only with "
        "--i-know-this-is-synthetic."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--rows", type=int, default=1_000_000, help="Offers to generate (about; default 1M).")
        parser.add_argument(
            "--i-know-this-is-synthetic",
            action="store_true",
            dest="synthetic_confirmed",
            help="Confirm that made-up prices may be written to this database.",
        )

    def handle(self, *args, rows: int, synthetic_confirmed: bool, **options) -> None:
        name = str(connection.settings_dict["NAME"])
        if connection.vendor != "postgresql":
            raise CommandError("pricing_generate_offers needs PostgreSQL")
        if not any(part in name.lower() for part in DISPOSABLE_NAME_PARTS):
            raise CommandError(
                f"refusing to write synthetic prices to database {name!r}: its name contains neither "
                f"{' nor '.join(repr(p) for p in DISPOSABLE_NAME_PARTS)}"
            )
        if not synthetic_confirmed:
            raise CommandError("pass --i-know-this-is-synthetic to write made-up prices to this database")
        if rows < 1:
            raise CommandError("--rows must be at least 1")
        if not Offer.objects.exists():
            call_command("load_prices", stdout=self.stdout, stderr=self.stderr)
        started = time.perf_counter()
        history = synthetic_history_generate(rows)
        seconds = time.perf_counter() - started
        self.stdout.write(
            f"{history.offers} synthetic offers in {history.snapshots} snapshots ({history.hours} hours, "
            f"{history.first:%Y-%m-%d %H:%M} to {history.last:%Y-%m-%d %H:%M} UTC) in {seconds:.1f} s"
        )
