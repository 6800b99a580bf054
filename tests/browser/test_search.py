"""The search box in a real headless Chromium: suggestions as the reader types, reachable by keyboard, on the home
page, the catalog list and the unknown-model page; the list's filters and pages, laid out and checked by axe-core
at phone and desktop width in both languages."""

from __future__ import annotations

import pytest

from models_catalog import selectors
from tests.browser.bundled_site import COLOR_SCHEMES, LANGUAGES, WIDTHS
from tests.browser.layout import check_views

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SUGGESTED = "#catalog-suggestions a[data-hub-id]"


@pytest.fixture
def catalog(shipped_catalog):
    """The shipped catalog (tests/browser/conftest.py: imported once, written back in bulk for each later test)."""


def _type(page, text: str) -> None:
    page.wait_for_function("() => window.htmx !== undefined")
    page.fill("#catalog-q", text)


def test_home_search_box_suggests_as_you_type_and_the_links_are_reachable_by_keyboard(browser_page, catalog):
    page = browser_page
    page.goto("/en/")
    _type(page, "qwen3")
    page.wait_for_selector(SUGGESTED)

    names = page.locator(SUGGESTED).all_inner_texts()
    assert 0 < len(names) <= 8 and all(name.lower().startswith("qwen3") for name in names)
    assert page.url.endswith("/en/")  # suggestions never change the address
    assert all("/suggest/" in url for url in page.requested_urls if "q=qwen3" in url)

    page.focus("#catalog-q")
    page.keyboard.press("Tab")  # the search button
    page.keyboard.press("Tab")  # the first suggestion
    focused = page.evaluate("() => document.activeElement.dataset.hubId")
    assert focused == page.locator(SUGGESTED).first.get_attribute("data-hub-id")
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/en/models/{focused}/")

    page.go_back()
    _type(page, "")
    page.wait_for_function("() => document.querySelector('#catalog-suggestions').children.length === 0")


def test_list_box_suggests_and_filters_the_rows_while_the_address_follows_the_list(browser_page, catalog):
    page = browser_page
    page.goto("/en/models/")
    _type(page, "GLM-5.3")
    page.wait_for_selector(f"{SUGGESTED}[data-hub-id='zai-org/GLM-5.3-Flash']")
    page.wait_for_function("() => document.querySelectorAll('tr[data-hub-id]').length === 1")
    page.wait_for_function("() => location.pathname === '/en/models/' && location.search.includes('q=GLM-5.3')")


def test_unknown_model_page_search_box_suggests(browser_page, catalog):
    page = browser_page
    response = page.goto("/en/models/acme-labs/Imaginary-7B/")
    assert response is not None and response.status == 404
    _type(page, "Llama")
    page.wait_for_selector(SUGGESTED)
    assert all("llama" in t.lower() for t in page.locator(SUGGESTED).all_inner_texts())


def test_plain_form_without_javascript_searches_the_list(chromium_browser, live_server, catalog):
    context = chromium_browser.new_context(base_url=live_server.url, java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto("/en/")
        page.fill("#catalog-q", "qwen3")
        page.click("form.catalog-search button[type=submit]")
        page.wait_for_url("**/en/models/?q=qwen3")
        assert page.locator("tr[data-hub-id]").count() > 1
    finally:
        context.close()


def test_next_page_swaps_in_place_and_back_restores_the_whole_first_page(browser_page, catalog, monkeypatch):
    monkeypatch.setattr(selectors, "PER_PAGE", 20)
    page = browser_page
    page.goto("/en/models/?sort=size")
    page.wait_for_function("() => window.htmx !== undefined")
    first = page.locator("tr[data-hub-id]").first.get_attribute("data-hub-id")
    page.click("nav.pagination a[rel=next]")
    page.wait_for_function("() => location.search.includes('page=2')")
    page.wait_for_function(f"() => document.querySelector('tr[data-hub-id]').dataset.hubId !== {first!r}")
    page.go_back()
    page.wait_for_function("() => !location.search.includes('page=')")
    page.wait_for_function(f"() => document.querySelector('tr[data-hub-id]').dataset.hubId === {first!r}")
    assert page.evaluate(
        "() => !!document.querySelector('header.site-header') && !!document.querySelector('main form')"
    )


# The new states of the list and the box: filters set, a later page, suggestions open.
STATES = (
    ("catalog-filters", "/{lang}/models/?fits=24gb-int4&size=10-40&moe=moe&sort=size", ""),
    ("catalog-page-2", "/{lang}/models/?sort=size&page=2", ""),
    ("catalog-suggestions", "/{lang}/models/", "Qwen3"),
    ("home-suggestions", "/{lang}/", "qwen"),
    ("unknown-suggestions", "/{lang}/models/acme-labs/Imaginary-7B/", "Llama"),
    ("catalog-no-suggestion", "/{lang}/models/", "zzzz-nothing"),
)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize(("path", "typed"), [pytest.param(p, t, id=name) for name, p, t in STATES])
def test_search_states_fit_the_screen_keep_text_apart_and_pass_axe(
    chromium_browser, live_server, catalog, monkeypatch, path, typed, lang
):
    monkeypatch.setattr(selectors, "PER_PAGE", 20)
    context = chromium_browser.new_context(
        base_url=live_server.url, locale=lang, viewport={"width": WIDTHS[0], "height": 800}, bypass_csp=True
    )
    try:
        page = context.new_page()
        page.goto(path.format(lang=lang))
        if typed:
            _type(page, typed)
            page.wait_for_function("() => document.querySelector('#catalog-suggestions').children.length > 0")
        page.wait_for_function("() => document.fonts.status === 'loaded' && !document.querySelector('.htmx-request')")
        report = check_views(page, lang=lang, widths=WIDTHS, color_schemes=COLOR_SCHEMES)
    finally:
        context.close()
    assert not report, f"{path.format(lang=lang)}, typed {typed!r}:\n" + "\n".join(report)
