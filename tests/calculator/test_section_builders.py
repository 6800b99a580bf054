"""Section builders tested without the database: their inputs come from tests/calculator/page_inputs.py (the
recorded Hub files, the GPU table, the shipped offers and API prices). No test here asks for ``db``, so
pytest-django fails any query a builder would make."""

from __future__ import annotations

import json

import pytest

from calculator.estimation import Mode
from calculator.page import builders
from calculator.page.sections import SECTIONS
from calculator.page.setting import MATRIX_PRECISIONS, MODES
from calculator.page.work import PageWork
from models_catalog.models import Model
from pricing.gpus import gpu_by_slug
from tests.calculator.page_inputs import bundled_offers, page_inputs

LLAMA_8B = "meta-llama/Llama-3.1-8B-Instruct"
LLAMA_70B = "meta-llama/Llama-3.3-70B-Instruct"  # served by hosted APIs (pricing/data/api-prices.json)
GLM = "zai-org/GLM-5.3-Flash"


def test_the_factory_reads_no_table():
    with pytest.raises(RuntimeError, match="Database access not allowed"):
        Model.objects.count()
    inputs = page_inputs(LLAMA_70B, {"precision": "int4"})
    assert inputs.state.precision == "int4" and inputs.spec.num_layers == 80
    assert inputs.offers and all(offer.pricing_kind == "on-demand" for offer in inputs.offers)
    assert inputs.hosted and {h.route for h in inputs.hosted} == {"meta-llama/llama-3.3-70b-instruct"}
    assert len(bundled_offers("spot")) < len(inputs.offers)


@pytest.mark.parametrize("hub_id", [LLAMA_8B, LLAMA_70B, GLM])
def test_every_section_builds_and_writes_its_json_form_without_the_database(hub_id):
    work = PageWork(page_inputs(hub_id))
    for section in SECTIONS:
        members = section.json(section.build(work), work)
        assert members, section.name
        json.dumps(members, default=str)  # plain data: what the estimate serialises


@pytest.mark.parametrize("hub_id", [LLAMA_8B, GLM])
def test_the_breakdown_rows_share_out_the_gpu_memory(hub_id):
    work = PageWork(page_inputs(hub_id, {"context": "32768", "concurrency": "4"}))
    rows = builders.build_rows(work)
    on_gpu = [row for row in rows if row.term.on_gpu]
    assert sum(row.share for row in on_gpu) == pytest.approx(1.0)
    assert [row.offset for row in rows] == sorted(row.offset for row in rows)
    assert sum(row.term.bytes for row in on_gpu) == work.need
    assert [row.term for row in rows] == [t for t in work.breakdown.terms if t.bytes > 0]


def test_the_matrix_holds_every_mode_and_precision_and_narrower_weights_need_less():
    matrix = dict(builders.build_matrix(PageWork(page_inputs(LLAMA_8B))))
    assert list(matrix) == list(MATRIX_PRECISIONS)
    assert all([cell.mode for cell in cells] == list(MODES) for cells in matrix.values())
    inference = {p: next(c.need_bytes for c in cells if c.mode is Mode.INFERENCE) for p, cells in matrix.items()}
    assert inference["int4"] < inference["int8"] < inference["fp16"]


def test_the_context_curve_grows_with_the_context_and_marks_the_state():
    section = builders.build_context(PageWork(page_inputs(LLAMA_8B, {"context": "16384"})))
    contexts = [point.context for point in section.points]
    assert contexts == sorted(contexts) and 16384 in contexts and contexts[-1] == 131072
    totals = [point.total_bytes for point in section.points]
    assert totals == sorted(totals) and totals[0] < totals[-1]
    assert section.headroom is not None and section.headroom.gpu_name.startswith("H200")
    assert section.headroom.full_context_fits  # 8B at FP16 with its whole 128K context on one H200
    assert [chart.variant for chart in section.charts] == ["wide", "narrow"] and not section.flat
    assert all(len(chart.dots) == len(section.points) for chart in section.charts)


def test_the_ranking_holds_the_need_on_each_configuration_cheapest_first():
    work = PageWork(page_inputs(LLAMA_70B))
    gpus = builders.build_gpus(work)
    assert gpus.need_bytes == work.need and gpus.by_gpu
    assert [r.ranked.per_hour_usd for r in gpus.by_gpu] == sorted(r.ranked.per_hour_usd for r in gpus.by_gpu)
    for row in gpus.by_gpu:
        gpu = gpu_by_slug(row.ranked.offer.gpu_slug)
        assert gpu is not None and row.ranked.gpus_needed * gpu.capacity_bytes >= work.need


def test_the_break_even_compares_the_cheapest_api_with_a_replica_within_the_targets():
    work = PageWork(page_inputs(LLAMA_70B, {"tps": "20", "ratio": "3"}))
    api = builders.build_api(work)
    assert api.rows and api.mix.input_tokens_per_output_token == 3
    assert api.self_host is not None and api.capacity is not None
    assert api.capacity.tpot_s <= 0.05 and api.capacity.ttft_s <= 2.0
    assert api.break_even_tokens is not None and api.break_even_tokens > 0


def test_the_faq_answers_from_the_matrix_figures():
    work = PageWork(page_inputs(LLAMA_8B))
    faq = builders.build_faq(work)
    assert [item.key for item in faq.items] == [
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
    assert faq.answer("h100").startswith("Yes, even at FP16")  # 8B at FP16 fits one H100 80GB
    assert faq.smallest_mac is not None and faq.smallest_mac.verdict != "no"
