"""The base layout in a real headless Chromium: both languages, the switch, no third-party requests."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_home_in_english_then_german_via_the_switch(browser_page):
    page = browser_page
    page.goto("/en/")
    assert page.locator("html").get_attribute("lang") == "en"
    assert "How much memory" in page.locator("h1").inner_text()
    page.click("a[data-language=de]")
    page.wait_for_url("**/de/")
    assert page.locator("html").get_attribute("lang") == "de"
    assert "Wie viel Speicher" in page.locator("h1").inner_text()
    assert page.locator("footer a").first.inner_text() == "So rechnen wir"


def test_pages_load_htmx_from_this_site_and_nothing_from_elsewhere(browser_page):
    page = browser_page
    page.goto("/en/methodology/")
    page.wait_for_function("() => window.htmx !== undefined")
    assert page.requested_urls, "the browser recorded no requests"
    foreign = [url for url in page.requested_urls if not url.startswith(page.base_url)]
    assert foreign == []
    assert any("htmx" in url for url in page.requested_urls)


def test_layout_fits_a_phone_screen(browser_page):
    page = browser_page
    page.set_viewport_size({"width": 375, "height": 740})
    page.goto("/de/methodology/")
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
