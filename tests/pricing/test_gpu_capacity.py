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


def test_a_form_factor_without_its_own_log_borrows_its_familys():
    pcie, sxm = gpu_by_slug("h100-pcie"), gpu_by_slug("h100-sxm")
    assert pcie.family == sxm.family and pcie.capacity_bytes == sxm.capacity_bytes
    assert pcie.capacity_report.reported_for == "h100-sxm"


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
