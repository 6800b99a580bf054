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
