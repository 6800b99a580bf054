"""Import models into the catalog from the Hugging Face Hub or from a recorded Hub folder."""

from __future__ import annotations

import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from models_catalog import hub, hub_import, services
from models_catalog.hub_ids import InvalidHubId, parse_hub_id


class Command(BaseCommand):
    help = (
        "Import models from the Hugging Face Hub (ids as arguments or --list FILE) or, with --offline DIR, "
        "from a folder of recorded Hub data laid out as <org>/<name>/{config.json,meta.json}. Idempotent."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("hub_ids", nargs="*", help="Hub ids such as zai-org/GLM-5.3-Flash")
        parser.add_argument("--list", dest="list_file", help="a file with one Hub id per line (# comments)")
        parser.add_argument("--offline", metavar="DIR", help="import the recorded Hub folder DIR instead")

    def handle(self, *args, **options) -> None:
        ids = list(options["hub_ids"])
        if options["list_file"]:
            try:
                lines = Path(options["list_file"]).read_text(encoding="utf-8").splitlines()
            except OSError as exc:
                raise CommandError(f"cannot read {options['list_file']}: {exc}") from exc
            ids += [line.split("#", 1)[0].strip() for line in lines if line.split("#", 1)[0].strip()]
        if options["offline"]:
            self._offline(Path(options["offline"]), ids)
            return
        if not ids:
            raise CommandError("give Hub ids, --list FILE or --offline DIR")
        parsed = []
        for text in ids:
            try:
                parsed.append(parse_hub_id(text))
            except InvalidHubId as exc:
                raise CommandError(f"{text!r} is not a Hub model id: {exc}") from exc
        failures = 0
        client = hub_import.hub_client()
        for hub_id in parsed:
            try:
                model = hub_import.model_import(hub_id, client=client)
            except hub.HubError as exc:  # NotSizable included
                failures += 1
                self.stderr.write(f"{hub_id}: {exc.state}: {exc.detail}")
                continue
            self.stdout.write(f"{model.hub_id}: imported ({model.builds.count()} quantized builds)")
        if failures:
            raise CommandError(f"{failures} of {len(parsed)} imports failed")

    def _offline(self, root: Path, only: list[str]) -> None:
        if not root.is_dir():
            raise CommandError(f"{root} is not a folder")
        started = time.monotonic()
        result = services.model_import_offline(root, only=only)
        for hub_id, reason in result.failed.items():
            self.stderr.write(f"{hub_id}: {reason}")
        self.stdout.write(
            f"{result.total} models from {root}: {len(result.created)} created, "
            f"{len(result.updated)} updated, {len(result.unchanged)} unchanged, {len(result.failed)} failed "
            f"({time.monotonic() - started:.1f} s)"
        )
        if result.failed:
            raise CommandError(f"{len(result.failed)} recorded models could not be imported")
