"""Full-page screenshots of the site on the bundled data, for people to look at.

    .venv/bin/python bench/screenshots.py [--out test-artifacts/screenshots] [paths...]

Each path (default: every page type in tests/browser/bundled_site.py) is taken at 375 and 1280 px wide, in English
and German, light and dark. A path may hold {lang} for the language prefix; one without a /en/ or /de/ prefix gets
it added. Uses Debian's Chromium (CHROMIUM_PATH, default /usr/bin/chromium). Prints each file written.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.browser.bundled_site import (  # noqa: E402
    COLOR_SCHEMES,
    LANGUAGES,
    PAGE_TYPES,
    WIDTHS,
    serve_bundled_site,
)

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")


def with_language(path: str) -> str:
    """'/models/' -> '/{lang}/models/'; '/en/models/' -> '/{lang}/models/'; '{lang}' stays as it is."""
    if "{lang}" in path:
        return path
    rest = re.sub(r"^/(?:{})(?=/|$)".format("|".join(LANGUAGES)), "", "/" + path.lstrip("/"))
    return "/{lang}" + (rest or "/")


def file_name(path: str, width: int, lang: str, scheme: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9.]+", "-", path.replace("{lang}", "")).strip("-") or "home"
    return f"{slug}--{width}-{lang}-{scheme}.png"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "test-artifacts" / "screenshots")
    parser.add_argument("paths", nargs="*", help="site paths, e.g. /en/models/ (default: every page type)")
    args = parser.parse_args()
    paths = [with_language(path) for path in args.paths] or [path for path, _status in PAGE_TYPES.values()]
    args.out.mkdir(parents=True, exist_ok=True)

    from playwright.sync_api import sync_playwright

    with serve_bundled_site() as base_url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]
        )
        try:
            for width in WIDTHS:
                for lang in LANGUAGES:
                    for scheme in COLOR_SCHEMES:
                        context = browser.new_context(
                            base_url=base_url,
                            locale=lang,
                            color_scheme=scheme,
                            viewport={"width": width, "height": 800},
                        )
                        page = context.new_page()
                        for path in paths:
                            url = path.format(lang=lang)
                            response = page.goto(url)
                            page.wait_for_function(
                                "() => document.fonts.status === 'loaded' && !document.querySelector('.htmx-request')"
                            )
                            target = args.out / file_name(path, width, lang, scheme)
                            page.screenshot(path=str(target), full_page=True)
                            status = response.status if response else "?"
                            shown = target.relative_to(ROOT) if target.is_relative_to(ROOT) else target
                            print(f"{shown}  {url} {status}")
                        context.close()
        finally:
            browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
