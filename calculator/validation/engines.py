"""Predictors for engine start-up capacity: the KV-cache memory, tokens and concurrency vLLM and SGLang report
(docs/methodology.md §4.1, §4.2, §4.8)."""

from __future__ import annotations

from calculator.estimation import GIB
from calculator.estimation.engines.releases import sglang_mem_fraction, sglang_release
from calculator.estimation.memory.capacity import EngineSettings, engine_capacity, kv_tokens_from_memory

from . import Case, predictor
from .kv import case_spec


def _settings(case: Case) -> EngineSettings:
    s = case.settings
    utilization = s.get("gpu_memory_utilization", s.get("mem_fraction_static"))
    return EngineSettings(
        engine=str(s.get("engine", case.engine)),
        tensor_parallel=int(s.get("tensor_parallel", 1)),
        gpu_memory_utilization=float(utilization) if utilization is not None else None,
        max_model_len=int(s.get("max_model_len", 8192)),
        max_num_seqs=int(s["max_num_seqs"]) if "max_num_seqs" in s else None,
        max_num_batched_tokens=int(s["max_num_batched_tokens"]) if "max_num_batched_tokens" in s else None,
        release=str(s.get("release", "")),
        gpu_name=str(s.get("gpu_name", s.get("gpu", ""))),
        enforce_eager=bool(s.get("enforce_eager", False)),
        precision=str(s.get("precision", "bf16")),
        kv_dtype=str(s.get("kv_dtype", "bf16")),
    )


def _tokens_and_concurrency(case: Case) -> tuple[float, float]:
    """From the engine's own "Available KV cache memory" line when the case gives it (page and block rounding
    alone), else from the whole start-up accounting on a GPU of ``gpu_total_gib``."""
    spec = case_spec(case)
    settings = _settings(case)
    if "kv_cache_gib" in case.settings:
        tokens, concurrency = kv_tokens_from_memory(spec, round(float(case.settings["kv_cache_gib"]) * GIB), settings)
        return tokens, concurrency
    capacity = engine_capacity(spec, round(float(case.settings["gpu_total_gib"]) * GIB), settings)
    return capacity.kv_cache_tokens, capacity.max_concurrency


@predictor("engine_kv_cache_gib")
def engine_kv_cache_gib(case: Case) -> float:
    capacity = engine_capacity(case_spec(case), round(float(case.settings["gpu_total_gib"]) * GIB), _settings(case))
    return capacity.kv_cache_bytes / GIB


@predictor("engine_kv_tokens")
def engine_kv_tokens(case: Case) -> float:
    return _tokens_and_concurrency(case)[0]


@predictor("engine_activation_gib")
def engine_activation_gib(case: Case) -> float:
    """The profile run's PyTorch peak increase ("torch peak memory increase")."""
    capacity = engine_capacity(case_spec(case), round(float(case.settings["gpu_total_gib"]) * GIB), _settings(case))
    return capacity.activation_bytes / GIB


@predictor("engine_max_concurrency")
def engine_max_concurrency(case: Case) -> float:
    return _tokens_and_concurrency(case)[1]


@predictor("engine_mem_fraction")
def engine_mem_fraction(case: Case) -> float:
    """SGLang's default `mem_fraction_static` for the GPU (``gpu_mem_mib`` as nvidia-smi reports it) and release."""
    s = case.settings
    release = sglang_release(str(s.get("release", "")))
    return sglang_mem_fraction(release, float(s["gpu_mem_mib"]), int(s.get("tensor_parallel", 1)))
