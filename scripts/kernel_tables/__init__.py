"""Condensing aiconfigurator's measured kernel latencies into the shares of kernels.json (run by
scripts/derive_kernel_tables.py): ``mirror`` reads the tables of one commit from a bare git mirror, ``shares`` turns
rows into roofline shares and fits, ``engines`` assembles one engine's block per GPU. The constants below are the
choices every module shares.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "calculator" / "estimation" / "speed" / "data" / "kernels.json"
DATA = "aic-core/src/aiconfigurator_core/systems/data"
SYSTEMS = {  # aiconfigurator system → gpus.json slug
    "a100_sxm": "a100-80gb-sxm",
    "h100_sxm": "h100-sxm",
    "h200_sxm": "h200-sxm",
    "b200_sxm": "b200",
    "b300_sxm": "b300",
    "gb200": "gb200",
    "l40s": "l40s",
    "rtx_pro_6000_server": "rtx-pro-6000-blackwell",
}
ENGINES = {"vllm": "vllm", "sglang": "sglang", "trtllm": "tensorrt-llm"}
# Which of aiconfigurator's dtypes stands for our "fp8": dense layers take per-tensor FP8 first (the Llama-style FP8
# checkpoints), MoE layers the 128×128 block-scaled FP8 of DeepSeek/Qwen-MoE checkpoints first — vLLM's generic FP8 MoE
# path; its per-tensor rows are the ModelOpt/FlashInfer-CUTLASS path, 2-3× slower than bf16 on Hopper.
DTYPES = {
    "gemm": {"bf16": ("bfloat16",), "fp8": ("fp8", "fp8_block")},
    "moe": {"bf16": ("bfloat16",), "fp8": ("fp8_block", "fp8")},
}
BYTES = {"bf16": 2, "fp8": 1}
MOE_TP_ROUTING = ("power_law_1.2", "balanced")  # aiconfigurator's default routing (models/moe.py), else balanced
MOE_TP_MAX = 8  # the tables also hold 16 and 32; the all-reduce curves stop at 8 GPUs, and the file stays small
POW2 = tuple(2**i for i in range(15))  # 1 … 16384 tokens
AR_BYTES = tuple(256 * 4**i for i in range(11))  # 256 B … 256 MiB
BIG_LINEAR = 2**24  # n·k of the large linear layers of 7B+ models
Row = dict[str, Any]


def sig(x: float, digits: int = 4) -> float:
    return float(f"{x:.{digits}g}")
