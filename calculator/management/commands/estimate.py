"""``python manage.py estimate``: the estimation core from the shell.

    manage.py estimate meta-llama/Llama-3.1-8B-Instruct --precision q4_k_m --engine llama.cpp --context 32K
    manage.py estimate path/to/config.json --params 8.03e9 --json
    manage.py estimate qwen/qwen3-32b --gpu "H100 SXM 80GB" --gpu mac-64 --max-context --speed
    manage.py estimate qwen/qwen3-32b --gpu h100-sxm --speed --price-per-gpu-hour 2.49 --api-price 0.4,1.6

A catalog id (any case) is read from the recorded Hub data the catalog ships (``models_catalog/data/hub``); a
path to a ``config.json`` needs nothing else. GPU specs come from ``pricing/gpus.py``. No database is touched.
The answers are computed in ``calculator/management/estimate_report.py`` and worded in ``estimate_output.py``.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from calculator.estimation.plan.planner import DEFAULT_MIN_TOKENS_PER_S
from calculator.management.estimate_output import write_report
from calculator.management.estimate_report import estimate_report
from calculator.management.options import add_workload_arguments, gpu_slugs, one_line_errors


class Command(BaseCommand):
    help = "Estimate the memory a model needs and the GPUs that hold it (GB = 10^9 bytes; Mac memory in GiB)."

    def create_parser(self, prog_name: str, subcommand: str, **kwargs: Any) -> CommandParser:
        return one_line_errors(super().create_parser(prog_name, subcommand, **kwargs))

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("model", help="catalog model id (org/name, any case) or a path to a config.json")
        add_workload_arguments(parser)
        parser.add_argument(
            "--gpu",
            action="append",
            default=[],
            help="GPU slug or the name the output prints (repeatable; default: one of each); mac-<GB> for a Mac "
            "of that memory. Slugs: " + ", ".join(gpu_slugs()),
        )
        parser.add_argument("--mac", action="append", default=[], help="unified memory of a Mac in GB (repeatable)")
        parser.add_argument(
            "--gpus",
            help="GPUs of each --gpu for --max-context, --max-concurrency, --speed (default 1; speed: as needed)",
        )
        parser.add_argument("--max-context", action="store_true", help="longest context that fits each --gpu/--mac")
        parser.add_argument(
            "--max-concurrency", action="store_true", help="most parallel requests that fit each --gpu/--mac"
        )
        parser.add_argument("--speed", action="store_true", help="decode and prefill tokens/s on each --gpu/--mac")
        parser.add_argument(
            "--price-per-gpu-hour", help="USD per GPU-hour on the first --gpu: cost per month and per million tokens"
        )
        parser.add_argument(
            "--api-price", help="a hosted API's USD per million tokens, INPUT,OUTPUT[,CACHED]: the break-even"
        )
        parser.add_argument("--input-ratio", default="3", help="input tokens per generated token (default 3)")
        parser.add_argument("--cached-share", default="0", help="percent of input the API serves from cache")
        parser.add_argument(
            "--min-tokens-per-s",
            default=str(DEFAULT_MIN_TOKENS_PER_S),
            help="tokens/s each request sees at least: the cost per token and the break-even count the largest batch "
            f"that keeps to it and fits, as the model page does (default {DEFAULT_MIN_TOKENS_PER_S})",
        )
        parser.add_argument("--tp", help="tensor-parallel size for the engine capacity (default: what the need takes)")
        parser.add_argument("--gpu-memory-utilization", help="vLLM gpu_memory_utilization / SGLang mem_fraction_static")
        parser.add_argument("--max-model-len", help="tokens per request the engine is started with (default --context)")
        parser.add_argument("--max-num-seqs", help="most sequences the engine schedules at once")
        parser.add_argument(
            "--offload",
            choices=["auto", "auto-quant"],
            help="llama.cpp split over the first --gpu (× --gpus) and --ram: all on GPU, experts in RAM or N layers; "
            "auto-quant: the largest GGUF type that fits",
        )
        parser.add_argument("--ram", help="system RAM for --offload, e.g. 128GiB or 64GB")
        parser.add_argument(
            "--macos",
            choices=["15", "26"],
            default="15",
            help="the Macs' macOS version: 15 (or earlier) or 26; it sets the GPU's default share of unified memory",
        )
        parser.add_argument("--ram-bandwidth", help="RAM bandwidth in GB/s for --offload (default 89.6: DDR5-5600 ×2)")
        parser.add_argument(
            "--launch", choices=["vllm", "sglang", "llama.cpp", "ollama", "mlx"], help="print the command that runs it"
        )
        parser.add_argument("--json", action="store_true", help="print JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        write_report(estimate_report(options), self.stdout, want_json=options["json"])
