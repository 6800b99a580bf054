import pytest

from pricing.gpus import GpuDataError, gpu_by_slug, gpu_from_row, load_gpus, parse_gpus


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


def test_form_factors_of_one_chip_and_memory_share_a_family():
    sxm, nvl = gpu_by_slug("h200-sxm"), gpu_by_slug("h200-nvl")
    assert sxm is not None and nvl is not None
    assert sxm.family == nvl.family == "h200-141gb"
    assert sxm.short_name == "H200 141GB"
    h100_nvl, h100_sxm = gpu_by_slug("h100-nvl"), gpu_by_slug("h100-sxm")
    assert h100_nvl is not None and h100_sxm is not None
    assert h100_nvl.family != h100_sxm.family


def test_every_gpu_has_a_family():
    assert all(gpu.family and gpu.short_name for gpu in load_gpus())
