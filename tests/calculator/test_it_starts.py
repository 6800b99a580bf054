"""It starts (docs/methodology.md §4.14): the need is what the engine allocates, each GPU of a split holds the engine's
start-up budget for itself, and no GPU is recommended whose engine has no kernels for the model's attention."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from calculator.estimation import EngineSettings, Workload, engine_capacity, estimate, rank
from calculator.estimation.engines.kernels import SPARSE_ATTENTION, blocking_rule, model_features, starts_on
from calculator.estimation.memory.fit import budget_bytes, gpus_needed, per_gpu_overhead_bytes
from calculator.estimation.plan.deployment import gpu_plan
from models_catalog import services
from pricing.gpus import gpu_by_slug, load_gpus
from tests.calculator.estimation_specs import hub_spec
from tests.calculator.page_inputs import bundled_offers
from tests.models_catalog.html import parse

LLAMA_70B = "meta-llama/Llama-3.3-70B-Instruct"
GLM = "zai-org/GLM-5.3-Flash"
GB = 10**9
SHIPPED = Path(services.__file__).resolve().parent / "data" / "hub"


def _gpu(slug: str):
    gpu = gpu_by_slug(slug)
    assert gpu is not None
    return gpu


def test_llama_33_70b_in_bf16_starts_on_two_h100_at_tp_2_with_kv_room():
    """141.1 GB of weights (70,553,706,496 × 2 B), 2.68 GB of KV at 8K tokens (80 layers × 8 KV heads × 128 × 2 × 2 B
    = 327,680 B a token) and vLLM 0.34's 4.17 GB start-up budget on each GPU fit 2 × 0.9 × 85.0 GB; vLLM reports
    13,328 tokens of KV cache there, room for one 8K request and 5,136 tokens more."""
    spec, h100 = hub_spec(LLAMA_70B), _gpu("h100-sxm")
    breakdown = estimate(spec, Workload())
    assert breakdown.weights_bytes == 2 * 70_553_706_496
    assert breakdown.kv_cache_bytes == 327_680 * 8192
    assert round(breakdown.total_bytes / GB, 1) == 148.0
    per_gpu = per_gpu_overhead_bytes(breakdown)
    assert round(per_gpu / GB, 2) == 4.17
    assert breakdown.total_bytes + per_gpu <= 2 * budget_bytes(h100)
    plan = gpu_plan(spec, Workload(), h100)
    assert (plan.gpus_needed, plan.tensor_parallel, plan.pipeline_stages) == (2, 2, 1)
    capacity = engine_capacity(spec, h100.capacity_bytes, EngineSettings(tensor_parallel=2))
    assert capacity.fits and capacity.kv_cache_tokens >= 8192
    assert capacity.kv_cache_tokens == 13_328 and round(capacity.max_concurrency, 2) == 1.63


def test_a_split_holds_each_gpus_budget_once_per_gpu():
    """n GPUs hold total + (n − 1) × per-GPU budget: the count the closed form gives is the smallest that does."""
    h100 = _gpu("h100-sxm")
    budget = budget_bytes(h100)
    for total, per_gpu in [(148 * GB, 4 * GB), (680 * GB, 5 * GB), (1_300 * GB, 6 * GB), (50 * GB, 5 * GB)]:
        n = gpus_needed(total, h100, "vllm", per_gpu)
        assert total + (n - 1) * per_gpu <= n * budget
        assert n == 1 or total + (n - 2) * per_gpu > (n - 1) * budget
        assert n >= gpus_needed(total, h100)


def test_sglangs_reserve_and_fine_tuning_are_not_repeated_per_gpu():
    spec = hub_spec(LLAMA_70B)
    assert per_gpu_overhead_bytes(estimate(spec, Workload(engine="sglang"))) == 0
    assert per_gpu_overhead_bytes(estimate(spec, Workload(mode="lora"))) == 0
    assert per_gpu_overhead_bytes(estimate(spec, Workload(engine="llama.cpp", precision="q4_k_m"))) > 0


@pytest.mark.parametrize(
    ("slug", "vllm", "sglang"),
    [
        ("h100-sxm", True, True),
        ("h200-sxm", True, True),
        ("b200", True, True),
        ("gb200", True, True),
        ("a100-80gb-sxm", False, False),
        ("l40s", False, False),
        ("rtx-5090", False, False),  # consumer Blackwell (GB202): no FlashMLA sparse kernels
        ("mi300x", False, True),  # SGLang's ROCm images run DeepSeek sparse attention on MI300
        ("mi355x", False, True),
    ],
)
def test_sparse_attention_starts_only_where_its_kernels_exist(slug, vllm, sglang):
    glm, gpu = hub_spec(GLM), _gpu(slug)
    assert model_features(glm) == {SPARSE_ATTENTION}
    assert (blocking_rule(glm, "vllm", gpu.architecture) is None) is vllm
    assert (blocking_rule(glm, "sglang", gpu.architecture) is None) is sglang
    # a model without an indexer starts on every one of them
    assert blocking_rule(hub_spec(LLAMA_70B), "vllm", gpu.architecture) is None


@pytest.mark.parametrize("seed", range(6))
def test_every_ranked_configuration_starts(seed):
    """A property over random states: whatever a ranking built the way the pages build it ranks, the engine has
    kernels for the model on that GPU and the count holds each GPU's start-up budget."""
    rng = random.Random(seed)
    gpus = load_gpus()
    offers = bundled_offers()  # the shipped price snapshot (pricing/data/)
    ranked = 0
    for _ in range(4):
        spec = hub_spec(rng.choice([GLM, LLAMA_70B, "deepseek-ai/DeepSeek-V3.2", "Qwen/Qwen3-30B-A3B"]))
        workload = Workload(
            engine=rng.choice(["vllm", "sglang"]),
            precision=rng.choice(["fp16", "fp8", "int4"]),
            context=rng.choice([4096, 8192, 32768]),
            concurrency=rng.choice([1, 4, 16]),
        )
        breakdown = estimate(spec, workload)
        starts = starts_on(spec, workload.engine)
        per_gpu = per_gpu_overhead_bytes(breakdown)
        ranking = rank(
            breakdown.total_bytes, offers, [g for g in gpus if starts(g)], engine=workload.engine, per_gpu_bytes=per_gpu
        )
        by_slug = {g.slug: g for g in gpus}
        for row in ranking.by_gpu:
            gpu = by_slug[row.offer.gpu_slug]
            assert blocking_rule(spec, workload.engine, gpu.architecture) is None, (spec.model_type, gpu.slug)
            n = row.gpus_needed
            assert breakdown.total_bytes + (n - 1) * per_gpu <= n * budget_bytes(gpu, workload.engine)
            ranked += 1
    assert ranked > 0


@pytest.mark.django_db
def test_a_mac_is_never_answered_with_weights_its_engines_do_not_load(client):
    """A 512 GB Mac once said "Yes, at FP8" for GLM-5.3-Flash: neither llama.cpp nor MLX-LM loads FP8 safetensors.
    The answer is a GGUF or MLX option; the FP8 row stays, with its need, as no answer."""
    services.model_import_offline(SHIPPED)
    page = parse(client.get("/en/models/zai-org/GLM-5.3-Flash/runs-on/mac-512/").content)
    verdict = page.one(id="verdict")
    assert verdict.attrs["data-fits"] == "true" and verdict.attrs["data-best"] != "fp8"
    assert page.one("tr", data_option="fp8").attrs["data-fits"] == "false"
    best = page.one("tr", data_option=verdict.attrs["data-best"])
    assert best.attrs["data-fits"] == "true"


def test_casting_a_16_bit_release_to_fp8_as_it_loads_needs_the_16_bit_weights_where_the_engine_loads_them_first():
    """SGLang loads Llama-3.3-70B's 141.1 GB of BF16 weights before it casts them to FP8 (sglang#2895): the need is
    that, not the 79.5 GB it holds once started, and one H200 (139.9 GiB) is not enough to start it. vLLM 0.34 casts
    each layer as it loads (vllm#31914); its 0.12–0.16 line is counted as loading first; a published FP8 build's
    files load as they are."""
    spec, h200 = hub_spec(LLAMA_70B), _gpu("h200-sxm")
    sglang = estimate(spec, Workload(precision="fp8", engine="sglang"))
    assert sglang.total_bytes == 2 * 70_553_706_496
    assert sglang.bytes_of("load_peak") == sglang.total_bytes - sum(
        t.bytes for t in sglang.terms if t.on_gpu and t.key != "load_peak"
    )
    assert gpus_needed(sglang.total_bytes, h200, "sglang") == 2
    streamed = estimate(spec, Workload(precision="fp8"))
    assert streamed.bytes_of("load_peak") == 0 and round(streamed.total_bytes / GB, 1) == 79.5
    old_line = estimate(spec, Workload(precision="fp8", engine_release="0.12"))
    assert old_line.total_bytes == 2 * 70_553_706_496
    published = estimate(spec, Workload(precision="fp8", engine="sglang", weights_file_bytes=72 * GB))
    assert published.bytes_of("load_peak") == 0
    released_fp8 = estimate(hub_spec(GLM), Workload(precision="fp8", engine="sglang"))
    assert released_fp8.bytes_of("load_peak") == 0  # an FP8 release loads as it is
