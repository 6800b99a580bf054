"""GPU + RAM offload for llama.cpp / Ollama (calculator/estimation/plan/offload.py and offload_fit.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from calculator.estimation import GIB, Workload
from calculator.estimation.memory.gguf import gguf_size
from calculator.estimation.plan.offload import Placement, offload_split
from calculator.estimation.plan.offload_fit import (
    best_quant_verdict,
    best_split,
    candidate_splits,
    offload_speed,
    offload_verdict,
    ram_budget_bytes,
)
from models_catalog.architecture import ModelSpec
from models_catalog.specs import spec_from_recorded_folder

HUB = Path(__file__).resolve().parents[2] / "models_catalog" / "data" / "hub"


def cap(memory_gb: float) -> int:
    """A card's runtime total for these tests: the H100's share of its nameplate, 79.18 of 80 GiB."""
    return round(memory_gb * GIB * 79.18 / 80)


def spec(model: str) -> ModelSpec:
    return spec_from_recorded_folder(HUB / model)


def workload(ftype: str, context: int = 8192) -> Workload:
    return Workload(engine="llama.cpp", precision=ftype.lower(), context=context)


def test_all_on_gpu_keeps_only_the_input_embedding_in_ram():
    llama = spec("meta-llama/Llama-3.1-8B-Instruct")
    split = offload_split(llama, workload("Q4_K_M"), placement=Placement.GPU)
    size = gguf_size(llama, "Q4_K_M")
    weights = split.gpu_weights_bytes + split.host_weights_bytes
    # every tensor placed once: the file less its tokenizer metadata
    assert weights == sum(size.bytes_by_type.values())
    assert 0.9 * 128256 * 4096 * 0.5 < split.host_weights_bytes < 128256 * 4096  # token_embd at Q4_K
    assert split.host_kv_bytes == 0 and split.gpu_kv_bytes > 0


def test_experts_in_ram_move_the_routed_experts_and_nothing_else():
    qwen = spec("Qwen/Qwen3-30B-A3B")
    full = offload_split(qwen, workload("Q4_K_M"), placement=Placement.GPU)
    experts = offload_split(qwen, workload("Q4_K_M"), placement=Placement.EXPERTS_CPU)
    moved = experts.host_weights_bytes - full.host_weights_bytes
    assert moved == full.gpu_weights_bytes - experts.gpu_weights_bytes
    # the routed experts are ~95 % of Qwen3-30B-A3B; attention, norms, routers and the cache stay on the GPU
    assert 0.9 < moved / (full.gpu_weights_bytes + full.host_weights_bytes) < 0.98
    assert experts.gpu_kv_bytes == full.gpu_kv_bytes
    # the op-offload copy of one layer's experts grows the GPU compute buffer
    assert experts.gpu_compute_bytes > full.gpu_compute_bytes


def test_n_cpu_moe_moves_the_first_layers_experts_in_order():
    qwen = spec("Qwen/Qwen3-30B-A3B")
    sizes = [
        offload_split(qwen, workload("Q4_K_M"), placement=Placement.N_CPU_MOE, cpu_moe_layers=k).host_weights_bytes
        for k in (0, 12, 24, 48)
    ]
    assert sizes == sorted(sizes) and len(set(sizes)) == 4
    every = offload_split(qwen, workload("Q4_K_M"), placement=Placement.EXPERTS_CPU)
    assert sizes[-1] == every.host_weights_bytes


def test_dense_lead_layers_of_deepseek_have_no_experts_to_move():
    ds = spec("deepseek-ai/DeepSeek-V3")
    w = workload("Q2_K")
    three = offload_split(ds, w, placement=Placement.N_CPU_MOE, cpu_moe_layers=3)
    none = offload_split(ds, w, placement=Placement.GPU)
    assert three.host_weights_bytes == none.host_weights_bytes  # layers 0–2 are dense in DeepSeek-V3


def test_ngl_puts_the_last_layers_and_their_cache_on_the_gpu():
    llama = spec("meta-llama/Llama-3.1-70B-Instruct")
    w = workload("Q4_K_M")
    half = offload_split(llama, w, placement=Placement.LAYERS, gpu_layers=40)
    assert half.gpu_kv_bytes == pytest.approx(half.host_kv_bytes, rel=0.01)
    none = offload_split(llama, w, placement=Placement.LAYERS, gpu_layers=0)
    assert none.gpu_bytes == 0
    all_layers = offload_split(llama, w, placement=Placement.LAYERS, gpu_layers=81)
    assert all_layers.gpu_weights_bytes == offload_split(llama, w, placement=Placement.GPU).gpu_weights_bytes


def test_mmproj_and_draft_count_on_the_gpu_when_used():
    gemma = spec("google/gemma-3-27b-it")
    w = workload("Q4_K_M")
    plain = offload_split(gemma, w, placement=Placement.GPU)
    vision = offload_split(gemma, w, placement=Placement.GPU, mmproj=True, draft_bytes=10**9)
    assert vision.gpu_bytes - plain.gpu_bytes == gguf_size(gemma, "Q4_K_M").mmproj_bytes + 10**9


def test_best_split_prefers_the_gpu_then_experts_then_layers():
    qwen = spec("Qwen/Qwen3-30B-A3B")
    w = workload("Q4_K_M")
    on_h100, fits = best_split(qwen, w, gpu_capacity_bytes=cap(80), ram_bytes=64 * GIB)
    assert fits and on_h100.placement is Placement.GPU
    on_8gb, fits = best_split(qwen, w, gpu_capacity_bytes=cap(8), ram_bytes=64 * GIB)
    assert fits and on_8gb.placement in (Placement.N_CPU_MOE, Placement.EXPERTS_CPU)
    ollama, fits = best_split(qwen, w, gpu_capacity_bytes=cap(8), ram_bytes=64 * GIB, experts_allowed=False)
    assert fits and ollama.placement is Placement.LAYERS
    nothing, fits = best_split(
        spec("deepseek-ai/DeepSeek-V3"),
        w,
        gpu_capacity_bytes=cap(24),
        ram_bytes=64 * GIB,
    )
    assert not fits and nothing.placement is Placement.NONE
    order = [s.placement for s in candidate_splits(qwen, w)]
    assert order.index(Placement.GPU) < order.index(Placement.EXPERTS_CPU) < order.index(Placement.LAYERS)


def test_speed_is_bounded_by_ram_bandwidth_for_the_offloaded_part():
    gpt = spec("openai/gpt-oss-120b")
    w = workload("MXFP4_MOE")
    split = offload_split(gpt, w, placement=Placement.EXPERTS_CPU)
    slow = offload_speed(gpt, w, split, gpu_bandwidth_gbps=1008, ram_bandwidth_gbps=60)
    fast = offload_speed(gpt, w, split, gpu_bandwidth_gbps=1008, ram_bandwidth_gbps=120)
    assert slow.limit == "ram_bandwidth" and slow.estimated
    assert slow.tokens_per_s is not None and fast.tokens_per_s is not None
    assert fast.tokens_per_s > 1.5 * slow.tokens_per_s
    # 4 of 128 experts a token: the CPU reads ~1/32 of the experts per step
    assert slow.host_read_bytes < split.host_weights_bytes / 25
    assert slow.inputs["ram_bandwidth_gbps"] == 60


def test_ram_budget_leaves_the_system_its_share():
    assert ram_budget_bytes(128 * GIB) == 112 * GIB
    assert ram_budget_bytes(32 * GIB) == 24 * GIB


def test_largest_quant_that_fits_a_4090_and_128_gib():
    qwen = spec("Qwen/Qwen3-30B-A3B")
    verdict = best_quant_verdict(
        qwen,
        workload("Q4_K_M"),
        gpu_capacity_bytes=cap(24),
        gpu_bandwidth_gbps=1008,
        ram_bytes=128 * GIB,
    )
    assert verdict.fits and verdict.split.ftype == "Q8_0"
    assert verdict.split.per_gpu_bytes <= verdict.gpu_budget_bytes
    gpt = best_quant_verdict(
        spec("openai/gpt-oss-120b"),
        workload("Q4_K_M"),
        gpu_capacity_bytes=cap(24),
        gpu_bandwidth_gbps=1008,
        ram_bytes=128 * GIB,
    )
    assert gpt.split.ftype == "MXFP4_MOE" and gpt.fits


@pytest.mark.parametrize(
    "model",
    ["Qwen/Qwen3-30B-A3B", "openai/gpt-oss-120b", "deepseek-ai/DeepSeek-V3", "meta-llama/Llama-3.1-8B-Instruct"],
)
def test_bisected_best_split_is_the_first_split_of_the_full_scan_that_fits(model):
    """best_split bisects each phase; the answer must be the one a scan of every candidate gives."""
    from calculator.estimation.plan.offload_fit import _fits, gpu_budget_bytes

    m = spec(model)
    for ftype in ("Q8_0", "Q4_K_M", "Q2_K"):
        w = workload(ftype, context=32768)
        splits = candidate_splits(m, w, gpus=1)
        for gpu_gb in (8, 12, 24, 48, 80):
            for ram_gib in (0, 16, 64, 128, 512):
                found, fits = best_split(m, w, gpu_capacity_bytes=cap(gpu_gb), ram_bytes=ram_gib * GIB)
                budget = (gpu_budget_bytes(cap(gpu_gb)), ram_budget_bytes(ram_gib * GIB))
                scanned = next((s for s in splits if _fits(s, *budget)), None)
                if scanned is None:
                    assert not fits and found.placement is Placement.NONE
                else:
                    assert fits and found == scanned, (ftype, gpu_gb, ram_gib)


@pytest.mark.parametrize("model", ["Qwen/Qwen3-30B-A3B", "deepseek-ai/DeepSeek-V3", "meta-llama/Llama-3.1-8B-Instruct"])
def test_the_verdict_read_off_the_ram_ladder_is_best_split_with_its_speed(model):
    """offload_verdict picks from a ladder remembered per machine without its RAM; every RAM must get what
    best_split and offload_speed give for it, and nothing fitting has no speed."""
    m = spec(model)
    for ftype in ("Q8_0", "Q4_K_M"):
        w = workload(ftype, context=32768)
        for gpu_gb in (8, 24, 80):
            for ram_gib in (0, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 512, 1024):
                ram = ram_gib * GIB
                verdict = offload_verdict(m, w, gpu_capacity_bytes=cap(gpu_gb), gpu_bandwidth_gbps=1000, ram_bytes=ram)
                split, fits = best_split(m, w, gpu_capacity_bytes=cap(gpu_gb), ram_bytes=ram)
                assert (verdict.split, verdict.fits) == (split, fits), (ftype, gpu_gb, ram_gib)
                assert verdict.ram_budget_bytes == ram_budget_bytes(ram)
                speed = offload_speed(m, w, split, gpu_bandwidth_gbps=1000)
                assert verdict.speed.tokens_per_s == (speed.tokens_per_s if fits else None)
