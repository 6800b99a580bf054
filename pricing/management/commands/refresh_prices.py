"""Refresh provider prices now, synchronously: the same service the Celery tasks run."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from pricing.bundled import curated_provider_slugs, gpus_sync
from pricing.providers import API_PROVIDERS
from pricing.services import SKIPPED, offers_refresh, offline_refresh


class Command(BaseCommand):
    help = "Fetch each provider's prices (or read recorded files with --offline) into a new price snapshot."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--provider", help="Only this provider (slug, e.g. runpod).")
        parser.add_argument(
            "--offline",
            metavar="DIR",
            help="Read <provider>.json files from DIR (recorded API responses or curated offer files).",
        )

    def handle(self, *args, provider: str | None = None, offline: str | None = None, **options) -> None:
        gpus_sync()
        if offline:
            directory = Path(offline)
            if not directory.is_dir():
                raise CommandError(f"{directory} is not a directory")
            results = offline_refresh(directory, provider)
            if provider and not results:
                raise CommandError(f"no {provider}.json in {directory}")
        else:
            slugs = [*API_PROVIDERS, *curated_provider_slugs()]
            if provider:
                if provider not in slugs:
                    raise CommandError(f"unknown provider {provider!r}; known: {', '.join(sorted(slugs))}")
                slugs = [provider]
            results = [offers_refresh(slug) for slug in slugs]
        failed = 0
        for result in results:
            line = f"{result.provider_slug:14} {result.outcome:10} {result.offer_count:4} offers"
            if result.error:
                line += f"  {result.error[:160]}"
            if result.outcome in ("failed", "empty", SKIPPED):
                failed += 1
                self.stderr.write(line)
            else:
                self.stdout.write(line)
        self.stdout.write(f"{len(results) - failed} of {len(results)} providers refreshed")
