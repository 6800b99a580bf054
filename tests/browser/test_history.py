"""Back and Forward after in-place HTMX updates restore the whole page, never a bare fragment.

htmx 2 with ``historyCacheSize: 0`` restores history by re-requesting the URL with ``HX-Request`` and
``HX-History-Restore-Request`` set; the views must answer that with the full page. Every page type that swaps
content in place is listed here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from models_catalog import services

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHIPPED = Path(services.__file__).resolve().parent / "data" / "hub"


def _whole_page(page) -> bool:
    return page.evaluate(
        "() => !!document.querySelector('header.site-header') && !!document.querySelector('footer.site-footer')"
        " && !!document.querySelector('main form')"
    )


def test_back_after_two_catalog_filters_restores_the_whole_page(browser_page):
    services.model_import_offline(SHIPPED)
    page = browser_page
    page.goto("/en/models/")
    page.wait_for_function("() => window.htmx !== undefined")

    page.fill("#catalog-q", "Qwen")
    page.wait_for_function("() => location.search.includes('q=Qwen')")
    page.wait_for_function("() => document.querySelectorAll('tr[data-hub-id]').length < 56")
    page.fill("#catalog-q", "GLM-5.3")
    page.wait_for_function("() => document.querySelectorAll('tr[data-hub-id]').length === 1")

    page.go_back()
    page.wait_for_function("() => location.search.includes('q=Qwen') && !location.search.includes('GLM')")
    page.wait_for_function("() => document.querySelectorAll('tr[data-hub-id]').length > 1")
    assert _whole_page(page)

    page.go_back()
    page.wait_for_function("() => location.search === ''")
    page.wait_for_function("() => document.querySelectorAll('tr[data-hub-id]').length === 56")
    assert _whole_page(page)

    page.go_forward()
    page.wait_for_function("() => location.search.includes('q=Qwen')")
    page.wait_for_function("() => document.querySelectorAll('tr[data-hub-id]').length > 1")
    assert _whole_page(page)


def _llama_page(page, *, width: int):
    """Llama-3.1-8B's page at ``width`` px, with htmx loaded."""
    services.model_import_offline(SHIPPED, only=["meta-llama/Llama-3.1-8B-Instruct"])
    page.set_viewport_size({"width": width, "height": 800})
    page.goto("/en/models/meta-llama/Llama-3.1-8B-Instruct/")
    page.wait_for_function("() => window.htmx !== undefined")
    return page


def test_back_keeps_the_readers_scroll_position(browser_page):
    """Back after a change made far down the page returns to that place, not to the top or the footer."""
    page = _llama_page(browser_page, width=1280)
    page.click("#local-more > summary")  # the Macs' chapter, closed by default
    page.locator("#f-macos").scroll_into_view_if_needed()
    page.evaluate("() => window.scrollBy(0, 200)")
    before = page.evaluate("() => window.scrollY")
    assert before > 1000
    page.select_option("#f-macos", "26")
    page.wait_for_function("() => location.search.includes('macos=26')")
    page.wait_for_function("() => document.querySelector('#f-macos').value === '26'")
    page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")  # read on, to the footer

    page.go_back()
    page.wait_for_function("() => !location.search.includes('macos=26')")
    page.wait_for_function(
        "() => document.querySelector('#f-macos') && document.querySelector('#f-macos').value === '15'"
    )
    page.wait_for_timeout(300)
    after = page.evaluate("() => window.scrollY")
    assert abs(after - before) < 400, (before, after)


def test_back_after_two_mode_changes_keeps_the_scroll_position(browser_page):
    page = _llama_page(browser_page, width=375)
    page.locator("select[name=mode]").scroll_into_view_if_needed()
    before = page.evaluate("() => window.scrollY")
    page.select_option("select[name=mode]", "lora")
    page.wait_for_function("() => location.search.includes('mode=lora')")
    at_lora = page.evaluate("() => window.scrollY")
    page.select_option("select[name=mode]", "full")
    page.wait_for_function("() => location.search.includes('mode=full')")
    page.go_back()
    page.wait_for_function("() => location.search.includes('mode=lora')")
    page.wait_for_function("() => document.querySelector('select[name=mode]').value === 'lora'")
    page.wait_for_timeout(300)
    after = page.evaluate("() => window.scrollY")
    height = page.evaluate("() => document.body.scrollHeight")
    assert abs(after - at_lora) < 400, (before, at_lora, after, height)


def _wait_idle(page) -> None:
    page.wait_for_function("() => !document.querySelector('#calc-loading').classList.contains('htmx-request')")


def test_typing_a_number_and_leaving_the_field_is_one_step_back(browser_page):
    """The debounced update while typing and the `change` on leaving the field ask for the same state: one entry."""
    page = _llama_page(browser_page, width=1280)
    before = page.url
    page.fill("#f-concurrency", "12")
    page.wait_for_function("() => location.search.includes('concurrency=12')")
    _wait_idle(page)
    page.press("#f-concurrency", "Tab")  # leaving the field fires `change` for the value already shown
    _wait_idle(page)

    page.go_back()
    page.wait_for_function("() => !location.search.includes('concurrency=12')")
    assert page.url == before
