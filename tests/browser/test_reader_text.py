"""Nothing a reader should not see: no page shows an internal id, slug or hash as text outside code blocks and
commands — GPU and provider slugs, a hosted API's route id, the Hub's pipeline tags and licence ids, a provider's raw
instance name ("H100_SXM x8") or a commit hash. Every page type, both languages (the bundled site)."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import pytest

from tests.browser.bundled_site import LANGUAGES, PAGE_TYPES

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]

# The text a reader reads: every text node but those in code, commands, form values and the page's machinery.
READER_TEXT = """() => {
  const skip = 'code, pre, kbd, samp, script, style, template, textarea, select, option, datalist, svg title';
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const texts = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent.trim();
    if (text && !node.parentElement.closest(skip)) texts.push(text.replace(/\\s+/g, ' '));
  }
  return texts;
}"""
ENGLISH_WORDS = frozenset({"together", "lambda"})
HASH = re.compile(r"(?<![\w/.-])(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}(?![\w/.-])")
# (and a provider's SKU description as recorded: "… running in Americas", "Spot Preemptible", "Commitment v1:")
INSTANCE_NAME = re.compile(
    r"\b[A-Z0-9][A-Za-z0-9_]* x\d+\b|\bB\d{5,6} |GPU SKU|\b(?:instance|VM) \$[\d.]+/h"
    r"|\brunning in\b|Spot Preemptible|Commitment v1"
)


def _word(token: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w/.-])" + re.escape(token) + r"(?![\w/.-])")


@cache
def forbidden() -> dict[str, list[re.Pattern[str]]]:
    """Each kind of raw id, from the bundled data the site shows."""
    gpus = json.loads((ROOT / "pricing/data/gpus.json").read_text())
    gpus = gpus["gpus"] if isinstance(gpus, dict) else gpus
    providers = [path.stem for path in (ROOT / "pricing/data/snapshot").glob("*/*.json")]
    routes = {row["model"] for row in json.loads((ROOT / "pricing/data/api-prices.json").read_text())["prices"]}
    metas = [json.loads(path.read_text()) for path in (ROOT / "models_catalog/data/hub").glob("*/*/meta.json")]
    tags = {meta.get("pipeline_tag") for meta in metas} - {None}
    licences = {meta.get("license") for meta in metas} - {None, "mit", "MIT"}  # "mit" is German for "with"
    return {
        "GPU slug": [_word(gpu["slug"]) for gpu in gpus if "-" in gpu["slug"]],
        # a slug that is also an English word ("together") counts only where written as a slug would be
        "provider slug": [_word(slug) for slug in providers if slug not in ENGLISH_WORDS],
        "hosted API route id": [_word(route) for route in routes],
        "pipeline tag": [_word(tag) for tag in tags if "-" in tag],
        "licence id": [_word(licence) for licence in licences if licence != licence.capitalize()],
    }


def raw_ids(texts: list[str]) -> list[str]:
    found = []
    for text in texts:
        found += [f"hash {m.group()!r} in {text[:80]!r}" for m in HASH.finditer(text)]
        found += [f"instance name {m.group()!r} in {text[:80]!r}" for m in INSTANCE_NAME.finditer(text)]
        for kind, patterns in forbidden().items():
            found += [f"{kind} {m.group()!r} in {text[:80]!r}" for p in patterns for m in p.finditer(text)]
    return found


def test_the_check_finds_each_kind_of_raw_id_and_leaves_names_alone():
    found = raw_ids(
        [
            "Cheapest: 8 × h200-sxm at RunPod",
            "source: commit 095f58a5 of aiconfigurator",
            "H100_SXM x8 · on-demand",
            "H200 x1",
            "B98415 Oracle Cloud Infrastructure - Compute - GPU - H100",
            'GPU SKU: "Nvidia L4 GPU running in Americas"',
            "Commitment v1: Nvidia L4 GPU in Americas for 1 Year",
            "EC2 p5.48xlarge (instance $55.04/h)",
            "Task: image-text-to-text",
            "via z-ai/glm-5.2",
            "H200 SXM 141GB at RunPod, 8 GPUs, on the Hub as meta-llama/Llama-3.1-8B-Instruct",
        ]
    )
    assert [line.split(" '")[0] for line in found] == [
        "GPU slug",
        "hash",
        "instance name",
        "instance name",
        "instance name",
        "instance name",
        "instance name",
        "instance name",
        "instance name",
        "pipeline tag",
        "hosted API route id",
    ]


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("name", list(PAGE_TYPES))
def test_no_page_shows_a_raw_id_slug_or_hash(chromium_browser, site_url, name, lang):
    path, status = PAGE_TYPES[name]
    context = chromium_browser.new_context(base_url=site_url, locale=lang)
    try:
        page = context.new_page()
        response = page.goto(path.format(lang=lang))
        assert response is not None and response.status == status
        found = raw_ids(page.evaluate(READER_TEXT))
        assert found == [], f"{name} ({lang}):\n" + "\n".join(sorted(set(found))[:40])
    finally:
        context.close()
