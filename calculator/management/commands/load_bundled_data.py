"""Loads the data a fresh install ships with: the recorded Hub catalog, the dated price snapshot and the hosted
API prices."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from pricing.api_price_services import api_prices_load
from web.generations import CATALOG_GENERATION


class Command(BaseCommand):
    help = "Load the bundled model catalog (recorded Hub data), the shipped price snapshot and API prices. Idempotent."

    def handle(self, *args, **options) -> None:
        hub_dir = Path(settings.BASE_DIR) / "models_catalog" / "data" / "hub"
        self.stdout.write(f"Importing the recorded Hub catalog from {hub_dir.relative_to(settings.BASE_DIR)}")
        call_command("import_models", offline=str(hub_dir), stdout=self.stdout, stderr=self.stderr)
        self.stdout.write("Loading GPU specs and the shipped price snapshot")
        call_command("load_prices", stdout=self.stdout, stderr=self.stderr)
        result = api_prices_load()
        self.stdout.write(
            f"Hosted API prices: {result.added} added, {result.already_present} already present, "
            f"{result.mapped} serve a catalog model"
        )
        CATALOG_GENERATION.bump()  # pages cached before the load show the loaded catalog at once
