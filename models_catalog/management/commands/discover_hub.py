"""Run catalog discovery now (the beat schedule's steps), or show what the last runs did."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandParser

from models_catalog import discovery
from models_catalog.discovery_report import report_lines
from models_catalog.models import DiscoveryRun

STEPS = {
    "models": discovery.discovery_models_run,
    "builds": discovery.discovery_builds_run,
    "facts": discovery.discovery_facts_run,
}


class Command(BaseCommand):
    help = (
        "Discover new Hub models, new builds of listed models and their moving facts now (what the beat schedule "
        "runs), printing each run's report; --last N shows the last N runs instead."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--step", choices=[*STEPS, "all"], default="all")
        parser.add_argument("--last", type=int, metavar="N", help="show the last N runs, run nothing")

    def handle(self, *args, **options) -> None:
        if options["last"]:
            for run in DiscoveryRun.objects.all()[: options["last"]]:
                self.stdout.write("\n".join(report_lines(run)))
            return
        steps = list(STEPS) if options["step"] == "all" else [options["step"]]
        for step in steps:
            run = STEPS[step]()
            self.stdout.write("\n".join(report_lines(run)))
