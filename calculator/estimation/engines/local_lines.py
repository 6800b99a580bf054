"""llama.cpp and MLX-LM release lines: what llama-server and mlx_lm allocate per build or release
(docs/methodology.md §4.12)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from .versions import version_of


@dataclass(frozen=True, slots=True)
class LlamaCppRelease:
    """A llama.cpp release line: the builds between two changes of what llama-server allocates or accepts
    (docs/methodology.md §4.12; each change's pull request and merge build in ``sources``). Build numbers count the
    commits on master (release tag ``b<N>``)."""

    key: str  # the line's first build, "b7832"
    label: str  # "llama.cpp b7832 and later"
    first_build: int
    mla_cache: str  # engines/profiles.py EngineProfile.mla_cache: "latent" (K only) | "latent_plus_value"
    swa_rule: str  # memory/kv.py sliding_cells: "llama.cpp" (window + n_ubatch) | "llama.cpp-batch" (window + n_batch)
    fit_margin: bool  # automatic fitting (--fit, on by default) keeps 1 GiB free per device
    flash_attention_valued: bool  # `-fa on|off|auto`; before, `-fa` was a switch
    n_cpu_moe: bool  # `--n-cpu-moe N`; before, the same placement is an `-ot` pattern
    sources: tuple[str, ...]


_LLAMA_B5429 = LlamaCppRelease(
    key="b5429",
    label="llama.cpp b5429–b5553",
    first_build=5429,
    mla_cache="latent_plus_value",
    swa_rule="llama.cpp-batch",
    fit_margin=False,
    flash_attention_valued=False,
    n_cpu_moe=False,
    sources=(
        "ggml-org/llama.cpp#13194 (b5429): sliding-window layers cache window + n_batch cells, --swa-full",
        "ggml-org/llama.cpp#12801 (b5137): MLA caches the latent as K and V",
    ),
)
_LLAMA_B5554 = replace(
    _LLAMA_B5429,
    key="b5554",
    label="llama.cpp b5554–b6324",
    first_build=5554,
    swa_rule="llama.cpp",
    sources=("ggml-org/llama.cpp#13833 (b5554): window + n_ubatch cells", "ggml-org/llama.cpp#15077 (b6089)"),
)
_LLAMA_B6325 = replace(
    _LLAMA_B5554,
    key="b6325",
    label="llama.cpp b6325–b7406",
    first_build=6325,
    flash_attention_valued=True,
    n_cpu_moe=True,
    sources=("ggml-org/llama.cpp#15434 (b6325): -fa on|off|auto, every layer on the GPU by default",),
)
_LLAMA_B7407 = replace(
    _LLAMA_B6325,
    key="b7407",
    label="llama.cpp b7407–b7831",
    first_build=7407,
    fit_margin=True,
    sources=("ggml-org/llama.cpp#16653 (b7407): --fit on by default, 1024 MiB kept free per device",),
)
_LLAMA_B7832 = replace(
    _LLAMA_B7407,
    key="b7832",
    label="llama.cpp b7832 and later",
    first_build=7832,
    mla_cache="latent",
    sources=("ggml-org/llama.cpp#19067 (b7832): V-less cache, MLA layers keep K only",),
)
LLAMA_CPP_RELEASES: Mapping[str, LlamaCppRelease] = {
    r.key: r for r in (_LLAMA_B7832, _LLAMA_B7407, _LLAMA_B6325, _LLAMA_B5554, _LLAMA_B5429)
}
CURRENT_LLAMA_CPP = _LLAMA_B7832


def _build_number(key: str) -> int | None:
    """'b7500', '7500' or 'B7500' → 7500; None for anything else."""
    text = key.strip().lower().removeprefix("b")
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 6 else None


def llama_cpp_release(key: str | None) -> LlamaCppRelease:
    """The line that covers build ``key`` ("b7500", "7500"); the current line for an empty or unreadable key."""
    if not key:
        return CURRENT_LLAMA_CPP
    known = LLAMA_CPP_RELEASES.get(key)
    if known is not None:
        return known
    build = _build_number(key)
    if build is None or build < _LLAMA_B5429.first_build:
        return CURRENT_LLAMA_CPP
    return max((r for r in LLAMA_CPP_RELEASES.values() if r.first_build <= build), key=lambda r: r.first_build)


def is_llama_cpp_release(key: str) -> bool:
    """Whether ``key`` names a build a line covers (b5429 on: llama-server's sliding-window cache)."""
    build = _build_number(key)
    return build is not None and build >= _LLAMA_B5429.first_build


@dataclass(frozen=True, slots=True)
class MlxRelease:
    """An MLX-LM release line (docs/methodology.md §4.12)."""

    key: str  # the line's first release, "0.30.6"
    label: str
    mla_cache: str  # "latent" | "decompressed" (every head's keys and values)
    sources: tuple[str, ...]


_MLX_0_22_2 = MlxRelease(
    key="0.22.2",
    label="MLX-LM 0.22.2–0.30.5",
    mla_cache="decompressed",
    sources=("ml-explore/mlx-lm#40 (0.22.2): prompts run in steps of 2,048 tokens",),
)
_MLX_0_30_6 = replace(
    _MLX_0_22_2,
    key="0.30.6",
    label="MLX-LM 0.30.6 and later",
    mla_cache="latent",
    sources=("ml-explore/mlx-lm#839 (0.30.6): DeepSeek-V3's cache keeps the MLA latent",),
)
MLX_RELEASES: Mapping[str, MlxRelease] = {r.key: r for r in (_MLX_0_30_6, _MLX_0_22_2)}
CURRENT_MLX = _MLX_0_30_6


def mlx_release(key: str | None) -> MlxRelease:
    """The MLX-LM line that covers release ``key`` ("0.28.3"); the current line for an empty, unreadable, newer
    or older key."""
    if not key:
        return CURRENT_MLX
    known = MLX_RELEASES.get(key)
    if known is not None:
        return known
    wanted = version_of(key, 3)
    if wanted is None or wanted < (0, 22, 2):
        return CURRENT_MLX
    return _MLX_0_30_6 if wanted >= (0, 30, 6) else _MLX_0_22_2


def is_mlx_release(key: str) -> bool:
    """Whether ``key`` reads as an MLX-LM release a line covers (0.22.2 on)."""
    wanted = version_of(key, 3)
    return wanted is not None and wanted >= (0, 22, 2)
