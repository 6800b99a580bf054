"""Each kept section's HTML depends on the inputs it declares (calculator/page/sections.py, Section.reads) and on no
other: the page keeps it per their values (calculator/page/view.py, kept_sections), so a wrong declaration would
serve one state's section on another state's page.

For two models and two modes, every other calculator input is changed on its own: the section's bytes must stay
the same. And a change of an input it reads must reach the page: the kept HTML equals a fresh rendering."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import call_command
from django.template.loader import render_to_string
from django.test import RequestFactory
from django.utils import translation

from calculator.page.sections import PAGE_READS, SECTION_READS
from calculator.page.view import STATE_SLOT, kept_context, kept_sections, model_page_view
from calculator.state import FIELD_NAMES
from models_catalog import selectors, services
from tests.support import module_rows

SHIPPED = Path(services.__file__).resolve().parent / "data" / "hub"
MODELS = ["zai-org/GLM-5.3-Flash", "meta-llama/Llama-3.1-8B-Instruct"]
# another valid value for each input (the test checks that the page took it)
OTHER = {
    "precision": "int4",
    "mode": "lora",
    "engine": "sglang",
    "concurrency": "4",
    "context": "32768",
    "kv": "fp8",
    "mtp": "1",
    "release": "0.12",
    "sglang": "0.4.8",
    "llamacpp": "b7407",
    "mlx_lm": "0.22.2",
    "batch": "2",
    "seq": "4096",
    "rank": "16",
    "optimizer": "adamw_8bit",
    "checkpointing": "0",
    "framework": "unsloth",
    "gpu": "h100-sxm",
    "gpus": "2",
    "ratio": "5",
    "cached": "50",
    "tps": "30",
    "rig": "rtx-3090",
    "rig_gpus": "2",
    "ram": "128",
    "macos": "26",
}

# inputs only some models' pages take: the MTP draft where the model has MTP layers (GLM-5.3-Flash has one)
OFFERED_BY = {"mtp": {"zai-org/GLM-5.3-Flash"}}

pytestmark = [pytest.mark.django_db, pytest.mark.xdist_group("section-reads")]


def _write_site() -> None:
    services.model_import_offline(SHIPPED, only=MODELS)
    call_command("loaddata", "seed_offers_2026-11-13", verbosity=0)


_site_rows = module_rows(_write_site)


@pytest.fixture
def site(_site_rows, db):
    """The two models and the seed offers, written once for the module."""


def _view(hub_id: str, query: dict[str, str]):
    request = RequestFactory().get(f"/en/models/{hub_id}/", query)
    model = selectors.model_by_hub_id(hub_id)
    assert model is not None
    return request, model_page_view(request, model)


def _sections(hub_id: str, query: dict[str, str]) -> tuple[object, dict[str, str]]:
    """Each kept template as the page keeps it: links to the page's whole state hold the slot for its query."""
    request, view = _view(hub_id, query)
    context = kept_context(view)
    return view.state, {partial: render_to_string(partial, context, request) for partial in SECTION_READS}


def test_every_input_is_a_calculator_input():
    assert set(OTHER) == set(FIELD_NAMES)
    for reads in SECTION_READS.values():
        assert reads <= set(FIELD_NAMES)


@pytest.mark.parametrize("hub_id", MODELS)
@pytest.mark.parametrize("base", [{}, {"mode": "lora"}])
def test_a_section_reads_no_input_it_does_not_declare(site, hub_id, base):
    with translation.override("en"):
        state, before = _sections(hub_id, base)
        for name, value in OTHER.items():
            if name in base or hub_id not in OFFERED_BY.get(name, {hub_id}):
                continue
            changed, after = _sections(hub_id, {**base, name: value})
            assert getattr(changed, name) != getattr(state, name), f"{name}={value} was not taken"
            for partial, reads in SECTION_READS.items():
                if name not in reads:
                    assert after[partial] == before[partial], f"{partial} reads {name!r} but does not declare it"


def test_a_change_of_an_input_a_section_reads_reaches_the_page(site):
    """The kept HTML of every section equals a fresh rendering after one input it reads changed (and after one it
    does not read): the second page takes most sections from the store."""
    hub_id = MODELS[0]
    with translation.override("en"):
        for query in ({}, {"ratio": "5"}, {"ratio": "5", "context": "32768"}, {"context": "32768"}):
            request, view = _view(hub_id, query)
            kept = kept_sections(request, view)
            context = view.template_context()
            assert set(kept) == set(PAGE_READS) - set(view.deferred_partials)
            for partial, html in kept.items():
                assert str(html) == render_to_string(partial, context, request), (query, partial)


def test_a_section_whose_html_is_kept_is_not_computed_again(site):
    """The page's sections are built when a rendering first reads them (compose.ModelPage): after one page, a
    change of the traffic mix builds the break-even section again but not the matrix, the builds, the context chart
    or the inverse question, whose kept HTML does not read it."""
    hub_id = MODELS[0]
    with translation.override("en"):
        request, view = _view(hub_id, {"context": "16384"})
        kept_sections(request, view)
        request, view = _view(hub_id, {"context": "16384", "ratio": "7"})
        kept_sections(request, view)
        built = view.page.built
        assert "api" in built
        assert not built & {"matrix", "builds", "context", "inverse", "faq"}, built


def test_kept_links_carry_the_whole_state_of_the_page_they_are_on(site):
    """The ranking is kept per the workload's inputs, but its placeholders link to the page in its whole state: a
    page that differs in an input the ranking does not read gets the kept ranking with its own query in the links."""
    hub_id = MODELS[0]
    with translation.override("en"):
        kept_sections(*_view(hub_id, {"context": "16384"}))
        request, view = _view(hub_id, {"context": "16384", "ratio": "7", "cached": "40"})
        html = str(kept_sections(request, view)["calculator/_gpus.html"])
        assert "gpus" not in view.page.built  # taken from the store, not ranked again
        assert STATE_SLOT not in html
        assert 'hx-get="/en/models/zai-org/GLM-5.3-Flash/?context=16K&amp;ratio=7&amp;cached=40&amp;section=' in html


def test_the_fragment_marks_its_kept_headline_for_an_out_of_band_swap_and_the_page_does_not(site):
    hub_id = MODELS[0]
    with translation.override("en"):
        for fragment in (False, True, False):
            request, view = _view(hub_id, {"context": "16384"})
            kept = kept_sections(request, view, fragment=fragment)
            summary = str(kept["calculator/_summary.html"])
            assert ('hx-swap-oob="true"' in summary) is fragment
            # the fragment carries no title, description or form; the page does, with the release select in its form
            for part in ("calculator/_title.html", "calculator/_description.html", "calculator/_form_more.html"):
                assert (part in kept) is not fragment
            assert ("calculator/_engine_release.html" in kept) is fragment
            if fragment:
                assert 'hx-swap-oob="true"' in str(kept["calculator/_engine_release.html"])


def test_a_part_the_view_did_not_keep_is_rendered_in_place_the_same(site):
    """``kept_part`` (config/jinja2.py) takes the kept HTML, or renders the template in the page's context: the
    results fragment comes out the same either way."""
    with translation.override("en"):
        request, view = _view(MODELS[0], {"context": "16384", "ratio": "7"})
        context = {**view.template_context(), "oob": True}
        kept = render_to_string(
            "calculator/_results.html", {**context, "section_html": kept_sections(request, view, fragment=True)}
        )
        rendered = render_to_string("calculator/_results.html", {**context, "section_html": {}})
        assert STATE_SLOT not in kept
        assert kept == rendered
