"""Every section of the model page (calculator/page/sections.py, SECTIONS) has all its renderings, as its record
declares them: its value on ModelPage, its partial, its members of the API's estimate JSON and its block of the
Markdown twin, in both languages.

A record whose partial, JSON form or Markdown partial is missing fails here.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.core.management import call_command
from django.http import QueryDict
from django.template.loader import render_to_string
from django.test import RequestFactory
from django.utils import translation

from calculator.formatting import format_gb
from calculator.page import SECTIONS, model_page
from calculator.page.basis import page_basis
from calculator.page.sections import FRAGMENT_READS, MARKDOWN_PARTIALS, PAGE_PARTS, PAGE_READS, PARTIALS
from calculator.page.view import DEFERRED, model_page_view
from calculator.state import parse_state
from models_catalog import selectors, services
from tests.models_catalog.html import parse

SHIPPED = Path(services.__file__).resolve().parent / "data" / "hub"
MODELS = ["zai-org/GLM-5.3-Flash", "meta-llama/Llama-3.1-8B-Instruct"]
TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
MARKDOWN_DIR = TEMPLATES / "calculator" / "md"
# What the estimate says before its sections: the model, the parameters asked for and the setting computed for
ESTIMATE_HEAD = ["model", "parameters", "setting"]

pytestmark = pytest.mark.django_db


@pytest.fixture
def seed_site():
    services.model_import_offline(SHIPPED, only=MODELS)
    call_command("loaddata", "seed_offers_2026-11-13", verbosity=0)


def _estimate(client, hub_id: str) -> dict:
    response = client.get(f"/api/v1/estimate?model={hub_id}")
    assert response.status_code == 200, response.content[:500]
    return json.loads(response.content)


def _markdown(client, language: str, hub_id: str) -> str:
    response = client.get(f"/{language}/models/{hub_id}.md")
    assert response.status_code == 200, response.content[:500]
    assert response["Content-Type"].startswith("text/markdown")
    return response.content.decode()


# Sections left out of a page where there is nothing to show (a model without published builds).
SECTIONS_THAT_MAY_BE_EMPTY = frozenset({"builds"})


def _section_blocks(language: str, hub_id: str) -> dict[str, str]:
    """Each section's Markdown partial rendered on its own, for the page's default state in ``language``."""
    request = RequestFactory().get(f"/{language}/models/{hub_id}.md")
    model = selectors.model_by_hub_id(hub_id)
    assert model is not None
    with translation.override(language):
        view = model_page_view(request, model)
        context = view.template_context()
        return {
            section.name: render_to_string(partial, context, request=request)
            for section, partial in zip(SECTIONS, view.markdown_partials, strict=True)
        }


def test_every_section_has_one_record_with_its_own_name_and_partials():
    names = [s.name for s in SECTIONS]
    assert len(set(names)) == len(names)
    for section in SECTIONS:
        if section.place == "within":
            assert section.template == "", f"{section.name}: shown within another section's partial"
        else:
            assert (TEMPLATES / section.template).is_file(), f"{section.name}: no partial {section.template}"
        assert section.markdown == f"calculator/md/_{section.name}.md"
    # the results fragment includes the partials of the sections in the results, in page order
    assert tuple(s.template for s in SECTIONS if s.place == "results") == PARTIALS


def test_the_kept_sections_and_the_deferred_blocks_are_those_the_records_declare():
    declared = {s.template: s.reads for s in SECTIONS if s.reads is not None}
    parts = {part.template for part in PAGE_PARTS}
    for kept in (PAGE_READS, FRAGMENT_READS):  # the page and the fragment keep every section that declares its reads
        assert {template: reads for template, reads in kept.items() if template not in parts} == declared
    by_template = {s.template: s.name for s in SECTIONS if s.template}
    deferred = {name for name, template in DEFERRED.items() if template in by_template}
    assert deferred == {s.name for s in SECTIONS if s.deferred}
    assert all(by_template[DEFERRED[name]] == name for name in deferred)  # the placeholder's name is the section's


def test_there_is_one_markdown_partial_per_section_and_no_other():
    on_disk = sorted(f"calculator/md/{path.name}" for path in MARKDOWN_DIR.glob("*.md"))
    assert on_disk == sorted(MARKDOWN_PARTIALS)
    assert len(MARKDOWN_PARTIALS) == len(SECTIONS)


def _written_members(hub_id: str) -> dict[str, set[str]]:
    """The members each section's JSON form writes for the model's page at the default state."""
    model = selectors.model_by_hub_id(hub_id)
    assert model is not None
    sources = page_basis(model, datetime.now(UTC).date()).sources
    assert sources is not None
    page = model_page(sources.inputs(parse_state(QueryDict(""), sources.choices).state))
    written: dict[str, set[str]] = {}
    for section, value in page.sections():
        members = set(section.json(value, page.work))
        assert members, f"{section.name}: its JSON form writes nothing"
        taken = [name for name, earlier in written.items() if earlier & members]
        assert not taken, f"{section.name} writes a member {taken[0]} writes too"
        written[section.name] = members
    return written


@pytest.mark.parametrize("hub_id", MODELS)
def test_the_estimate_json_has_a_member_for_every_section(client, seed_site, hub_id):
    data = _estimate(client, hub_id)
    written = _written_members(hub_id)
    assert list(written) == [s.name for s in SECTIONS]
    assert set(data) == set(ESTIMATE_HEAD).union(*written.values())  # the estimate is its sections and no more
    assert written["rows"] == {"breakdown"} and written["faq"] == {"faq"}
    assert [item["key"] for item in data["faq"]] == [
        "vram",
        "cheapest",
        "finetune",
        "h100",
        "count",
        "mac",
        "precision",
        "serve",
        "engine",
    ]
    assert data["commands"]["cloud"].startswith(("vllm serve", "python -m sglang"))
    assert data["rig"]["gpu"] == "rtx-4090" and len(data["rig"]["rows"]) >= 1  # the default machine


@pytest.mark.parametrize("hub_id", MODELS)
def test_an_inline_config_estimate_has_every_section_too(client, seed_site, hub_id):
    model = selectors.model_by_hub_id(hub_id)
    body = {"config": model.config, "params_total": model.params_total, "params_active": model.params_active}
    response = client.post("/api/v1/estimate", json.dumps(body), content_type="application/json")
    assert response.status_code == 200, response.content[:500]
    data = json.loads(response.content)
    assert set(data) == set(ESTIMATE_HEAD).union(*_written_members(hub_id).values())
    assert data["faq"][0]["question"] == "How much VRAM does this model need?"


@pytest.mark.parametrize("hub_id", MODELS)
def test_the_markdown_twin_has_a_block_for_every_section_in_both_languages(client, seed_site, hub_id):
    headings = {}
    for language in ("en", "de"):
        text = _markdown(client, language, hub_id)
        blocks = _section_blocks(language, hub_id)
        position = 0
        for name, block in blocks.items():
            if not block.strip():
                # a section with nothing to say is left out (no "none recorded yet" placeholder)
                assert name in SECTIONS_THAT_MAY_BE_EMPTY, f"{name}: the block is empty"
                continue
            heading, _, body = block.partition("\n")
            assert heading.startswith("## "), f"{name}: the block does not start with its heading"
            assert body.strip(), f"{name}: the block is a heading only"
            found = text.find(block.strip(), position)
            assert found >= 0, f"{name}: the {language} twin lacks the section's block"
            position = found
            headings[(language, name)] = heading
        assert "<" not in text.split("\n", 1)[1].replace("<https", "")  # Markdown, not HTML
        assert "\n\n\n" not in text
    untranslated = [
        s.name for s in SECTIONS if ("en", s.name) in headings and headings[("en", s.name)] == headings[("de", s.name)]
    ]
    assert untranslated == []


@pytest.mark.parametrize("hub_id", MODELS)
def test_the_need_is_the_same_in_the_json_the_html_and_the_markdown(client, seed_site, hub_id):
    need = _estimate(client, hub_id)["summary"]["need_bytes"]
    html = parse(client.get(f"/en/models/{hub_id}/").content)
    headline = html.one(id="summary-heading")
    assert int(headline.attrs["data-need-bytes"]) == need
    with translation.override("en"):
        shown = format_gb(need).replace("\xa0", " ")  # "708 GB"
    assert f"needs about {shown} of GPU memory" in headline.text.replace("\xa0", " ")
    markdown = re.search(r"^## .* needs about (.+) of GPU memory$", _markdown(client, "en", hub_id), re.M)
    assert markdown is not None and markdown.group(1).replace("\xa0", " ") == shown
