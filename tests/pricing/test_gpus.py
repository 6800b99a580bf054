import pytest

from pricing.gpus import (
    FORMER_FAMILIES,
    GpuDataError,
    form_factor_named,
    gpu_by_slug,
    gpu_from_row,
    load_gpus,
    parse_gpus,
    successor_slug,
)


def test_load_gpus_reads_the_data_file_with_memory_in_decimal_bytes():
    h200 = gpu_by_slug("h200-sxm")
    assert h200 is not None
    assert h200.memory_gb == 141.0
    assert h200.memory_bytes == 141 * 10**9
    assert h200.memory_bandwidth_gbps == 4800.0
    assert h200.segment == "datacenter"
    assert h200.sources


def test_gpus_the_seed_ranks_are_all_in_the_catalog():
    for slug, memory_gb in {"mi300x": 192, "h200-sxm": 141, "b300": 288, "b200": 180, "a40": 48}.items():
        gpu = gpu_by_slug(slug)
        assert gpu is not None, slug
        assert gpu.memory_gb == memory_gb


def test_unified_memory_desktops_map_to_the_product_segment_name():
    spark = gpu_by_slug("dgx-spark-gb10")
    assert spark is not None
    assert spark.segment == "unified-desktop"
    assert {gpu.segment for gpu in load_gpus()} == {
        "datacenter",
        "workstation",
        "consumer",
        "apple",
        "unified-desktop",
    }


def test_gpu_with_unknown_memory_is_left_out_rather_than_guessed():
    assert gpu_by_slug("apple-m3-max") is None
    assert all(gpu.memory_gb > 0 for gpu in load_gpus())


def test_unknown_slug_returns_none():
    assert gpu_by_slug("no-such-gpu") is None


def test_load_gpus_is_cached_and_slugs_are_unique():
    assert load_gpus() is load_gpus()
    slugs = [gpu.slug for gpu in load_gpus()]
    assert len(slugs) == len(set(slugs)) == 70


def _row(**overrides):
    row = {
        "slug": "x",
        "name": "X",
        "vendor": "V",
        "architecture": "A",
        "memory_gb": 24,
        "memory_bandwidth_gbps": None,
        "bf16_dense_tflops": None,
        "fp8_dense_tflops": None,
        "int8_tops": None,
        "segment": "consumer",
        "sources": ["s"],
        "notes": None,
    }
    row.update(overrides)
    return row


def test_unknown_segment_is_a_data_error():
    with pytest.raises(GpuDataError):
        gpu_from_row(_row(segment="mainframe"))


def test_non_numeric_spec_is_a_data_error():
    with pytest.raises(GpuDataError):
        gpu_from_row(_row(memory_bandwidth_gbps="fast"))


def test_duplicate_slugs_are_a_data_error():
    with pytest.raises(GpuDataError):
        parse_gpus([_row(), _row()])


def test_form_factors_of_one_chip_and_memory_are_gpu_types_of_their_own():
    """An H100 PCIe reads its memory at 2.0 TB/s where the SXM part reads 3.35: a ranking that let one stand for the
    other would price a different speed and replica count."""
    sxm, pcie = gpu_by_slug("h100-sxm"), gpu_by_slug("h100-pcie")
    assert (sxm.short_name, sxm.family) == ("H100 SXM 80GB", "h100-sxm-80gb")
    assert (pcie.short_name, pcie.family) == ("H100 PCIe 80GB", "h100-pcie-80gb")
    assert (sxm.memory_bandwidth_gbps, pcie.memory_bandwidth_gbps) == (3350, 2000)
    h200_sxm, h200_nvl = gpu_by_slug("h200-sxm"), gpu_by_slug("h200-nvl")
    assert (h200_sxm.short_name, h200_nvl.short_name) == ("H200 SXM 141GB", "H200 NVL 141GB")


@pytest.mark.parametrize("former", sorted(FORMER_FAMILIES))
def test_no_two_gpus_of_a_former_family_share_a_short_name_or_a_family(former):
    members = [gpu_by_slug(slug) for slug in FORMER_FAMILIES[former]]
    assert all(members)
    assert len({g.short_name for g in members}) == len({g.family for g in members}) == len(members)


def test_every_gpu_type_has_a_short_name_of_its_own():
    names = [gpu.short_name for gpu in load_gpus()]
    assert len(names) == len(set(names))


def test_a_former_family_stands_for_its_sxm_part():
    assert successor_slug("h100-80gb") == "h100-sxm"
    assert successor_slug("h200-141gb") == "h200-sxm"
    assert successor_slug("a100-40gb") == "a100-40gb-sxm"
    assert successor_slug("h100-sxm") is None and successor_slug("no-such-gpu") is None
    assert {gpu.family for gpu in load_gpus()}.isdisjoint(FORMER_FAMILIES)  # an old slug never names a new type


@pytest.mark.parametrize(
    ("slug", "instance", "named"),
    [
        ("h100-sxm", "H100 SXM (NVIDIA H100 80GB HBM3) - Secure Cloud pod", True),
        ("h100-sxm", "NVIDIA HGX H100 (80 GB, SXM)", True),
        ("h100-sxm", "H100 SXM5 80GB (marketplace, per GPU)", True),
        ("h100-sxm", 'GPU SKU: "Nvidia H100 80GB GPU running in Americas"', False),
        ("h200-sxm", "HGX H200", True),
        ("h200-sxm", "8x H200 141GB", False),  # the seed's Nebius row
        ("h200-sxm", "p5en.48xlarge", False),
        ("h200-nvl", "8x H200 NVL", True),
        ("h200-nvl", "NVIDIA A100 NVLink", False),  # NVLink is not NVL
        ("a100-80gb-sxm", "A100_SXM_80GB x1", True),
        ("a100-80gb-sxm", "NVIDIA A100 NVLink (80 GB, NVLink)", True),
        ("a100-80gb-sxm", "NVIDIA A100 (80 GB, n/a)", False),
        ("a100-80gb-pcie", "Standard_NC24ads_A100_v4 (NC A100 v4; VM $3.673/h)", True),  # Azure's series page
        ("a100-40gb-pcie", "gpu_1x_a100", True),  # Lambda's API description
        ("a100-80gb-pcie", "A100 PCIE (marketplace, on-demand)", True),
        ("mi300x", "8x MI300X", True),  # one form factor: nothing to name
    ],
)
def test_an_offer_names_its_form_factor_or_pages_say_it_does_not(slug, instance, named):
    assert form_factor_named(slug, instance) is named


def test_every_gpu_has_a_family():
    assert all(gpu.family and gpu.short_name for gpu in load_gpus())
