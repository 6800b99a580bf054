"""GPU specifications: a pure loader over ``pricing/data/gpus.json``.

No Django import: the estimation core, the ``estimate`` / ``rank`` commands and the ``Gpu`` table all read the
same file through ``load_gpus()``. Sources and notes travel with every row (see ``pricing/data/README.md``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any, Literal

GPUS_FILE = Path(__file__).resolve().parent / "data" / "gpus.json"
CAPACITY_FILE = Path(__file__).resolve().parent / "data" / "gpu-capacity.json"
PREFILL_RUNS_FILE = Path(__file__).resolve().parent / "data" / "gpu-prefill-runs.json"

Segment = Literal["datacenter", "workstation", "consumer", "apple", "unified-desktop"]
SEGMENTS: tuple[Segment, ...] = ("datacenter", "workstation", "consumer", "apple", "unified-desktop")

# The data file names the segment of DGX Spark / Strix Halo boxes "unified-memory-desktop".
_SEGMENT_ALIASES: Mapping[str, Segment] = {
    "datacenter": "datacenter",
    "workstation": "workstation",
    "consumer": "consumer",
    "apple": "apple",
    "unified-memory-desktop": "unified-desktop",
    "unified-desktop": "unified-desktop",
}

BYTES_PER_GB = 10**9
BYTES_PER_GIB = 2**30
BYTES_PER_MIB = 2**20
# CUDA reports a few hundred MiB less than the driver's (nvidia-smi's) total: 304–762 MiB over the ten GPUs for which
# gpu-capacity.json records both; the median, 489 MiB, turns a recorded nvidia-smi total into an estimated CUDA total.
NVIDIA_SMI_CUDA_GAP_MIB = 489
# Where nothing was recorded for a GPU or its family: the nameplate read as GiB (memory comes in binary sizes) times
# the lowest share of it any recorded GPU of the same memory kind reports (A100 40GB for HBM, L4 for GDDR and the
# rest, whose ECC takes a sixteenth): an estimate on the low side, and pages say it is one.
NAMEPLATE_SHARE_HBM = 0.9848
NAMEPLATE_SHARE_OTHER = 0.9146


def nameplate_capacity_bytes(memory_gb: float, memory_type: str | None) -> int:
    """An estimate of the runtime total of a GPU marketed with ``memory_gb`` of ``memory_type``."""
    share = NAMEPLATE_SHARE_HBM if (memory_type or "").upper().startswith("HBM") else NAMEPLATE_SHARE_OTHER
    return int(memory_gb * BYTES_PER_GIB * share)


@dataclass(frozen=True, slots=True)
class CapacityReport:
    """One GPU's total memory as recorded in gpu-capacity.json: what the runtime reports (CUDA / ROCm), or the
    driver's nvidia-smi total, with the public log it was read from."""

    runtime_total_bytes: int | None
    nvidia_smi_total_mib: int | None
    source: str
    reported_for: str  # the GPU the log was taken on (another form factor of the same chip and memory may borrow it)

    @property
    def total_bytes(self) -> int:
        if self.runtime_total_bytes:
            return self.runtime_total_bytes
        assert self.nvidia_smi_total_mib
        return (self.nvidia_smi_total_mib - NVIDIA_SMI_CUDA_GAP_MIB) * BYTES_PER_MIB


# Short names as pages and rankings show them; each names one GPU type for fitting and ranking (its family). The
# form factors of one chip with the same memory are types of their own: an H100 PCIe reads its memory at 2.0 TB/s
# where the SXM part reads 3.35 and talks to its neighbours over PCIe instead of NVLink, so its speed, and with it the
# replicas a plan rents, differ (see FORMER_FAMILIES for the names they shared until 2026-12).
SHORT_NAMES: Mapping[str, str] = {
    "h100-sxm": "H100 SXM 80GB",
    "h100-pcie": "H100 PCIe 80GB",
    "h100-nvl": "H100 NVL 94GB",
    "h200-sxm": "H200 SXM 141GB",
    "h200-nvl": "H200 NVL 141GB",
    "gh200-96gb": "GH200 96GB",
    "gh200-144gb": "GH200 141GB",
    "b200": "B200 180GB",
    "b300": "B300 288GB",
    "gb200": "GB200 186GB",
    "a100-40gb-sxm": "A100 SXM 40GB",
    "a100-40gb-pcie": "A100 PCIe 40GB",
    "a100-80gb-sxm": "A100 SXM 80GB",
    "a100-80gb-pcie": "A100 PCIe 80GB",
    "l40s": "L40S 48GB",
    "l40": "L40 48GB",
    "l4": "L4 24GB",
    "a10": "A10 24GB",
    "a10g": "A10G 24GB",
    "t4": "T4 16GB",
    "v100-sxm2-16gb": "V100 SXM2 16GB",
    "v100-pcie-16gb": "V100 PCIe 16GB",
    "v100-sxm2-32gb": "V100 SXM2 32GB",
    "a40": "A40 48GB",
    "rtx-6000-ada": "RTX 6000 Ada 48GB",
    "rtx-pro-6000-blackwell": "RTX PRO 6000 96GB",
    "rtx-a6000": "RTX A6000 48GB",
    "mi300x": "MI300X 192GB",
    "mi325x": "MI325X 256GB",
    "mi355x": "MI355X 288GB",
    "rtx-3090": "RTX 3090 24GB",
    "rtx-3090-ti": "RTX 3090 Ti 24GB",
    "rtx-4090": "RTX 4090 24GB",
    "rtx-4080": "RTX 4080 16GB",
    "rtx-5090": "RTX 5090 32GB",
    "rtx-5080": "RTX 5080 16GB",
    "rtx-4060-ti-16gb": "RTX 4060 Ti 16GB",
    "radeon-rx-7900-xtx": "RX 7900 XTX 24GB",
}


# Until 2026-12 the form factors of one chip and memory shared a family under a name without the form factor
# ("H100 80GB", family "h100-80gb"; the V100 32GB, alone in its family, was renamed too). Each old family lists its
# members, first the part the old name now stands for: the one clouds rent most (8-GPU HGX servers carry SXM), where
# an old family in a URL or a ``--gpu`` argument goes. The members have the same memory as the runtime reports it,
# so one recorded total serves them all (``parse_gpus``).
FORMER_FAMILIES: Mapping[str, tuple[str, ...]] = {
    "h100-80gb": ("h100-sxm", "h100-pcie"),
    "h200-141gb": ("h200-sxm", "h200-nvl"),
    "a100-40gb": ("a100-40gb-sxm", "a100-40gb-pcie"),
    "a100-80gb": ("a100-80gb-sxm", "a100-80gb-pcie"),
    "v100-16gb": ("v100-sxm2-16gb", "v100-pcie-16gb"),
    "v100-32gb": ("v100-sxm2-32gb",),
}
_FORMER_FAMILY_OF: Mapping[str, str] = {slug: former for former, slugs in FORMER_FAMILIES.items() for slug in slugs}


def family_slug(short_name: str) -> str:
    """``"H200 SXM 141GB"`` → ``"h200-sxm-141gb"``: the key of one GPU type (and of any spelling of a name)."""
    return "-".join("".join(ch if ch.isalnum() else " " for ch in short_name.lower()).split())


def successor_slug(former_family: str) -> str | None:
    """The GPU an old family slug now stands for (``"h100-80gb"`` → ``"h100-sxm"``); None for any other text."""
    members = FORMER_FAMILIES.get(former_family)
    return members[0] if members else None


def same_memory_key(slug: str, family: str) -> str:
    """What GPUs with one runtime total share: the chip and its memory, whatever the form factor."""
    return _FORMER_FAMILY_OF.get(slug, family)


# The words that name a form factor in an offer's instance name, for the GPUs sold in more than one: "SXM4", "SXM5"
# and "SXM2" are SXM; HGX boards carry SXM parts, and so do the A100s and V100s providers list as "NVLink" (CoreWeave's
# "A100 NVLink") where the PCIe card says PCIe; RunPod's "H100 80GB HBM3" is the SXM part (the PCIe card carries
# HBM2e). An offer of such a GPU whose name has none of its words does not say which part it rents (Nebius's
# "8x H200 141GB", Google Cloud's GPU SKUs): its provider's slug mapping chose one, and pages say it is not stated.
_SXM_WORDS = ("sxm", "hgx", "nvlink")
FORM_FACTOR_WORDS: Mapping[str, tuple[str, ...]] = {
    "h100-sxm": ("sxm", "hgx", "hbm3"),
    "h100-pcie": ("pcie",),
    "h200-sxm": ("sxm", "hgx"),
    "h200-nvl": ("nvl",),
    "a100-40gb-sxm": _SXM_WORDS,
    "a100-40gb-pcie": ("pcie",),
    "a100-80gb-sxm": _SXM_WORDS,
    "a100-80gb-pcie": ("pcie",),
    "v100-sxm2-16gb": _SXM_WORDS,
    "v100-pcie-16gb": ("pcie",),
}


# Instance types whose GPU is the PCIe card of a chip whose name alone reads as its SXM part (gpuhunt's GPU_NAMES in
# pricing/providers/gpuhunt_source.py swaps by this table; form_factor_named reads a match as the part named), by
# provider documentation:
# Azure NC A100 v4 carries A100 80GB PCIe and NCv3 V100 PCIe (learn.microsoft.com, NC A100 v4 and NCv3 series
# pages); Lambda and others put "pcie" in the instance name. Lambda's gpu_1x_a100 does not, though its API
# describes it as "1x A100 (40 GB PCIe)" (the SXM4 card is gpu_1x_a100_sxm4; our snapshot's lambda.json lists both at
# 40 GB): gpuhunt keeps only "A100" and 40 GB of that description, so the name has to tell.
FORM_FACTOR_BY_INSTANCE: tuple[tuple[re.Pattern[str], dict[str, str]], ...] = (
    (re.compile(r"NC\d+ads_A100_v4"), {"a100-80gb-sxm": "a100-80gb-pcie"}),
    (re.compile(r"NC\d+r?s_v3"), {"v100-sxm2-16gb": "v100-pcie-16gb"}),
    (re.compile(r"^gpu_1x_a100$"), {"a100-40gb-sxm": "a100-40gb-pcie"}),
    (
        re.compile(r"pcie", re.IGNORECASE),
        {
            "a100-40gb-sxm": "a100-40gb-pcie",
            "a100-80gb-sxm": "a100-80gb-pcie",
            "h100-sxm": "h100-pcie",
            "v100-sxm2-16gb": "v100-pcie-16gb",
        },
    ),
)


def _words(text: str) -> list[str]:
    """``"A100_SXM4_80GB x1"`` → ``["a100", "sxm", "80gb", "x1"]``: lower-case words, the generation after "SXM"
    dropped."""
    words = "".join(ch if ch.isalnum() else " " for ch in text.lower()).split()
    return ["sxm" if w.startswith("sxm") and w[3:].isdigit() else w for w in words]


def form_factor_named(gpu_slug: str, text: str) -> bool:
    """Whether ``text`` (an offer's instance name) names the form factor of ``gpu_slug``; True for a GPU sold in one
    form factor only, where there is nothing to name."""
    wanted = FORM_FACTOR_WORDS.get(gpu_slug)
    if wanted is None:
        return True
    documented = any(gpu_slug in swaps.values() and pattern.search(text) for pattern, swaps in FORM_FACTOR_BY_INSTANCE)
    return documented or any(word in wanted for word in _words(text))


@dataclass(frozen=True, slots=True)
class GpuSpec:
    """One accelerator as marketed: memory in decimal GB, bandwidth in GB/s, dense (non-sparse) throughput."""

    slug: str
    name: str
    vendor: str
    architecture: str
    memory_gb: float
    memory_bytes: int
    memory_bandwidth_gbps: float | None
    bf16_dense_tflops: float | None
    fp8_dense_tflops: float | None
    int8_tops: float | None
    segment: Segment
    sources: tuple[str, ...]
    notes: str | None = None
    memory_type: str | None = None
    memory_gib_usable: float | None = None
    memory_options_gb: tuple[float, ...] = ()
    fp16_tensor_dense_tflops: float | None = None  # cards without BF16 (T4, V100)
    fp4_dense_tflops: float | None = None
    tdp_w: float | None = None
    form_factor: str | None = None
    interconnect: str | None = None
    released: int | None = None
    short_name: str = ""  # "H200 SXM 141GB"; see SHORT_NAMES
    family: str = ""  # "h200-sxm-141gb": GPUs with one family are interchangeable for fitting and ranking
    # What the runtime reports as total memory (gpu-capacity.json: CUDA's total, ROCm's VRAM total, or nvidia-smi's),
    # recorded for this GPU or for another form factor of its chip and memory (FORMER_FAMILIES); None: nothing
    # recorded, the nameplate gives an estimate
    capacity_report: CapacityReport | None = None
    # a measured llama.cpp prompt-processing run (gpu-prefill-runs.json) for a GPU without vendor FLOPs on record
    prefill_run: PrefillRun | None = None

    @property
    def capacity_bytes(self) -> int:
        """Total memory as the runtime reports it (fit.py fills a share of it): the recorded figure, else an
        estimate from the nameplate."""
        if self.capacity_report is not None:
            return self.capacity_report.total_bytes
        return nameplate_capacity_bytes(self.memory_gb, self.memory_type)

    @property
    def capacity_basis(self) -> Literal["reported", "nvidia-smi", "nameplate"]:
        """How ``capacity_bytes`` is known: the runtime's own total, the driver's total less the usual gap, or an
        estimate from the marketed size."""
        if self.capacity_report is None:
            return "nameplate"
        return "reported" if self.capacity_report.runtime_total_bytes else "nvidia-smi"

    @property
    def is_rentable_class(self) -> bool:
        """Datacenter and workstation parts are what clouds rent; Macs and desktops are bought."""
        return self.segment in ("datacenter", "workstation")


@dataclass(frozen=True, slots=True)
class PrefillRun:
    """One published llama-bench prompt-processing figure: ``tokens_per_s`` over ``prompt_tokens`` of a model of
    ``model_params`` parameters, the whole model on this GPU."""

    tokens_per_s: float
    prompt_tokens: int
    model_params: int
    model: str
    backend: str
    build: str
    source: str

    @property
    def achieved_flops(self) -> float:
        """FLOPs per second the run reached: 2 per parameter per prompt token (attention over 512 tokens adds
        about 1 % for a 7B model and is left out)."""
        return 2 * self.model_params * self.tokens_per_s


class GpuDataError(ValueError):
    """The GPU data file does not have the shape the loader expects."""


def _optional_float(row: Mapping[str, Any], key: str) -> float | None:
    value = row.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise GpuDataError(f"{row.get('slug')}: {key} must be a number or null, got {value!r}")
    return float(value)


def gpu_from_row(row: Mapping[str, Any]) -> GpuSpec | None:
    """One data-file row as a ``GpuSpec``; ``None`` when its memory size is unknown (it cannot be fitted)."""
    memory_gb = _optional_float(row, "memory_gb")
    if memory_gb is None:
        return None
    segment = _SEGMENT_ALIASES.get(str(row.get("segment")))
    if segment is None:
        raise GpuDataError(f"{row.get('slug')}: unknown segment {row.get('segment')!r}")
    released = row.get("released")
    short_name = SHORT_NAMES.get(str(row["slug"]), str(row["name"]))
    return GpuSpec(
        slug=str(row["slug"]),
        name=str(row["name"]),
        vendor=str(row["vendor"]),
        architecture=str(row["architecture"]),
        memory_gb=memory_gb,
        memory_bytes=round(memory_gb * BYTES_PER_GB),
        memory_bandwidth_gbps=_optional_float(row, "memory_bandwidth_gbps"),
        bf16_dense_tflops=_optional_float(row, "bf16_dense_tflops"),
        fp8_dense_tflops=_optional_float(row, "fp8_dense_tflops"),
        int8_tops=_optional_float(row, "int8_tops"),
        segment=segment,
        sources=tuple(str(s) for s in row.get("sources") or ()),
        notes=row.get("notes") or None,
        memory_type=row.get("memory_type"),
        memory_gib_usable=_optional_float(row, "memory_gib_usable"),
        memory_options_gb=tuple(float(x) for x in row.get("memory_options_gb") or ()),
        fp16_tensor_dense_tflops=_optional_float(row, "fp16_tensor_dense_tflops"),
        fp4_dense_tflops=_optional_float(row, "fp4_dense_tflops"),
        tdp_w=_optional_float(row, "tdp_w"),
        form_factor=row.get("form_factor"),
        interconnect=row.get("interconnect"),
        released=int(released) if released is not None else None,
        short_name=short_name,
        family=family_slug(short_name),
    )


def parse_gpus(
    rows: list[Mapping[str, Any]], capacities: Mapping[str, CapacityReport] | None = None
) -> tuple[GpuSpec, ...]:
    """All rows with a known memory size, in file order; slugs must be unique. ``capacities``: slug → the recorded
    total; a GPU without one borrows the one recorded for the same chip and memory in another form factor (an H100
    PCIe the H100 SXM's, an H200 NVL the H200 SXM's, an A100 PCIe the A100 SXM's of its size)."""
    gpus = tuple(gpu for gpu in (gpu_from_row(row) for row in rows) if gpu is not None)
    slugs = [gpu.slug for gpu in gpus]
    if len(slugs) != len(set(slugs)):
        raise GpuDataError("duplicate GPU slug in the data file")
    if capacities:
        unknown = set(capacities) - set(slugs)
        if unknown:
            raise GpuDataError(f"capacity reported for unknown GPUs: {sorted(unknown)}")
        by_memory: dict[str, CapacityReport] = {}
        for g in gpus:
            if g.slug in capacities:
                by_memory.setdefault(same_memory_key(g.slug, g.family), capacities[g.slug])
        gpus = tuple(
            replace(g, capacity_report=capacities.get(g.slug) or by_memory.get(same_memory_key(g.slug, g.family)))
            for g in gpus
        )
    return gpus


def _positive_int(row: Mapping[str, Any], key: str) -> int | None:
    value = row.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise GpuDataError(f"{row.get('slug')}: {key} must be a positive whole number, got {value!r}")
    return int(value)


def parse_capacities(rows: list[Mapping[str, Any]]) -> dict[str, CapacityReport]:
    """``gpu-capacity.json``'s rows by slug; each needs a runtime total or an nvidia-smi total, and a source."""
    found: dict[str, CapacityReport] = {}
    for row in rows:
        slug, source = row.get("slug"), row.get("source")
        if not isinstance(slug, str) or not slug:
            raise GpuDataError(f"capacity row without a slug: {row!r}")
        runtime, smi = _positive_int(row, "runtime_total_bytes"), _positive_int(row, "nvidia_smi_total_mib")
        if runtime is None and smi is None:
            raise GpuDataError(f"{slug}: capacity row without a total")
        if not isinstance(source, str) or not source.startswith("https://"):
            raise GpuDataError(f"{slug}: capacity row without a source")
        if slug in found:
            raise GpuDataError(f"{slug}: two capacity rows")
        found[slug] = CapacityReport(runtime, smi, source, slug)
    return found


@cache
def load_gpus() -> tuple[GpuSpec, ...]:
    """The GPU catalog from ``pricing/data/gpus.json`` with the runtime totals of ``gpu-capacity.json`` (read once
    per process)."""
    with GPUS_FILE.open(encoding="utf-8") as handle:
        rows = json.load(handle)
    if not isinstance(rows, list):
        raise GpuDataError("gpus.json must hold a list of GPU rows")
    with CAPACITY_FILE.open(encoding="utf-8") as handle:
        capacity_rows = json.load(handle)
    if not isinstance(capacity_rows, dict) or not isinstance(capacity_rows.get("gpus"), list):
        raise GpuDataError("gpu-capacity.json must hold {'gpus': [...]}")
    gpus = parse_gpus(rows, parse_capacities(capacity_rows["gpus"]))
    with PREFILL_RUNS_FILE.open(encoding="utf-8") as handle:
        runs = parse_prefill_runs(json.load(handle))
    unknown = set(runs) - {gpu.slug for gpu in gpus}
    if unknown:
        raise GpuDataError(f"prefill runs for unknown GPUs: {sorted(unknown)}")
    return tuple(replace(gpu, prefill_run=runs.get(gpu.slug)) for gpu in gpus)


def parse_prefill_runs(document: Mapping[str, Any]) -> dict[str, PrefillRun]:
    """``gpu-prefill-runs.json`` by slug: every run needs a positive rate, a build and a source."""
    model = document.get("model")
    runs = document.get("runs")
    if not isinstance(model, Mapping) or not isinstance(runs, list):
        raise GpuDataError("gpu-prefill-runs.json must hold {'model': {...}, 'runs': [...]}")
    params, prompt = _positive_int(model, "parameters"), _positive_int(model, "prompt_tokens")
    if params is None or prompt is None:
        raise GpuDataError("gpu-prefill-runs.json: the model needs its parameters and prompt tokens")
    found: dict[str, PrefillRun] = {}
    for row in runs:
        slug, source, rate = row.get("slug"), row.get("source"), row.get("tokens_per_s")
        if not isinstance(slug, str) or slug in found:
            raise GpuDataError(f"prefill run without a slug or given twice: {slug!r}")
        if not isinstance(rate, int | float) or isinstance(rate, bool) or rate <= 0:
            raise GpuDataError(f"{slug}: prefill run without a positive rate")
        if not isinstance(source, str) or "https://" not in source:
            raise GpuDataError(f"{slug}: prefill run without a source")
        found[slug] = PrefillRun(
            float(rate),
            prompt,
            params,
            str(model.get("name", "")),
            str(row.get("backend", "")),
            str(row.get("build", "")),
            source,
        )
    return found


@cache
def _gpus_by_slug() -> dict[str, GpuSpec]:
    return {gpu.slug: gpu for gpu in load_gpus()}


def gpu_by_slug(slug: str) -> GpuSpec | None:
    return _gpus_by_slug().get(slug)
