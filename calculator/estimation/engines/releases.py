"""Every engine's release lines in one table: the lines themselves live per engine (``vllm_lines``,
``sglang_lines``, ``local_lines`` for llama.cpp and MLX-LM); this module names them, finds the line a release belongs
to, labels it for a reader and applies a line's cache rules to an engine's profile. Importers read every line's names
from here.

What an engine subtracts or allocates at start-up changed several times between releases (docs/methodology.md §4.12;
docs/research/vllm-start-up-memory.md walks through vLLM's). A line groups the releases that share every rule; the
current line is the default, the others recompute what an older installation reports.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Protocol

from .local_lines import (
    CURRENT_LLAMA_CPP,
    CURRENT_MLX,
    LLAMA_CPP_RELEASES,
    MLX_RELEASES,
    LlamaCppRelease,
    MlxRelease,
    is_llama_cpp_release,
    is_mlx_release,
    llama_cpp_release,
    mlx_release,
)
from .profiles import (
    EngineProfile,
)
from .sglang_lines import (
    CURRENT_SGLANG,
    SGLANG_RELEASES,
    SglangRelease,
    is_sglang_release,
    sglang_gpu_defaults,
    sglang_mem_fraction,
    sglang_release,
    sglang_reserved_mib,
)
from .vllm_lines import (
    ACTIVATION_BYTES,
    CUDA_CONTEXT_BYTES,
    CUDAGRAPH_ESTIMATE_BYTES,
    CURRENT_VLLM,
    VLLM_RELEASES,
    VllmRelease,
    expert_width,
    is_vllm_release,
    moe_workspace_bytes,
    spec_moe_workspace_bytes,
    vllm_activation_peak,
    vllm_batch_defaults,
    vllm_release,
)

__all__ = [
    "ACTIVATION_BYTES",
    "CUDAGRAPH_ESTIMATE_BYTES",
    "CUDA_CONTEXT_BYTES",
    "CURRENT_LLAMA_CPP",
    "CURRENT_MLX",
    "CURRENT_SGLANG",
    "CURRENT_VLLM",
    "ENGINE_RELEASE_LINES",
    "LLAMA_CPP_RELEASES",
    "MLX_RELEASES",
    "SGLANG_RELEASES",
    "VLLM_RELEASES",
    "EngineLines",
    "LlamaCppRelease",
    "MlxRelease",
    "ReleaseLine",
    "SglangRelease",
    "VllmRelease",
    "expert_width",
    "is_llama_cpp_release",
    "is_mlx_release",
    "is_sglang_release",
    "is_vllm_release",
    "llama_cpp_release",
    "mlx_release",
    "moe_workspace_bytes",
    "release_label",
    "release_profile",
    "sglang_gpu_defaults",
    "sglang_mem_fraction",
    "sglang_release",
    "sglang_reserved_mib",
    "spec_moe_workspace_bytes",
    "vllm_activation_peak",
    "vllm_batch_defaults",
    "vllm_release",
]


def release_profile(engine: EngineProfile, release: str) -> EngineProfile:
    """``engine``'s profile as release ``release`` of it allocates: llama.cpp's sliding-window and MLA caches and
    its fit margin per line, MLX-LM's MLA cache; vLLM's and SGLang's lines change their start-up budget
    (memory/overhead.py) rather than the profile. The current line's profile is ``engine`` itself."""
    if engine.key == "llama.cpp" and release:
        line = llama_cpp_release(release)
        if line is CURRENT_LLAMA_CPP:
            return engine
        rule = engine.overhead_rule if line.fit_margin else "llama.cpp-no-fit"
        return replace(engine, mla_cache=line.mla_cache, swa_rule=line.swa_rule, overhead_rule=rule)
    if engine.key == "mlx" and release:
        mlx = mlx_release(release)
        return engine if mlx is CURRENT_MLX else replace(engine, mla_cache=mlx.mla_cache)
    return engine


class ReleaseLine(Protocol):
    @property
    def key(self) -> str: ...

    @property
    def label(self) -> str: ...


@dataclass(frozen=True, slots=True)
class EngineLines:
    """How one engine's releases are named and found: whether a name is one a line covers, and that line."""

    engine: str
    current: str  # the current line's key
    covers: Callable[[str], bool]
    find: Callable[[str], ReleaseLine]  # the line that covers a release or line key (the current one otherwise)
    lines: Mapping[str, ReleaseLine]  # every line by key, the current one first

    def line_of(self, key: str) -> str:
        return self.find(key).key

    def label_of(self, key: str) -> str:
        """The line as a reader reads it."""
        return self.find(key).label


ENGINE_RELEASE_LINES: Mapping[str, EngineLines] = {
    lines.engine: lines
    for lines in (
        EngineLines("vllm", CURRENT_VLLM.key, is_vllm_release, vllm_release, VLLM_RELEASES),
        EngineLines("sglang", CURRENT_SGLANG.key, is_sglang_release, sglang_release, SGLANG_RELEASES),
        EngineLines("llama.cpp", CURRENT_LLAMA_CPP.key, is_llama_cpp_release, llama_cpp_release, LLAMA_CPP_RELEASES),
        EngineLines("mlx", CURRENT_MLX.key, is_mlx_release, mlx_release, MLX_RELEASES),
    )
}


def release_label(engine: str, release: str) -> str:
    """The release line a figure is for, as a reader reads it ("vLLM 0.34", "llama.cpp b7832 and later"); "" for an
    engine without lines."""
    lines = ENGINE_RELEASE_LINES.get(engine)
    return lines.label_of(release) if lines else ""
