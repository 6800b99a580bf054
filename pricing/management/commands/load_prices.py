"""Load the bundled data a fresh install needs: the GPU table and the shipped dated price snapshot."""

from __future__ import annotations

from datetime import UTC, date, datetime

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from pricing.bundled import gpus_sync, snapshot_dirs
from pricing.price_index import price_index_compute


class Command(BaseCommand):
    help = "Load GPUs from pricing/data/gpus.json and the newest shipped snapshot from pricing/data/snapshot/."

    def handle(self, *args, **options) -> None:
        self.stdout.write(f"{gpus_sync()} GPUs")
        folders = snapshot_dirs()
        if not folders:
            raise CommandError("no shipped snapshot under pricing/data/snapshot/")
        call_command("refresh_prices", offline=str(folders[0]), stdout=self.stdout, stderr=self.stderr)
        # The GPU pages chart the folded daily history: today's point at once, not at the next beat run.
        now = datetime.now(UTC)
        self.stdout.write(history_line(now.date(), price_index_compute(now.date(), now)))


def history_line(day: date, gpus: int) -> str:
    """What the day's fold wrote, in words: the shipped snapshot's offers may all be older than the day."""
    if not gpus:
        return f"price history of {day}: no on-demand offers to fold"
    return f"price history of {day}: {gpus} GPU{'s' if gpus != 1 else ''} with an on-demand price"
