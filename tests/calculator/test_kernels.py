"""Step costs from measured kernels (calculator/estimation/speed/kernels.py, step_model.py; docs/methodology.md §5.8):
the tables derived from aiconfigurator's silicon measurements, read as shares of the nameplate figures."""

from __future__ import annotations

import pytest

from calculator.estimation import Workload
from calculator.estimation.speed.kernels import interpolate, kernel_source, kernel_table
from calculator.estimation.speed.step_model import step_model
from pricing.gpus import gpu_by_slug
from tests.calculator.estimation_specs import hub_spec


def _gpu(slug: str):
    gpu = gpu_by_slug(slug)
    assert gpu is not None
    return gpu


def test_a_curve_reads_linear_in_log_tokens_and_flat_beyond_its_ends():
    curve = ((1.0, 0.5), (16.0, 0.9))
    assert interpolate(curve, 0.5) == 0.5 and interpolate(curve, 64.0) == 0.9
    assert interpolate(curve, 4.0) == pytest.approx(0.7)  # halfway in log 1 … 16


def test_the_tables_name_their_source_and_cover_the_datacentre_gpus_of_each_engine():
    source = kernel_source()
    assert source["repository"] == "github.com/ai-dynamo/aiconfigurator" and source["licence"] == "Apache-2.0"
    assert len(source["commit"]) == 40
    for slug in ("a100-80gb-sxm", "h100-sxm", "h200-sxm", "b200", "l40s"):
        for engine in ("vllm", "sglang"):
            table = kernel_table(slug, engine)
            assert table is not None and not table.stand_in and table.version
            one, many = table.gemm_efficiency("bf16", 1), table.gemm_efficiency("bf16", 4096)
            assert one is not None and many is not None and 0.2 < one < 1.0 and 0.2 < many < 1.0
            assert table.all_reduce_s(2, 16384) is not None and table.attention_kv_efficiency > 0.3
    assert kernel_table("mi300x", "vllm") is None and kernel_table("rtx-4090", "vllm") is None
    assert kernel_table("h100-sxm", "llama.cpp") is None


def test_experts_split_over_more_gpus_reach_less_of_the_roofline_on_hopper():
    table = kernel_table("h200-sxm", "vllm")
    assert table is not None
    one, eight = table.moe_efficiency("bf16", 4096, 1), table.moe_efficiency("bf16", 4096, 8)
    assert one is not None and eight is not None and eight < one


def test_measured_kernels_price_steps_where_they_exist_and_the_roofline_elsewhere():
    spec = hub_spec("Qwen/Qwen3-8B")
    measured = step_model(spec, Workload(precision="bf16", context=2048), _gpu("h100-sxm"))
    assert measured is not None and measured.measured is not None
    quantized = step_model(spec, Workload(precision="awq", context=2048), _gpu("h100-sxm"))
    amd = step_model(spec, Workload(precision="bf16", context=2048), _gpu("mi300x"))
    assert quantized is not None and quantized.measured is None
    assert amd is not None and amd.measured is None
    # one decode token reads the 16 GB of weights: at the measured GEMM share of 3.35 TB/s, well under the nameplate
    one = measured.seconds(1, 2048, 0, 0.0)
    floor = measured.weights_bytes / (_gpu("h100-sxm").memory_bandwidth_gbps * 1e9)
    assert floor < one < 2 * floor
    # a batch of 64 costs more than one but far less than 64 single steps; a step with a prompt costs more still
    batch = measured.seconds(64, 64 * 2048, 0, 0.0)
    assert one < batch < 8 * one
    assert measured.seconds(64, 64 * 2048, 512, 512 * 511 / 2) > batch


def test_steps_beyond_the_cuda_graphs_pay_the_launches_of_every_layer():
    spec = hub_spec("Qwen/Qwen3-8B")
    vllm = step_model(spec, Workload(precision="bf16", context=2048), _gpu("h100-sxm"))
    sglang = step_model(spec, Workload(precision="bf16", context=2048, engine="sglang"), _gpu("h100-sxm"))
    assert vllm is not None and sglang is not None
    assert vllm.graphed(512, 0) and vllm.graphed(512, 256) and not vllm.graphed(513, 0)
    assert sglang.graphed(sglang.graph_tokens, 0) and not sglang.graphed(64, 64)  # SGLang never graphs a prefill
