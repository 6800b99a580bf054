"""Lighthouse scores for pages of the site on the bundled data, in mobile and desktop form.

    .venv/bin/python bench/lighthouse.py [--out test-artifacts/lighthouse] [paths...]     (or: make lighthouse)

Installs the pinned Lighthouse (bench/lighthouse/package.json and its lock) into bench/lighthouse/node_modules on
first use, starts the site as the layout tests do (tests/browser/bundled_site.py), and runs Lighthouse with
Debian's Chromium (CHROME_PATH, default /usr/bin/chromium) against each path (default /en/). Prints the four
category scores per run and writes each JSON report to the output folder.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.browser.bundled_site import serve_bundled_site  # noqa: E402

PACKAGE_DIR = ROOT / "bench" / "lighthouse"
LIGHTHOUSE = PACKAGE_DIR / "node_modules" / ".bin" / "lighthouse"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
FORM_FACTORS = ("mobile", "desktop")
CHROME_FLAGS = "--headless=new --no-sandbox --disable-gpu"


def install_lighthouse() -> None:
    if LIGHTHOUSE.exists():
        return
    npm = shutil.which("npm")
    if npm is None:
        sys.exit("npm is needed to install Lighthouse (Debian: apt-get install npm)")
    print(f"installing Lighthouse into {PACKAGE_DIR.relative_to(ROOT)}/node_modules", file=sys.stderr)
    subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=PACKAGE_DIR, check=True)


def run_lighthouse(url: str, form_factor: str, report: Path) -> dict[str, int | None]:
    command = [
        str(LIGHTHOUSE),
        url,
        "--output=json",
        f"--output-path={report}",
        f"--only-categories={','.join(CATEGORIES)}",
        f"--chrome-flags={CHROME_FLAGS}",
        "--quiet",
    ]
    if form_factor == "desktop":
        command.append("--preset=desktop")
    env = {**os.environ, "CHROME_PATH": os.environ.get("CHROME_PATH", "/usr/bin/chromium")}
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    if result.returncode != 0 or not report.exists():
        raise RuntimeError(f"Lighthouse failed on {url} ({form_factor}):\n{result.stderr[-3000:]}")
    categories = json.loads(report.read_text())["categories"]
    return {
        name: None if categories[name]["score"] is None else round(categories[name]["score"] * 100)
        for name in CATEGORIES
    }


def http_status(url: str) -> int:
    """Lighthouse scores an error page like any other; the status beside the scores says which one it was."""
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "test-artifacts" / "lighthouse")
    parser.add_argument("paths", nargs="*", default=["/en/"], help="site paths, e.g. /en/models/ (default: /en/)")
    args = parser.parse_args()
    install_lighthouse()
    args.out.mkdir(parents=True, exist_ok=True)

    print(f"{'path':<48} {'status':>6} {'form':<8} " + " ".join(f"{name:>14}" for name in CATEGORIES) + "  report")
    with serve_bundled_site() as base_url:
        for path in args.paths:
            path = "/" + path.lstrip("/")
            status = http_status(base_url + path)
            for form_factor in FORM_FACTORS:
                slug = re.sub(r"[^A-Za-z0-9.]+", "-", path).strip("-") or "root"
                report = args.out / f"{slug}--{form_factor}.json"
                scores = run_lighthouse(base_url + path, form_factor, report)
                shown = report.relative_to(ROOT) if report.is_relative_to(ROOT) else report
                cells = " ".join(f"{'-' if score is None else score:>14}" for score in scores.values())
                print(f"{path:<48} {status:>6} {form_factor:<8} {cells}  {shown}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
