"""The answer in one glance: on a 375 × 800 phone the first screen of a model page holds the need, the verdict and
the cheapest setup with its monthly cost, and the planner's first screen its verdict (the bundled site, both
languages, a dense, an MoE, an MLA and a hybrid model)."""

from __future__ import annotations

import pytest

from tests.browser.bundled_site import LANGUAGES

pytestmark = pytest.mark.browser

PHONE = {"width": 375, "height": 800}
MODELS = (
    "meta-llama/Llama-3.1-8B-Instruct",  # dense
    "zai-org/GLM-5.3-Flash",  # MoE
    "deepseek-ai/DeepSeek-V3",  # MLA, several GPUs
    "Qwen/Qwen3-Next-80B-A3B-Instruct",  # hybrid attention
)
MODEL_ANSWER = ("[data-card=need]", "[data-glance-verdict]", "[data-card=per-hour]", "[data-card=per-month]")


def _fully_on_first_screen(page, selector: str) -> bool:
    return page.evaluate(
        """(selector) => { const el = document.querySelector(selector); if (!el) return false;
           const box = el.getBoundingClientRect();
           return box.height > 0 && box.top >= 0 && box.bottom <= window.innerHeight; }""",
        selector,
    )


@pytest.fixture
def phone(chromium_browser, site_url):
    context = chromium_browser.new_context(base_url=site_url, viewport=PHONE)
    yield context.new_page()
    context.close()


def test_the_check_sees_what_lies_below_the_first_screen(phone):
    phone.set_content('<p id="top">top</p><div style="height: 900px"></div><p id="below">below</p>')
    assert _fully_on_first_screen(phone, "#top")
    assert not _fully_on_first_screen(phone, "#below")
    assert not _fully_on_first_screen(phone, "#missing")


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("hub_id", MODELS)
def test_a_model_page_leads_with_the_need_the_verdict_and_the_cheapest_setup(phone, hub_id, lang):
    response = phone.goto(f"/{lang}/models/{hub_id}/")
    assert response is not None and response.status == 200
    below = [selector for selector in MODEL_ANSWER if not _fully_on_first_screen(phone, selector)]
    assert below == [], f"{hub_id} ({lang}): not on the first 375 × 800 screen: {below}"
    # the form comes after the answer, in reading order too
    order = phone.evaluate(
        "() => document.querySelector('[data-glance-verdict]')"
        ".compareDocumentPosition(document.querySelector('#calculator'))"
    )
    assert order & 4, "the verdict precedes the form"  # Node.DOCUMENT_POSITION_FOLLOWING


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_planner_leads_with_its_verdict(phone, lang):
    response = phone.goto(f"/{lang}/plan/?model=zai-org/GLM-5.3-Flash&out=10B&cached=50")
    assert response is not None and response.status == 200
    assert _fully_on_first_screen(phone, "[data-plan-verdict]"), "the planner's verdict is on the first screen"
