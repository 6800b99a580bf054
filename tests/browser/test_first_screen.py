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


# The smallest a chart's label may read on a phone, in CSS pixels (the floor for charts re-laid for phones).
MIN_LABEL_PX = 12
CHART_LABEL_SIZES = """() => [...document.querySelectorAll('svg.line-chart')]
  .filter(svg => svg.getBoundingClientRect().width > 0)
  .flatMap(svg => { const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    return [...svg.querySelectorAll('text')].map(t => parseFloat(getComputedStyle(t).fontSize) * scale); })"""


@pytest.mark.parametrize("width", (360, 375, 1280))
@pytest.mark.parametrize(
    "path",
    ("/en/models/meta-llama/Llama-3.1-8B-Instruct/#context", "/de/plan/?model=zai-org/GLM-5.3-Flash&out=10B&cached=50"),
)
def test_chart_labels_read_at_twelve_pixels_or_more_on_a_phone_and_a_laptop(chromium_browser, site_url, path, width):
    context = chromium_browser.new_context(base_url=site_url, viewport={"width": width, "height": 800})
    try:
        page = context.new_page()
        page.goto(path)
        page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
        if "#context" in path:  # the chapter's body loads when it is opened
            page.wait_for_selector("#context-body.chapter-body svg.line-chart", state="attached")
        shown = page.evaluate(
            "() => [...document.querySelectorAll('svg.line-chart')].filter(s => s.getClientRects().length).length"
        )
        assert shown == 1, "one drawing of the chart per screen width"
        sizes = page.evaluate(CHART_LABEL_SIZES)
        assert sizes and min(sizes) >= MIN_LABEL_PX, f"{path} at {width} px: labels at {min(sizes):.1f} px"
    finally:
        context.close()
