"""SGLang release lines: the reserve its ``mem_fraction_static`` default leaves, per release and GPU
(docs/methodology.md §4.12)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .versions import version_of


@dataclass(frozen=True, slots=True)
class SglangRelease:
    """An SGLang release line and the rule its `mem_fraction_static` default follows (python/sglang/srt/
    server_args.py of each release, read in the PyPI wheels; docs/methodology.md §4.12)."""

    key: str
    label: str
    rule: str  # "tp_table" | "tp_pp_table" | "reserved_by_size" | "derived"
    sources: tuple[str, ...]


SGLANG_RELEASES: Mapping[str, SglangRelease] = {
    r.key: r
    for r in (
        SglangRelease("0.5.3", "SGLang 0.5.3 and later", "derived", ("server_args.py _handle_gpu_memory_settings",)),
        SglangRelease("0.4.8", "SGLang 0.4.8–0.5.2", "reserved_by_size", ("server_args.py __post_init__, 0.4.8",)),
        SglangRelease("0.4.6", "SGLang 0.4.6–0.4.7", "tp_pp_table", ("server_args.py __post_init__, 0.4.6",)),
        SglangRelease("0.4.0", "SGLang 0.4.0–0.4.5", "tp_table", ("server_args.py __post_init__, 0.4.0",)),
    )
}
CURRENT_SGLANG = SGLANG_RELEASES["0.5.3"]


def sglang_release(key: str | None) -> SglangRelease:
    """The SGLang line that covers release ``key`` ("0.4.10.post2", "v0.5.1"); the current line for an empty,
    unreadable or newer key, and for releases before 0.4."""
    wanted = version_of(key, 3) if key else None
    if wanted is None or wanted < (0, 4, 0):
        return CURRENT_SGLANG
    for release in sorted(SGLANG_RELEASES.values(), key=lambda r: version_of(r.key, 3) or (0, 0, 0), reverse=True):
        if (version_of(release.key, 3) or (0, 0, 0)) <= wanted:
            return release
    return CURRENT_SGLANG


def is_sglang_release(key: str) -> bool:
    """Whether ``key`` reads as an SGLang release from 0.4 on."""
    wanted = version_of(key, 3)
    return wanted is not None and wanted >= (0, 4, 0)


def _tp_table(parallel: int) -> float:
    if parallel >= 16:
        return 0.79
    if parallel >= 8:
        return 0.81
    if parallel >= 4:
        return 0.85
    if parallel >= 2:
        return 0.87
    return 0.88


def sglang_mem_fraction(release: SglangRelease, gpu_mem_mib: float, tp: int = 1, pp: int = 1) -> float:
    """`--mem-fraction-static`'s default for a GPU of ``gpu_mem_mib`` (as nvidia-smi reports it): the share that
    holds the weights and the KV pool; the rest is left for activations and CUDA graphs."""
    parallel = max(1, tp) * max(1, pp)
    gib = 1024.0
    if release.rule == "tp_table":
        return _tp_table(max(1, tp))
    if release.rule == "tp_pp_table":
        fraction = _tp_table(parallel) if gpu_mem_mib <= 80 * gib else 0.88
        if gpu_mem_mib > 96 * gib:  # "15 GB + additional 3GB for cuda graph"
            fraction = min(fraction + 48 * gib * (1 - fraction) / gpu_mem_mib, (gpu_mem_mib - 18 * gib) / gpu_mem_mib)
        return fraction
    if release.rule == "reserved_by_size":
        if gpu_mem_mib < 35 * gib:
            reserved = (2.8 + parallel / 10) * gib
        elif gpu_mem_mib < 90 * gib:
            reserved = (9.5 + parallel / 2) * gib
        elif gpu_mem_mib < 160 * gib:
            reserved = (12 + parallel / 2) * gib
        else:
            reserved = 32 * gib
        return round((gpu_mem_mib - reserved) / gpu_mem_mib, 3)
    return round((gpu_mem_mib - sglang_reserved_mib(gpu_mem_mib, tp, pp)) / gpu_mem_mib, 3)


def sglang_gpu_defaults(gpu_mem_mib: float, tp: int = 1) -> tuple[int, int]:
    """(chunked_prefill_size, cuda_graph_max_bs) SGLang takes on a GPU of ``gpu_mem_mib`` (0.5.5 on; §4.2)."""
    if gpu_mem_mib < 20 * 1024:
        return 2048, 8
    if gpu_mem_mib < 35 * 1024:
        return 2048, 24 if tp < 4 else 80
    if gpu_mem_mib < 60 * 1024:
        return 4096, 32 if tp < 4 else 160
    if gpu_mem_mib < 160 * 1024:
        return 8192, 256 if tp < 4 else 512
    return 16384, 512


def sglang_reserved_mib(gpu_mem_mib: float, tp: int = 1, pp: int = 1) -> float:
    """The memory SGLang 0.5.3 on leaves outside its static pool: 512 MiB + 1.5 × chunked prefill + 2 × the
    CUDA-graph batch + TP × PP ÷ 8 GiB, at least 10 GiB on GPUs over 60 GiB (§4.2)."""
    chunked, graph_bs = sglang_gpu_defaults(gpu_mem_mib, tp)
    reserved = 512 + 1.5 * max(chunked, 2048) + 2 * graph_bs + max(1, tp) * max(1, pp) / 8 * 1024
    if gpu_mem_mib > 60 * 1024:
        reserved = max(reserved, 10 * 1024)
    return reserved
