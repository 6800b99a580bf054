"""One discovery run's report as lines a reader reads: the management command prints them, the admin shows them."""

from __future__ import annotations

from collections.abc import Iterator

from models_catalog.models import DiscoveryRun


def report_lines(run: DiscoveryRun) -> Iterator[str]:
    """One run's report as a reader would read it."""
    finished = f"{run.finished_at:%Y-%m-%d %H:%M:%S}" if run.finished_at else "–"
    yield f"{run.get_step_display()} ({run.step}) started {run.started_at:%Y-%m-%d %H:%M:%S}, finished {finished}"
    yield f"  outcome: {run.get_outcome_display()}"
    report = run.report or {}
    if "listed" in report:
        yield f"  new above the floor: {report['listed']}"
    for hub_id in report.get("imported", ()):
        yield f"  imported  {hub_id}"
    for hub_id, reason in sorted(report.get("skipped", {}).items()):
        yield f"  skipped   {hub_id}: {reason}"
    for build in report.get("builds", ()):
        size = f"{build['size_bytes'] / 1e9:.2f} GB" if build.get("size_bytes") else "size unknown"
        yield f"  build     {build['model']}: {build['format']} {build['label']} in {build['repo_id']} ({size})"
    if "checked" in report:
        yield f"  models checked: {report['checked']}"
    for hub_id, changes in sorted(report.get("changed", {}).items()):
        yield f"  changed   {hub_id}: {'; '.join(changes)}"
    for old, new in sorted(report.get("renamed", {}).items()):
        yield f"  renamed   {old} → {new} on the Hub (kept under its old address)"
    for hub_id, reason in sorted(report.get("missing", {}).items()):
        yield f"  missing   {hub_id}: {reason}"
    for what, reason in sorted(report.get("failures", {}).items()):
        yield f"  failed    {what}: {reason}"
    if report.get("stopped"):
        yield f"  stopped: {report['stopped']}"
