"""Every page type, at phone and desktop width, in both languages, light and dark: nothing sticks out sideways, no
text lies on other text, and axe-core finds no accessibility violation (once per page and language, every width and
scheme covered: AXE_VIEWS in tests/browser/layout.py). Each page is loaded once and resized and switched in place.

A new page type is one line in PAGE_TYPES (tests/browser/bundled_site.py, shared with the screenshot and Lighthouse
scripts in bench/). The checks themselves are tested first, on small pages built here, so a green run means
something.
"""

from __future__ import annotations

import pytest

from calculator.page.view import DEFERRED
from tests.browser.bundled_site import COLOR_SCHEMES, LANGUAGES, PAGE_TYPES, WIDTHS
from tests.browser.layout import (
    AXE_VIEWS,
    axe_violations,
    check_views,
    cut_selects,
    describe_axe_violations,
    horizontal_overflow,
    overlapping_text,
)

pytestmark = pytest.mark.browser

# Page types known to fail today, with the reason; every other page type must pass.
KNOWN_BROKEN: dict[str, str] = {}
PAGES = [
    pytest.param(path, status, id=name, marks=[pytest.mark.xfail(strict=False, reason=KNOWN_BROKEN[name])])
    if name in KNOWN_BROKEN
    else pytest.param(path, status, id=name)
    for name, (path, status) in PAGE_TYPES.items()
]

BROKEN_PAGE = """<!doctype html><html lang="en"><head><title>broken</title><style>
  body { margin: 0; font: 16px/1.4 sans-serif; }
  .wide { width: 600px; background: #eee; }
  #first, #second { margin: 0; }
  .pulled { position: relative; top: -0.8em; left: 10px; }
  </style></head><body><main>
  <div class="wide">Six hundred pixels</div>
  <p id="long">Supercalifragilisticexpialidocious_without_any_break_opportunity_at_all</p>
  <p id="first">First line of text</p><p id="second" class="pulled">Second line pulled up</p>
  <img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
</main></body></html>"""

TIDY_PAGE = """<!doctype html><html lang="en"><head><title>tidy</title><style>
  body { margin: 0; font: 16px/1 sans-serif; }
  .scroller { overflow-x: auto; }
  .scroller table { width: 900px; }
  .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  .label::before { content: attr(data-label); display: block; font-size: .8rem; }
  </style></head><body><main><h1>Tidy</h1>
  <div class="scroller" tabindex="0" role="region" aria-label="Wide table"><table><tr><td>Wide</td><td>table</td>
  </tr></table></div>
  <p><span class="visually-hidden">Hidden label</span>Visible text on the same spot</p>
  <details><summary>More</summary><p style="margin-top: -2em">Closed body drawn over the summary</p></details>
  <p>Tight line one<br>Tight line two<br>Tight line three</p>
  <ol><li>First item</li><li>Second item</li></ol>
  <ul><li>A bullet</li></ul>
  <div data-label="Per month" class="label">$2,453</div>
</main></body></html>"""


@pytest.fixture
def small_page(chromium_browser):
    context = chromium_browser.new_context(viewport={"width": 400, "height": 600}, bypass_csp=True)
    yield context.new_page()
    context.close()


def test_checks_report_a_wide_box_a_long_word_overlapping_text_and_a_missing_alt(small_page):
    small_page.set_content(BROKEN_PAGE)

    overflow = "\n".join(horizontal_overflow(small_page))
    assert "scrollWidth 600 px > innerWidth 400 px" in overflow
    assert 'main > div.wide "Six hundred pixels" is 600 px wide' in overflow
    assert 'text "Supercalifragilistic' in overflow and "in p#long runs out" in overflow

    overlaps = overlapping_text(small_page)
    assert len(overlaps) == 1 and 'p#first "First line of text"' in overlaps[0] and "p#second" in overlaps[0]
    assert overlapping_text(small_page, ignore=".pulled") == []

    rules = [violation["id"] for violation in axe_violations(small_page)]
    assert "image-alt" in rules
    assert "image-alt (critical)" in describe_axe_violations(axe_violations(small_page))[rules.index("image-alt")]


def test_the_select_check_reports_an_option_its_box_cannot_show_whole(small_page):
    small_page.set_content(
        '<!doctype html><html lang="en"><head><title>s</title></head><body><main>'
        '<label>A<select name="narrow" style="width: 8rem"><option>short</option>'
        "<option>NVIDIA RTX PRO 6000 Blackwell 96GB (Workstation)</option></select></label>"
        '<label>B<select name="wide" style="width: 30rem"><option>NVIDIA H200 SXM 141GB</option></select></label>'
        "</main></body></html>"
    )
    cut = cut_selects(small_page)
    assert len(cut) == 1 and cut[0].startswith('select[name=narrow]: "NVIDIA RTX PRO 6000 Blackwell')


def test_the_overlap_check_sees_list_markers_and_before_content(small_page):
    """A table of contents set in columns once ran its text into the next column's list markers (1280 px), and
    phone cards label their cells with ::before content: neither is a text node."""
    small_page.set_content(
        '<!doctype html><html lang="en"><head><title>m</title><style>'
        "body { margin: 0; font: 16px/1.5 sans-serif; } ul { margin: 0; padding-left: 40px; }"
        ".over-marker { margin: -1.5em 0 0 22px; width: 14px; overflow: hidden; white-space: nowrap; }"
        ".label::before { content: attr(data-label); display: block; }"
        ".over-label { margin: -3em 0 0 0; }"
        '</style></head><body><main><ul><li>Item</li></ul><p class="over-marker">xxxx</p>'
        '<div class="label" data-label="Total per hour">$3.36</div><p class="over-label">Drawn</p>'
        "</main></body></html>"
    )
    overlaps = overlapping_text(small_page)
    marker = [line for line in overlaps if '"[marker] •"' in line]
    assert len(marker) == 1 and "p.over-marker" in marker[0] and '"Item"' not in marker[0]
    assert any('"[::before] Total per hour"' in line and "p.over-label" in line for line in overlaps)


def test_checks_leave_sideways_scrollers_hidden_text_closed_details_and_tight_lines_alone(small_page):
    small_page.set_content(TIDY_PAGE)

    assert horizontal_overflow(small_page) == []
    assert overlapping_text(small_page) == []
    assert axe_violations(small_page) == []


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize(("path", "status"), PAGES)
def test_page_fits_the_screen_keeps_text_apart_and_passes_axe(chromium_browser, site_url, path, status, lang):
    # bypass_csp lets axe-core be injected past the site's script-src 'self'; the page itself runs as served. The page
    # is loaded once and checked at each width and colour scheme (check_views).
    context = chromium_browser.new_context(
        base_url=site_url, locale=lang, viewport={"width": WIDTHS[0], "height": 800}, bypass_csp=True
    )
    try:
        page = context.new_page()
        response = page.goto(path.format(lang=lang))
        assert response is not None and response.status == status, f"{path}: HTTP {response and response.status}"
        page.wait_for_function("() => document.fonts.status === 'loaded' && !document.querySelector('.htmx-request')")
        report = check_views(page, lang=lang, widths=WIDTHS, color_schemes=COLOR_SCHEMES)
    finally:
        context.close()
    assert not report, f"{path.format(lang=lang)}\n" + "\n".join(report)


def test_every_width_and_colour_scheme_gets_a_full_axe_run_in_some_language():
    views = set().union(*(AXE_VIEWS[lang] for lang in LANGUAGES))
    assert {width for width, _ in views} == set(WIDTHS)
    assert {scheme for _, scheme in views} == set(COLOR_SCHEMES)


def test_checks_follow_a_resize_and_a_scheme_switch_without_a_reload(small_page):
    small_page.set_content(
        """<!doctype html><html lang="en"><head><title>views</title><style>
        body { margin: 0; } main { width: 100%; } .wide { width: 700px; }
        @media (min-width: 800px) { .wide { width: 100%; } }
        @media (prefers-color-scheme: dark) { p { color: #333; background: #222; } }
        </style></head><body><main><div class="wide">Wide only on a phone</div><p>Dim in the dark</p></main></body>
        </html>"""
    )

    # German: its full axe run is at 1280 px in dark colours (AXE_VIEWS)
    report = "\n".join(check_views(small_page, lang="de", widths=(375, 1280), color_schemes=("light", "dark")))

    assert "at 375 px, light:" in report and "is 700 px wide" in report
    assert "at 1280 px, light:" not in report
    assert "at 1280 px, dark:" in report and "color-contrast" in report


MODEL_PAGES = (
    "/{lang}/models/meta-llama/Llama-3.1-8B-Instruct/?mode=lora",  # dense, fine-tuning settings open
    "/{lang}/models/Qwen/Qwen3-30B-A3B/",  # MoE
    "/{lang}/models/deepseek-ai/DeepSeek-V3/?precision=int4&context=128K&concurrency=8",  # MLA
    "/{lang}/models/Qwen/Qwen3-Next-80B-A3B-Instruct/?gpu=mac-128",  # hybrid linear attention, a Mac
)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("path", MODEL_PAGES)
def test_model_pages_fit_phone_and_tablet_widths(chromium_browser, site_url, path, lang):
    context = chromium_browser.new_context(base_url=site_url, locale=lang, viewport={"width": 360, "height": 800})
    try:
        page = context.new_page()
        # every block the page loads when opened or scrolled to, in the page (checked as a reader sees it opened)
        response = page.goto(path.format(lang=lang) + ("&" if "?" in path else "?") + "show=" + ",".join(DEFERRED))
        assert response is not None and response.status == 200
        page.evaluate("() => document.querySelectorAll('details').forEach((d) => { d.open = true; })")
        report = check_views(page, lang=lang, widths=(360, 768), color_schemes=("light",))
    finally:
        context.close()
    assert not report, f"{path.format(lang=lang)} with every section open:\n" + "\n".join(report)
