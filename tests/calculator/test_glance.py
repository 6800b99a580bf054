"""The answer at a glance (calculator/page/glance.py): each common card's verdict from the engine's own budget, the
reader's machine, and the one-line verdict the model page leads with."""

from __future__ import annotations

import pytest

from calculator.estimation import budget_bytes, run_count
from calculator.page.glance import COMMON_CARDS, Fit, card_fit, glance, own_machine
from calculator.state import CalculatorState
from pricing.gpus import gpu_by_slug, load_gpus

GPUS = load_gpus()


def _gpu(slug: str):
    gpu = gpu_by_slug(slug)
    assert gpu is not None
    return gpu


def test_common_cards_are_24_48_80_141_and_192_gb():
    assert [round(_gpu(slug).memory_gb) for slug in COMMON_CARDS] == [24, 48, 80, 141, 192]


def test_a_card_runs_a_need_within_the_engines_share_and_is_tight_above_it():
    h100 = _gpu("h100-sxm")
    budget = budget_bytes(h100, "vllm")  # 90 % of what CUDA reports
    assert card_fit(budget, h100, "vllm", 0, True) == (Fit.RUNS, 1)
    assert card_fit(budget + 1, h100, "vllm", 0, True) == (Fit.TIGHT, 1)
    assert card_fit(h100.capacity_bytes, h100, "vllm", 0, True) == (Fit.TIGHT, 1)
    # llama.cpp fills the whole card (its need carries its margin): nothing is tight
    assert card_fit(h100.capacity_bytes, h100, "llama.cpp", 0, True) == (Fit.RUNS, 1)


def test_a_split_takes_the_count_the_faq_and_command_line_give_and_none_beyond_a_node():
    h100 = _gpu("h100-sxm")
    need, per_gpu = 148_000_000_000, 4_200_000_000  # Llama-3.3-70B in BF16 (fit.gpus_needed's example)
    assert (
        card_fit(need, h100, "vllm", per_gpu, True)
        == (Fit.SPLIT, run_count(need, h100, "vllm", per_gpu))
        == (
            Fit.SPLIT,
            2,
        )
    )
    assert card_fit(9 * h100.capacity_bytes, h100, "vllm", 0, True) == (Fit.NO, 0)
    assert card_fit(1, h100, "vllm", 0, False) == (Fit.NO, 0)  # the engine cannot start the model there


def test_the_verdict_names_the_smallest_card_that_holds_it_else_the_cheapest_setup():
    small = glance(20_000_000_000, "vllm", 0, GPUS, GPUS, None, ("L40S 48GB", 2))
    assert small.verdict is Fit.RUNS and small.verdict_count == 1
    holding = [g for g in GPUS if g.segment in ("datacenter", "workstation", "consumer")]
    fitting = [g for g in holding if budget_bytes(g, "vllm") >= 20_000_000_000]
    smallest = min(fitting, key=lambda g: (g.memory_bytes, g.slug))
    assert small.verdict_gpu == smallest.short_name
    assert [card.fit for card in small.cards] == [Fit.RUNS] * 5

    large = glance(600_000_000_000, "vllm", 0, GPUS, GPUS, None, ("H200 SXM 141GB", 8))
    assert (large.verdict, large.verdict_gpu, large.verdict_count) == (Fit.SPLIT, "H200 SXM 141GB", 8)
    assert [card.fit for card in large.cards][:2] == [Fit.NO, Fit.NO]  # 25 RTX 4090 or 13 L40S: beyond a node
    assert glance(600_000_000_000, "vllm", 0, GPUS, GPUS, None, None).verdict is Fit.NO


def test_each_bar_fills_the_share_of_a_card_the_need_takes_and_marks_the_engines_share():
    view = glance(20_000_000_000, "vllm", 0, GPUS, GPUS, None, None)
    h100 = next(card for card in view.cards if card.gpu.slug == "h100-sxm")
    assert h100.fill == pytest.approx(20_000_000_000 / h100.gpu.capacity_bytes)
    assert h100.budget_x == pytest.approx(90.0, abs=0.1)
    assert h100.card_name == "H100 SXM" and h100.memory_gb == 80


def test_the_readers_own_machine_joins_the_cards_only_when_the_page_names_one():
    assert own_machine(CalculatorState(), GPUS) is None
    own = own_machine(CalculatorState(rig="rtx-3090", rig_gpus=2), GPUS)
    assert own is not None and own[0].slug == "rtx-3090" and own[1] == 2
    view = glance(40_000_000_000, "vllm", 0, GPUS, GPUS, own, None)
    mine = view.cards[-1]
    assert mine.own and mine.owned == 2 and mine.fit is Fit.SPLIT and mine.count == 2
    # a need that two 24 GB cards cannot hold does not run on them, whatever a larger split would do
    assert glance(70_000_000_000, "vllm", 0, GPUS, GPUS, own, None).cards[-1].fit is Fit.NO
