"""The on-demand import page in a real headless Chromium: HTMX polling swaps in the imported model."""

from __future__ import annotations

from pathlib import Path

import pytest

from models_catalog import services
from models_catalog.models import ImportRequest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHIPPED = Path(services.__file__).resolve().parent / "data" / "hub"


def test_import_page_polls_and_swaps_in_the_result_without_a_reload(browser_page):
    request = ImportRequest.objects.create(hub_id="Qwen/Qwen3-8B")
    page = browser_page
    page.goto("/en/models/import/Qwen/Qwen3-8B/")
    page.wait_for_function("() => window.htmx !== undefined")
    assert page.locator("#import-status").get_attribute("data-state") == "queued"
    page.evaluate("() => { window.sameDocument = true; }")

    # The worker's part, done here: the model lands in the catalog and the request is marked done.
    services.model_import_offline(SHIPPED, only=["Qwen/Qwen3-8B"])
    ImportRequest.objects.filter(pk=request.pk).update(state=ImportRequest.State.DONE)

    page.wait_for_selector("#import-status[data-state=done] #model-facts", timeout=15_000)
    assert page.evaluate("() => window.sameDocument") is True  # swapped in place, not reloaded
    assert page.locator("#model-facts").get_attribute("data-hub-id") == "Qwen/Qwen3-8B"
    assert page.locator("[data-fact=max_context]").inner_text() == "40,960"


def test_catalog_search_filters_the_list_in_place(browser_page):
    services.model_import_offline(SHIPPED)
    page = browser_page
    page.goto("/en/models/")
    page.wait_for_function("() => window.htmx !== undefined")
    assert page.locator("tr[data-hub-id]").count() == 56

    page.fill("#catalog-q", "GLM-5.3")
    page.wait_for_function("() => document.querySelectorAll('tr[data-hub-id]').length === 1")

    assert page.locator("tr[data-hub-id]").get_attribute("data-hub-id") == "zai-org/GLM-5.3-Flash"
    assert "q=GLM-5.3" in page.url  # hx-push-url: the filtered list is a permalink
