"""The model page in a real headless Chromium: the calculator re-renders in place, the URL is the state."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import call_command

from models_catalog import services

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHIPPED = Path(services.__file__).resolve().parent / "data" / "hub"
GLM = "/en/models/zai-org/GLM-5.3-Flash/"


@pytest.fixture
def seed_site():
    services.model_import_offline(SHIPPED, only=["zai-org/GLM-5.3-Flash", "meta-llama/Llama-3.1-8B-Instruct"])
    call_command("loaddata", "seed_offers_2026-11-13", verbosity=0)


def _errors(page) -> list[str]:
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    return errors


def _wait_need(page, text: str) -> None:
    page.wait_for_function(
        "(text) => document.querySelector('[data-card=need]').textContent.trim().replace(/\\s/g, ' ') === text",
        arg=text,
    )


def _need(page) -> str:
    return page.locator("[data-card=need]").inner_text().replace("\xa0", " ")


def test_changing_precision_updates_results_in_place_and_the_url_keeps_the_state(browser_page, seed_site):
    page = browser_page
    errors = _errors(page)
    page.goto(GLM)
    page.wait_for_function("() => window.htmx !== undefined")
    assert _need(page) == "321 GB"  # FP8, as released
    page.evaluate("() => { window.sameDocument = true; }")

    page.focus("#f-precision")
    page.select_option("#f-precision", "int4")
    _wait_need(page, "170 GB")
    assert page.evaluate("() => window.sameDocument") is True  # swapped in place, no reload
    assert page.url.endswith(GLM + "?precision=int4")
    assert page.evaluate("() => document.activeElement && document.activeElement.id") == "f-precision"
    page.click("#by-precision-more > summary")  # the chapter's body loads when the reader opens it
    page.wait_for_selector("#precision-body.chapter-body")
    assert page.url.endswith(GLM + "?precision=int4")  # loading the chapter pushes no history entry
    rows = page.locator("#matrix tr[data-precision]").count()
    assert rows == 3

    page.reload()
    assert _need(page) == "170 GB"
    assert page.locator("#f-precision").input_value() == "int4"

    page.select_option("#f-precision", "int8")
    page.wait_for_function("() => location.search === '?precision=int8'")
    _wait_need(page, "335 GB")
    page.go_back()
    page.wait_for_function("() => location.search === '?precision=int4'")
    _wait_need(page, "170 GB")
    assert page.locator("header.site-header").count() == 1  # the whole page, not a bare fragment
    assert page.locator("#f-precision").input_value() == "int4"
    assert errors == []


def test_typed_context_is_debounced_and_accepts_units(browser_page, seed_site):
    page = browser_page
    errors = _errors(page)
    page.goto(GLM + "?precision=int4")
    page.wait_for_function("() => window.htmx !== undefined")
    page.fill("#f-context", "1M")
    page.wait_for_function("() => location.search.includes('context=1M')")
    page.wait_for_function("() => !document.querySelector('#ignored-notice')")
    assert page.locator("#f-context").input_value() == "1M"
    assert errors == []


def test_inverse_question_fields_outside_the_form_update_the_state(browser_page, seed_site):
    page = browser_page
    page.goto(GLM + "?precision=int4")
    page.wait_for_function("() => window.htmx !== undefined")
    assert not page.locator("#f-gpu").is_visible()  # a chapter, closed until the reader opens it
    page.click("#inverse-more > summary")
    page.select_option("#f-gpu", "mi300x")
    page.wait_for_function("() => location.search.includes('gpu=mi300x')")
    assert "precision=int4" in page.url  # the main form's state travels along
    page.wait_for_function("() => document.querySelector('#inverse-caption').textContent.includes('MI300X')")
    assert page.locator("#f-gpu").is_visible()  # re-rendered in place, still open


def test_the_section_menu_opens_the_chapter_it_links_to(browser_page, seed_site):
    page = browser_page
    page.goto(GLM)
    page.wait_for_function("() => window.htmx !== undefined")
    assert page.evaluate("() => document.querySelector('#context-more').open") is False
    page.click(".page-menu a[href='#context']")
    page.wait_for_function("() => document.querySelector('#context-more').open")


def test_the_form_works_without_javascript(chromium_browser, live_server, seed_site):
    context = chromium_browser.new_context(base_url=live_server.url, java_script_enabled=False)
    page = context.new_page()
    page.goto(GLM)
    page.select_option("#f-precision", "int8")
    page.click("#calculator button[type=submit]")
    page.wait_for_url("**precision=int8**")
    assert page.locator("[data-card=need]").inner_text().replace("\xa0", " ") == "335 GB"
    context.close()


def test_copy_buttons_put_the_command_and_the_permalink_on_the_clipboard(chromium_browser, live_server, seed_site):
    context = chromium_browser.new_context(base_url=live_server.url)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    page = context.new_page()
    page.goto(GLM)
    page.click("button[data-copy=cmd-cloud]")
    page.wait_for_function("() => document.querySelector('button[data-copy=cmd-cloud]').textContent !== 'Copy'")
    copied = page.evaluate("() => navigator.clipboard.readText()")
    assert copied == page.locator("#cmd-cloud").inner_text().strip()
    assert copied.startswith("vllm serve zai-org/GLM-5.3-Flash")
    page.select_option("#f-precision", "int4")
    page.wait_for_function("() => location.search === '?precision=int4'")
    page.click("button[data-copy=permalink]")
    page.wait_for_function("() => document.querySelector('button[data-copy=permalink]').textContent === 'Copied'")
    assert page.evaluate("() => navigator.clipboard.readText()") == live_server.url + GLM + "?precision=int4"
    context.close()


def test_the_faq_and_the_per_cloud_table_load_when_scrolled_into_view(browser_page, seed_site):
    """Both start as placeholders (the page is lighter by their size); scrolling to them loads each for the state
    the page shows, and a change of setting brings the placeholders back for the new state."""
    page = browser_page
    errors = _errors(page)
    page.goto(GLM + "?precision=int4")
    page.wait_for_function("() => window.htmx !== undefined")
    assert page.locator("dd[data-faq]").count() == 0 and page.locator("#by-provider").count() == 0
    page.locator("#faq").scroll_into_view_if_needed()
    page.wait_for_selector("dd[data-faq=cheapest]")
    page.locator("#providers").scroll_into_view_if_needed()
    page.wait_for_selector("#by-provider tr[data-provider]")
    assert page.url.endswith("?precision=int4")  # loading a block does not change the address
    page.evaluate("() => window.scrollTo(0, 0)")
    page.select_option("#f-precision", "fp16")
    _wait_need(page, "633 GB")
    page.locator("#faq").scroll_into_view_if_needed()
    page.wait_for_selector("dd[data-faq=cheapest]")
    assert errors == []


def test_the_facts_source_tables_load_when_their_disclosure_shows(browser_page, seed_site):
    """The parameter-count table (open: its sources disagree) loads when scrolled to; the closed table of the other
    facts loads when its disclosure is opened, with no scroll."""
    page = browser_page
    errors = _errors(page)
    page.goto(GLM)
    page.wait_for_function("() => window.htmx !== undefined")
    assert page.locator("#fact-sources tr[data-kind]").count() == 0
    page.locator("#fact-sources").scroll_into_view_if_needed()
    page.wait_for_selector("#fact-sources tr[data-kind=params_total][data-conflict]")
    assert page.locator("#other-sources tr[data-kind]").count() == 0
    page.locator("#other-sources summary").click()
    page.wait_for_selector("#other-sources #fact-table tr[data-kind]")
    assert page.url.endswith(GLM) and errors == []


def test_the_version_select_follows_the_chosen_engine(browser_page, seed_site):
    """More settings shows the release lines of the chosen engine only (the answer brings the new engine's select
    with it); choosing a line re-renders the answer for it, and an engine without lines shows none."""
    page = browser_page
    errors = _errors(page)
    page.goto("/en/models/meta-llama/Llama-3.1-8B-Instruct/")
    page.wait_for_function("() => window.htmx !== undefined")
    page.locator("details.more-settings summary").click()
    assert page.locator("#f-release").is_visible() and page.locator("#f-llamacpp").count() == 0
    page.select_option("#f-engine", "llama.cpp")
    page.wait_for_selector("#f-llamacpp")
    assert page.locator("#f-llamacpp").is_visible() and page.locator("#f-release").count() == 0
    page.select_option("#f-llamacpp", "b6325")
    page.wait_for_function("() => location.search.includes('llamacpp=b6325')")
    page.wait_for_function(
        "() => document.querySelector('[data-setting]').textContent.includes('llama.cpp b6325–b7406')"
    )
    page.select_option("#f-engine", "ollama")
    page.wait_for_function("() => location.search.includes('engine=ollama')")
    page.wait_for_function("() => document.querySelector('#engine-release select') === null")
    assert not page.locator("#engine-release").is_visible() and errors == []
