"""What one decode or prefill step costs, per engine (docs/methodology.md §5; constants in SOURCES.md).

A step's time is the larger of its memory time (bytes read ÷ achieved bandwidth) and its compute time (FLOPs ÷
achieved FLOPs), plus what neither roofline sees: a fixed cost per decoder layer (kernel launches, norms, MoE
routing and expert dispatch), a fixed cost per step (scheduler, sampling, detokenisation), and the
tensor-parallel all-reduces or expert-parallel all-to-alls between GPUs. Pure Python, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class EngineSpeed:
    """How close one engine on one platform gets to the hardware's peak, and what it costs per layer and step."""

    key: str  # "<engine>/<platform>"
    bandwidth_efficiency: float  # share of peak bandwidth streaming 8- or 16-bit weights
    quant_bandwidth_efficiency: float  # the same for block-quantized weights under 8 bits (dequant in the GEMV)
    layer_us: float  # fixed cost per decoder layer per step (launches, norms, attention bookkeeping)
    moe_layer_us: float  # extra per MoE layer per step (router, top-k, expert dispatch / grouped GEMM setup)
    step_ms: float  # per step: scheduling, sampling, output processing
    compute_efficiency: float  # share of peak FLOPs on batched decode GEMMs
    prefill_mfu: float  # share of peak FLOPs in prefill
    cuda_graphs: bool  # decode steps replayed as CUDA graphs (launch costs folded into layer_us)
    layer_split: bool = False  # several GPUs run the layers one after another (llama.cpp), not tensor parallel
    prefill_ubatch: int = 8192  # tokens per prefill micro-batch: the weights are read once per micro-batch
    # under load (speed/batching.py): the routed experts' grouped GEMMs reach this share of the dense GEMMs' efficiency,
    # and each running sequence costs this much per decoder layer per step beyond the roofline
    moe_gemm_share: float = 1.0
    sequence_layer_us: float = 0.0
    estimated: bool = True
    source: str = ""


# Under load (docs/methodology.md §5.6): the fused-MoE grouped GEMMs of vLLM and SGLang reach about a third of the
# dense GEMMs' efficiency, and each running sequence costs about 2 µs per decoder layer per step (attention over its
# pages, sampling and output bookkeeping). Fitted once on the 49 serving-benchmark runs on A100s in
# calculator/validation/data/load.json (7 models, both engines), checked on the H100 and H200 runs.
MOE_GEMM_SHARE = 0.35
SEQUENCE_LAYER_US = 2.0

# Calibrated per engine and platform on the validation set (calculator/validation/data/speed.json), one value for
# every model and GPU of that engine, never per row; the engine version each describes is in SOURCES.md.
ENGINE_SPEEDS: dict[str, EngineSpeed] = {
    s.key: s
    for s in (
        EngineSpeed(
            key="vllm/cuda",
            bandwidth_efficiency=0.80,
            quant_bandwidth_efficiency=0.70,
            layer_us=15.0,
            moe_layer_us=200.0,
            step_ms=1.5,
            compute_efficiency=0.55,
            prefill_mfu=0.55,
            cuda_graphs=True,
            moe_gemm_share=MOE_GEMM_SHARE,
            sequence_layer_us=SEQUENCE_LAYER_US,
            source="vLLM 0.10–0.11 (V1 engine, CUDA graphs on by default)",
        ),
        EngineSpeed(
            key="sglang/cuda",
            bandwidth_efficiency=0.80,
            quant_bandwidth_efficiency=0.70,
            layer_us=15.0,
            # SGLang 0.5.7's DeepSeek-R1 TP8 sweep on 8 × H200 (concurrency 8–64, speed.json) puts its MoE layer at
            # about half of vLLM's (calibrated on those 8 rows); SOURCES.md "Speed" lists the older 0.4.x figures
            moe_layer_us=100.0,
            step_ms=1.5,
            compute_efficiency=0.55,
            prefill_mfu=0.55,
            cuda_graphs=True,
            moe_gemm_share=MOE_GEMM_SHARE,
            sequence_layer_us=SEQUENCE_LAYER_US,
            source="SGLang 0.5 (CUDA graphs up to cuda_graph_max_bs; its 0.4.1–0.4.3 ran DeepSeek slower)",
        ),
        EngineSpeed(
            key="tensorrt-llm/cuda",
            bandwidth_efficiency=0.82,
            quant_bandwidth_efficiency=0.72,
            layer_us=12.0,
            moe_layer_us=50.0,
            step_ms=1.0,
            compute_efficiency=0.6,
            prefill_mfu=0.6,
            cuda_graphs=True,
            source="TensorRT-LLM 0.2x/1.x (estimated from vLLM's profile; no validation row yet)",
        ),
        EngineSpeed(
            key="llama.cpp/cuda",
            bandwidth_efficiency=0.85,
            quant_bandwidth_efficiency=0.68,
            layer_us=12.0,
            moe_layer_us=45.0,
            step_ms=0.3,
            compute_efficiency=0.35,
            prefill_mfu=0.45,
            cuda_graphs=True,
            layer_split=True,
            prefill_ubatch=512,
            source="llama.cpp b3000–b7000 (CUDA graphs at batch 1 since b3000, 2024-06)",
        ),
        EngineSpeed(
            key="llama.cpp/metal",
            bandwidth_efficiency=0.78,
            quant_bandwidth_efficiency=0.62,
            layer_us=40.0,
            moe_layer_us=60.0,
            step_ms=0.5,
            compute_efficiency=0.35,
            # calibrated on 12 prefill rows: llama.cpp discussion 4167 (8 M1/M2 chips, build 8e672ef) and the M2
            # Ultra bench of b7948; FLOPs are the shader ALUs' FP16 rate (pricing/data/gpus.json)
            prefill_mfu=0.70,
            cuda_graphs=False,
            layer_split=True,
            prefill_ubatch=512,
            source="llama.cpp b2800–b7948, Metal backend",
        ),
        EngineSpeed(
            key="mlx/metal",
            bandwidth_efficiency=0.80,
            quant_bandwidth_efficiency=0.75,
            layer_us=40.0,
            moe_layer_us=60.0,
            step_ms=0.5,
            compute_efficiency=0.4,
            prefill_mfu=0.5,
            cuda_graphs=False,
            source="mlx-lm 0.2x (estimated from llama.cpp's Metal profile; no validation row yet)",
        ),
        EngineSpeed(
            key="transformers/cuda",
            bandwidth_efficiency=0.6,
            quant_bandwidth_efficiency=0.4,
            layer_us=150.0,
            moe_layer_us=400.0,
            step_ms=5.0,
            compute_efficiency=0.4,
            prefill_mfu=0.4,
            cuda_graphs=False,
            source="HF Transformers 4.4x, eager PyTorch (estimated: a Python loop per expert, no CUDA graphs)",
        ),
    )
}
# Ollama runs llama.cpp's kernels; ROCm builds of vLLM/SGLang/llama.cpp use the CUDA profile (estimated).
_ENGINE_ALIASES = {"ollama": "llama.cpp"}


def engine_speed(engine: str, platform: str) -> EngineSpeed:
    """The profile for ``engine`` on ``platform`` ("cuda" | "metal"); falls back to the nearest one."""
    key = _ENGINE_ALIASES.get(engine, engine)
    for candidate in (f"{key}/{platform}", f"{key}/cuda", f"llama.cpp/{platform}", "vllm/cuda"):
        if candidate in ENGINE_SPEEDS:
            return ENGINE_SPEEDS[candidate]
    return ENGINE_SPEEDS["vllm/cuda"]


@dataclass(frozen=True, slots=True)
class Link:
    """The path an all-reduce takes between GPUs of one replica."""

    kind: str  # "nvlink" | "xgmi" | "pcie" | "infiniband" | "none"
    bandwidth_gbps: float  # GB/s per direction per GPU
    latency_us: float  # one small all-reduce, end to end


# Per-direction bandwidths: NVIDIA NVLink 3 (A100) 600 GB/s and NVLink 4 (H100/H200) 900 GB/s and NVLink 5 (B200)
# 1.8 TB/s bidirectional per GPU (nvidia.com product pages); AMD MI300X xGMI 7 × 64 GB/s; PCIe 4.0 x16 32 GB/s per
# direction (PCI-SIG), about 25 GB/s achieved; InfiniBand NDR 400 Gb/s = 50 GB/s per GPU. Latencies: vLLM's
# custom one-shot all-reduce and NCCL's small-message all-reduce take 5–30 µs (nccl-tests all_reduce_perf at 8 B;
# vLLM csrc/custom_all_reduce.cuh); estimated.
_LINKS: dict[str, Link] = {
    "nvlink-a100": Link("nvlink", 300.0, 10.0),
    "nvlink-hopper": Link("nvlink", 450.0, 10.0),
    "nvlink-blackwell": Link("nvlink", 900.0, 10.0),
    "xgmi": Link("xgmi", 448.0, 15.0),
    "pcie": Link("pcie", 25.0, 30.0),
    "infiniband": Link("infiniband", 50.0, 25.0),
}


def link_for(slug: str, form_factor: str | None, vendor: str, gpus: int) -> Link:
    """The interconnect a tensor-parallel replica of ``gpus`` × ``slug`` all-reduces over."""
    if gpus <= 1:
        return Link("none", 0.0, 0.0)
    if gpus > 8:
        return _LINKS["infiniband"]
    form = (form_factor or "").lower()
    if vendor == "AMD" and slug.startswith("mi3"):
        return _LINKS["xgmi"]
    if "pcie" in form or "pcie" in slug or vendor == "Apple":
        return _LINKS["pcie"]
    if slug.startswith(("b200", "b300", "gb200")):
        return _LINKS["nvlink-blackwell"]
    if slug.startswith(("h100-sxm", "h200", "gh200")):
        return _LINKS["nvlink-hopper"]
    if slug.startswith("a100") and "sxm" in slug:
        return _LINKS["nvlink-a100"]
    return _LINKS["pcie"]


def all_reduce_s(link: Link, gpus: int, payload_bytes: float) -> float:
    """One ring all-reduce of ``payload_bytes`` over ``gpus``: latency + 2·(n − 1)/n · bytes ÷ bandwidth."""
    if gpus <= 1 or link.bandwidth_gbps <= 0:
        return 0.0
    return link.latency_us * 1e-6 + 2 * (gpus - 1) / gpus * payload_bytes / (link.bandwidth_gbps * 1e9)


def all_to_all_s(link: Link, gpus: int, payload_bytes: float) -> float:
    """One all-to-all (expert-parallel dispatch or combine): latency + (n − 1)/n · bytes ÷ bandwidth."""
    if gpus <= 1 or link.bandwidth_gbps <= 0:
        return 0.0
    return link.latency_us * 1e-6 + (gpus - 1) / gpus * payload_bytes / (link.bandwidth_gbps * 1e9)


# Expert-parallel load imbalance: the busiest GPU gets this many times the mean routed tokens at batch > 1
# (estimated; DeepSeek's EPLB exists because the skew is large without it, deepseek-ai/EPLB README 2025-02).
EXPERT_IMBALANCE = 1.3
