"""Load the bundled data a fresh install needs: the GPU table and the shipped dated price snapshot."""

from __future__ import annotations

from datetime import UTC, datetime

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
        self.stdout.write(f"price history of {now.date()}: {price_index_compute(now.date(), now)} GPUs")
