"""The ranking: cheapest instance that covers the GPUs needed, per GPU type and per provider.

The seed tests load the seed page's own offers (``pricing/fixtures/seed_offers_2026-11-13.json``) into the
database and check every row of its tables: "Passende GPUs", "Kosten pro Cloud", "Günstigste GPU nach
Genauigkeit", the fine-tuning cards and the several-node list.

The product counts GPUs on the memory each one's runtime reports (fit.py); the reference page counted 90 % of the
nameplate. The two differ in the seed's tables at one place: 708 GB at FP16 (and the reference page's LoRA need is
unaffected) fits 4 MI300X, which ROCm reports with 206.1 × 10⁹ bytes, where the nameplate's 192 × 10⁹ needed 5 — and
RunPod sells 4-GPU MI300X instances, so the cheapest FP16 configuration costs $9.56/h instead of $19.12/h. The
reference rule's rows are checked against the seed with ``reference_gpus_needed`` below.

The seed page also named form factors of one chip and memory alike ("H200 141GB" for RunPod's H200 NVL and for
Nebius's, CoreWeave's and AWS's H200 SXM, "H100 80GB" for SXM and PCIe); the product prices them apart (pricing/gpus.py
SHORT_NAMES), so the H200 SXM gets a row of its own beside the NVL and the seed's grouped names are our SXM and PCIe
types.
"""

from decimal import Decimal

import pytest
from django.core.management import call_command

from calculator.estimation import budget_bytes, reference_gpus_needed
from calculator.estimation.plan.ranking import rank, round_usd, several_node_gpus
from pricing.gpus import gpu_by_slug, load_gpus
from pricing.offers import OfferRecord
from pricing.selectors import current_offers

GB = 10**9
FP16, INT8, INT4 = 708 * GB, 373 * GB, 187 * GB
LORA, QLORA, FULL = 826 * GB, 304 * GB, 5661 * GB


def _money(row):
    return (str(row.price_per_gpu_hour_rounded), str(row.per_hour_rounded), str(row.per_month_rounded))


@pytest.fixture
def seed_offers(db):
    call_command("loaddata", "seed_offers_2026-11-13", verbosity=0)
    return current_offers()


def test_seed_fixture_holds_exactly_the_seeds_offers(seed_offers):
    assert len(seed_offers) == 10
    assert {o.provider_name for o in seed_offers} == {"RunPod", "Vultr", "Nebius", "CoreWeave", "Lambda", "AWS"}
    assert all(f"{o.captured_at:%Y-%m-%d}" == "2026-11-13" for o in seed_offers)


def test_seed_fp16_rows_per_gpu_type_cheapest_first(seed_offers):
    ranking = rank(FP16, seed_offers, load_gpus())
    rows = [
        (r.gpus_needed, r.gpu_name, r.provider_name, r.offer.instance_name, r.instance_gpus, *_money(r))
        for r in ranking.by_gpu
    ]
    assert rows == [
        (4, "MI300X 192GB", "RunPod", "4x MI300X", 4, "2.39", "9.56", "6979"),  # seed: 5 → 8x, $19.12, $13,958
        (6, "H200 NVL 141GB", "RunPod", "8x H200 NVL", 8, "3.79", "30.32", "22134"),
        (3, "B300 288GB", "RunPod", "4x B300", 4, "8.99", "35.96", "26251"),
        (6, "H200 SXM 141GB", "Nebius", "8x H200 141GB", 8, "5.40", "43.20", "31536"),  # seed: under the NVL's row
        (5, "B200 180GB", "Lambda", "8x HGX B200", 8, "7.69", "61.52", "44910"),
    ]
    assert [r.pays_for_unused_gpus for r in ranking.by_gpu] == [False, True, True, True, True]


def test_the_reference_rule_needs_five_mi300x_for_the_seeds_fp16_need_and_so_the_eight_gpu_instance():
    mi300x = gpu_by_slug("mi300x")
    assert reference_gpus_needed(FP16, mi300x.memory_bytes) == 5  # seed: "8x MI300X … you need 5", $19.12/h
    assert FP16 <= 4 * budget_bytes(mi300x) < FP16 + 35 * GB  # 4 × 185.5 GB: the runtime holds it on 4


def test_seed_cost_per_cloud_rows(seed_offers):
    ranking = rank(FP16, seed_offers, load_gpus())
    rows = [
        (r.provider_name, r.offer.instance_name, r.offer.region, r.gpus_needed, r.gpu_name, *_money(r))
        for r in ranking.by_provider
    ]
    assert rows == [
        ("RunPod", "4x MI300X", "", 4, "MI300X 192GB", "2.39", "9.56", "6979"),  # seed: 8x MI300X, $19.12
        ("Vultr", "vbm-256c-2048gb-8-mi300x-gpu (bare metal)", "us", 4, "MI300X 192GB", "3.99", "31.92", "23302"),
        ("Nebius", "8x H200 141GB", "eu/us", 6, "H200 SXM 141GB", "5.40", "43.20", "31536"),
        ("CoreWeave", "HGX H200", "us", 6, "H200 SXM 141GB", "6.31", "50.44", "36821"),
        ("Lambda", "8x HGX B200", "us", 5, "B200 180GB", "7.69", "61.52", "44910"),
        ("AWS", "p5en.48xlarge", "us-east-1", 6, "H200 SXM 141GB", "7.91", "63.30", "46206"),
    ]


def test_instance_totals_are_exact_where_the_source_quotes_them(seed_offers):
    by_provider = {r.provider_name: r for r in rank(FP16, seed_offers, load_gpus()).by_provider}
    assert by_provider["AWS"].per_hour_usd == Decimal("63.296")
    assert by_provider["AWS"].per_month_usd == Decimal("46206.080")
    assert by_provider["CoreWeave"].price_per_gpu_hour_usd == Decimal("6.305")
    assert by_provider["CoreWeave"].per_hour_usd == Decimal("50.44")


@pytest.mark.parametrize(
    ("need", "expected"),
    [
        pytest.param(FP16, (4, "MI300X 192GB", "RunPod", "4x MI300X", "2.39", "9.56", "6979"), id="fp16"),
        pytest.param(INT8, (3, "MI300X 192GB", "RunPod", "4x MI300X", "2.39", "9.56", "6979"), id="int8"),
        pytest.param(INT4, (5, "A40 48GB", "RunPod", "8x A40", "0.59", "4.72", "3446"), id="int4"),
        pytest.param(LORA, (5, "MI300X 192GB", "RunPod", "8x MI300X", "2.39", "19.12", "13958"), id="lora"),
        pytest.param(QLORA, (8, "A40 48GB", "RunPod", "8x A40", "0.59", "4.72", "3446"), id="qlora"),
    ],
)
def test_seed_cheapest_gpu_per_precision_and_mode(seed_offers, need, expected):
    cheapest = rank(need, seed_offers, load_gpus()).cheapest
    assert cheapest is not None
    assert (
        cheapest.gpus_needed,
        cheapest.gpu_name,
        cheapest.provider_name,
        cheapest.offer.instance_name,
        *_money(cheapest),
    ) == expected


def test_seed_int8_instance_is_only_sold_with_four(seed_offers):
    cheapest = rank(INT8, seed_offers, load_gpus()).cheapest
    assert cheapest.instance_gpus == 4 and cheapest.gpus_needed == 3


def test_seed_full_fine_tuning_needs_more_than_one_node_of_eight(seed_offers):
    ranking = rank(FULL, seed_offers, load_gpus())
    assert ranking.by_gpu == () and ranking.by_provider == () and ranking.cheapest is None
    assert {c.gpu_name for c in ranking.several_nodes} == {
        "MI300X 192GB",
        "H200 NVL 141GB",
        "H200 SXM 141GB",
        "B300 288GB",
        "B200 180GB",
        "A40 48GB",
    }


def test_seed_offer_book_gpus_needing_several_nodes(seed_offers):
    ranking = rank(FP16, seed_offers, load_gpus())
    assert [(c.gpu_name, c.gpus_needed, c.nodes) for c in ranking.several_nodes] == [("A40 48GB", 17, 3)]


# The seed's names "H100 80GB", "A100 80GB", "A100 40GB" and "V100 16GB" each covered two of our types.
SEED_SEVERAL_NODES = {
    "GH200 96GB": 9,
    "H100 NVL 94GB": 9,
    "RTX PRO 6000 96GB": 9,
    "H100 SXM 80GB": 10,
    "H100 PCIe 80GB": 10,
    "A100 SXM 80GB": 10,
    "A100 PCIe 80GB": 10,
    "L40S 48GB": 17,
    "RTX 6000 Ada 48GB": 17,
    "RTX A6000 48GB": 17,
    "A40 48GB": 17,
    "A100 SXM 40GB": 20,
    "A100 PCIe 40GB": 20,
    "RTX 5090 32GB": 25,
    "RTX 4090 24GB": 33,
    "RTX 3090 24GB": 33,
    "L4 24GB": 33,
    "A10 24GB": 33,
    "T4 16GB": 50,
    "V100 SXM2 16GB": 50,
    "V100 PCIe 16GB": 50,
}


def test_seed_several_node_list_for_the_gpu_types_it_names_under_the_reference_rule():
    named = {gpu.short_name: gpu for gpu in load_gpus() if gpu.short_name in SEED_SEVERAL_NODES}
    found = {name: reference_gpus_needed(FP16, gpu.memory_bytes) for name, gpu in named.items()}
    assert found == SEED_SEVERAL_NODES  # incl. the FAQ's "10 × 80 GB, 17 × 48 GB or 33 × 24 GB"


def test_several_node_list_on_what_each_runtime_reports():
    """GH200 96GB (CUDA ≈ 102 × 10⁹) and H100 NVL (99.9 × 10⁹) hold 708 GB on one node of 8; ECC on GDDR leaves an
    L4 or A10 less than 24 × 10⁹, so they need one more GPU than the nameplate suggested."""
    named = [gpu for gpu in load_gpus() if gpu.short_name in SEED_SEVERAL_NODES]
    found = {c.gpu_name: c.gpus_needed for c in several_node_gpus(FP16, named)}
    assert found == {
        "RTX PRO 6000 96GB": 9,
        "A100 SXM 80GB": 10,
        "A100 PCIe 80GB": 10,
        "H100 SXM 80GB": 10,
        "H100 PCIe 80GB": 10,
        "RTX 6000 Ada 48GB": 16,
        "RTX A6000 48GB": 16,
        "A40 48GB": 17,
        "L40S 48GB": 17,
        "A100 SXM 40GB": 19,
        "A100 PCIe 40GB": 19,
        "RTX 5090 32GB": 24,
        "RTX 4090 24GB": 31,
        "RTX 3090 24GB": 32,
        "A10 24GB": 34,
        "L4 24GB": 34,
        "V100 SXM2 16GB": 47,
        "V100 PCIe 16GB": 47,
        "T4 16GB": 51,
    }


def test_stale_flag_and_capture_date_travel_with_the_row(seed_offers):
    row = rank(FP16, seed_offers, load_gpus()).cheapest
    assert f"{row.offer.captured_at:%Y-%m-%d}" == "2026-11-13"
    assert row.offer.confidence == "medium"


# --- pure behaviour ------------------------------------------------------------------------------------------


def offer(provider, gpu, counts, price, **extra):
    return OfferRecord(
        provider_slug=provider.lower(),
        provider_name=provider,
        gpu_slug=gpu,
        instance_name=f"{provider} {gpu}",
        gpu_counts=counts,
        price_per_gpu_hour_usd=price,
        **extra,
    )


# a need that takes 5 MI300X on what ROCm reports
MI300X = gpu_by_slug("mi300x")
assert MI300X is not None
FIVE_MI300X = 4 * budget_bytes(MI300X) + 1


def test_you_pay_for_the_whole_instance_so_a_dearer_gpu_in_the_right_size_can_win():
    offers = [offer("Big", "mi300x", (8,), 2.0), offer("Fit", "mi300x", (1, 2, 4, 5), 3.0)]
    row = rank(FIVE_MI300X, offers, load_gpus()).cheapest
    assert row.provider_name == "Fit" and row.instance_gpus == 5 and row.per_hour_usd == Decimal("15.0")


def test_an_instance_too_small_for_the_need_is_not_a_match():
    ranking = rank(FIVE_MI300X, [offer("Small", "mi300x", (1, 2, 4), 1.0)], load_gpus())
    assert ranking.by_gpu == ()
    assert [c.gpu_name for c in ranking.no_large_instance] == ["MI300X 192GB"]


def test_unpublished_instance_sizes_rent_exactly_the_gpus_needed():
    row = rank(FIVE_MI300X, [offer("Any", "mi300x", (), 2.0)], load_gpus()).cheapest
    assert row.instance_gpus == 5 and not row.offer.sizes_known


def test_only_on_demand_prices_compete_by_default():
    offers = [offer("A", "mi300x", (8,), 2.39), offer("B", "mi300x", (8,), 0.5, pricing_kind="spot")]
    assert rank(FP16, offers, load_gpus()).cheapest.provider_name == "A"
    assert rank(FP16, offers, load_gpus(), pricing_kinds=("spot",)).cheapest.provider_name == "B"


def test_offers_for_gpus_outside_the_catalog_are_ignored():
    assert rank(FP16, [offer("X", "h900", (8,), 0.01)], load_gpus()).by_gpu == ()


def test_equal_prices_prefer_fresh_over_stale():
    offers = [offer("A", "mi300x", (8,), 2.0, stale=True), offer("B", "mi300x", (8,), 2.0)]
    assert rank(FP16, offers, load_gpus()).cheapest.provider_name == "B"


def test_form_factors_of_one_chip_are_priced_apart():
    """A cheaper H200 NVL (a PCIe card) no longer stands for the SXM part on its NVLink board: each keeps its row."""
    offers = [offer("A", "h200-sxm", (8,), 5.0), offer("B", "h200-nvl", (8,), 4.0)]
    rows = rank(FP16, offers, load_gpus()).by_gpu
    assert [(r.gpu_name, r.gpu_family, r.provider_name) for r in rows] == [
        ("H200 NVL 141GB", "h200-nvl-141gb", "B"),
        ("H200 SXM 141GB", "h200-sxm-141gb", "A"),
    ]


def test_an_h100_pcie_offer_does_not_stand_for_the_sxm_part():
    offers = [offer("Sxm", "h100-sxm", (8,), 3.0), offer("Pcie", "h100-pcie", (8,), 2.0)]
    rows = {r.gpu_name: r.provider_name for r in rank(300 * GB, offers, load_gpus()).by_gpu}
    assert rows == {"H100 PCIe 80GB": "Pcie", "H100 SXM 80GB": "Sxm"}


def test_prices_round_half_up_as_printed():
    assert round_usd(Decimal("6.305")) == Decimal("6.31")
    assert round_usd(Decimal("46206.5"), Decimal("1")) == Decimal("46207")
