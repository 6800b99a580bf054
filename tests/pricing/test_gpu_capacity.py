"""Each GPU's total memory as its runtime reports it (pricing/data/gpu-capacity.json), and the estimates where none
was recorded."""

from __future__ import annotations

import json
import statistics

import pytest

from pricing.gpus import (
    BYTES_PER_GIB,
    BYTES_PER_MIB,
    CAPACITY_FILE,
    FORMER_FAMILIES,
    NAMEPLATE_SHARE_HBM,
    NAMEPLATE_SHARE_OTHER,
    NVIDIA_SMI_CUDA_GAP_MIB,
    GpuDataError,
    gpu_by_slug,
    load_gpus,
    parse_capacities,
)

ROWS = json.loads(CAPACITY_FILE.read_text(encoding="utf-8"))["gpus"]


def test_every_recorded_total_names_the_public_log_it_was_read_from_and_a_catalog_gpu():
    slugs = {g.slug for g in load_gpus()}
    for row in ROWS:
        assert row["slug"] in slugs
        assert row["source"].startswith("https://github.com/")
        assert row["quote"]
        quote = row["quote"].replace(",", "")
        if row.get("runtime_total_bytes"):
            assert str(row["runtime_total_bytes"]) in quote
        else:  # nvidia-smi's MiB, or NVML's byte count of the same total
            mib = row["nvidia_smi_total_mib"]
            assert str(mib) in quote or str(mib * BYTES_PER_MIB) in quote


def test_the_runtime_sees_a_little_less_than_the_nameplate_in_gib_never_more():
    for gpu in load_gpus():
        if gpu.capacity_report is not None:
            share = gpu.capacity_bytes / (gpu.memory_gb * BYTES_PER_GIB)
            assert 0.90 < share <= 1.0, gpu.slug


def test_the_nvidia_smi_gap_is_the_median_of_the_gpus_with_both_totals():
    gaps = [
        r["nvidia_smi_total_mib"] * BYTES_PER_MIB - r["runtime_total_bytes"]
        for r in ROWS
        if r.get("runtime_total_bytes") and r.get("nvidia_smi_total_mib")
    ]
    assert len(gaps) >= 10
    assert statistics.median(gaps) / BYTES_PER_MIB == pytest.approx(NVIDIA_SMI_CUDA_GAP_MIB, abs=1)


def test_nameplate_estimates_take_the_lowest_share_any_recorded_gpu_of_that_memory_kind_reports():
    shares: dict[bool, list[float]] = {True: [], False: []}
    for gpu in load_gpus():
        report = gpu.capacity_report
        if report is not None and report.runtime_total_bytes and report.reported_for == gpu.slug:
            hbm = (gpu.memory_type or "").upper().startswith("HBM")
            shares[hbm].append(report.runtime_total_bytes / (gpu.memory_gb * BYTES_PER_GIB))
    assert min(shares[True]) == pytest.approx(NAMEPLATE_SHARE_HBM, abs=1e-4)
    assert min(shares[False]) == pytest.approx(NAMEPLATE_SHARE_OTHER, abs=1e-4)


def test_the_reference_figures_design_md_names():
    assert gpu_by_slug("h100-sxm").capacity_bytes == 85_045_477_376  # "about 85.0 × 10⁹"
    assert gpu_by_slug("mi300x").capacity_bytes == 206_141_652_992  # "about 206 × 10⁹"
    assert gpu_by_slug("h100-sxm").capacity_basis == "reported"
    h200 = gpu_by_slug("h200-sxm")
    assert h200.capacity_basis == "nvidia-smi"
    assert h200.capacity_bytes == (143_771 - NVIDIA_SMI_CUDA_GAP_MIB) * BYTES_PER_MIB


@pytest.mark.parametrize(
    ("borrower", "recorded"),
    [
        ("h100-pcie", "h100-sxm"),
        ("h200-nvl", "h200-sxm"),
        ("a100-40gb-pcie", "a100-40gb-sxm"),
        ("a100-80gb-pcie", "a100-80gb-sxm"),
    ],
)
def test_a_form_factor_without_its_own_log_borrows_the_one_of_its_chip_and_memory(borrower, recorded):
    """Priced apart (their own families), but the same chip and memory report the same total."""
    pcie, sxm = gpu_by_slug(borrower), gpu_by_slug(recorded)
    assert pcie.family != sxm.family
    assert pcie.capacity_bytes == sxm.capacity_bytes and pcie.capacity_basis == sxm.capacity_basis
    assert pcie.capacity_report.reported_for == recorded


def test_every_form_factor_of_a_former_family_has_a_recorded_total():
    members = [gpu_by_slug(slug) for slugs in FORMER_FAMILIES.values() for slug in slugs]
    assert [g.slug for g in members if g.capacity_report is None] == []


def test_the_v100_pcie_keeps_its_own_log():
    assert gpu_by_slug("v100-pcie-16gb").capacity_report.reported_for == "v100-pcie-16gb"


def test_a_gpu_borrows_no_total_across_chips_or_sizes():
    assert gpu_by_slug("h100-nvl").capacity_report.reported_for == "h100-nvl"  # 94 GB, its own log
    assert gpu_by_slug("gh200-144gb").capacity_report is None  # an H200-class memory, another chip


def test_a_gpu_with_nothing_recorded_is_an_estimate_on_the_low_side():
    b300 = gpu_by_slug("b300")
    assert b300.capacity_basis == "nameplate"
    assert b300.capacity_bytes == int(288 * BYTES_PER_GIB * NAMEPLATE_SHARE_HBM)


@pytest.mark.parametrize(
    "row",
    [
        {"slug": "x", "source": "https://github.com/a/b"},
        {"slug": "x", "runtime_total_bytes": 0, "source": "https://github.com/a/b"},
        {"slug": "x", "runtime_total_bytes": 10, "source": ""},
        {"slug": "x", "nvidia_smi_total_mib": True, "source": "https://github.com/a/b"},
    ],
)
def test_a_capacity_row_without_a_total_or_a_source_is_refused(row):
    with pytest.raises(GpuDataError):
        parse_capacities([row])
