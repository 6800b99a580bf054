"""What ``estimate`` and ``rank`` read from the command line, parsed once for both.

Every bad value ends the command with one line naming the argument and exit status 2, as argparse does for
its own usage errors; no value reaches the core unchecked (NaN, infinities and absurd sizes included).
"""

from __future__ import annotations

import difflib
import json
import math
import re
import sys
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import cache
from pathlib import Path
from typing import Any, NoReturn

from django.core.management.base import CommandError, CommandParser
from django.utils import translation

from calculator import release_names
from calculator.estimation import (
    ENGINES,
    FRAMEWORKS_KEYS,
    GIB,
    KV_DTYPES,
    MODES,
    EngineProfile,
    Framework,
    Mode,
    Workload,
    get_engine,
    get_kv_dtype,
    get_precision,
)
from calculator.estimation.engines.builds import released_precision
from calculator.estimation.engines.releases import (
    CURRENT_LLAMA_CPP,
    CURRENT_MLX,
    CURRENT_SGLANG,
    CURRENT_VLLM,
    ENGINE_RELEASE_LINES,
    release_label,
)
from calculator.estimation.memory.applicability import choose_mode
from calculator.labels import MODE_CHANGES
from calculator.state import parse_tokens
from models_catalog.architecture import ModelSpec
from models_catalog.specs import SpecUnavailable, param_counts, spec_from_config, spec_from_recorded_folder
from pricing.gpus import FORMER_FAMILIES, GpuSpec, PrefillRun, family_slug, load_gpus, successor_slug

HUB_DIR = Path(__file__).resolve().parents[2] / "models_catalog" / "data" / "hub"
USAGE_EXIT = 2
MAX_CONTEXT = 1 << 24  # 16M tokens: beyond any released model
MAX_CONCURRENCY = 1 << 16
MAX_PARAMS = 10**15
MAX_GPUS = 1024
MAX_MAC_GB = 4096
MAC_SLUG = re.compile(r"^mac[-_ ]?(\d+)(?:[-_ ]?gb)?$")
SIZED_CHIP = re.compile(r"^(.+)-(\d+)-?gb$")  # "apple-m3-ultra-256-gb": a chip with that much memory
_COUNT = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?(?:e[0-9]+)?)\s*([kmbt]?)\s*$", re.IGNORECASE)
_SUFFIX = {"": 1, "k": 10**3, "m": 10**6, "b": 10**9, "t": 10**12}
UNIFIED_SEGMENTS = ("apple", "unified-desktop")


# The command line's release options: option key, flag, engine, and what it expects.
VERSION_OPTIONS = (
    ("vllm_version", "--vllm-version", "vllm", "a vLLM release from 0.7 on"),
    ("sglang_version", "--sglang-version", "sglang", "an SGLang release from 0.4 on"),
    ("llamacpp_version", "--llamacpp-version", "llama.cpp", "a llama.cpp build from b5429 on"),
    ("mlx_version", "--mlx-version", "mlx", "an MLX-LM release from 0.22.2 on"),
)


def usage_error(argument: str, message: str) -> CommandError:
    return CommandError(f"{argument}: {message}", returncode=USAGE_EXIT)


def one_line_errors(parser: CommandParser) -> CommandParser:
    """argparse's own errors (unknown flag, missing value) as one line with exit 2, without the usage block."""

    def error(message: str) -> NoReturn:
        if parser.called_from_command_line:
            sys.stderr.write(f"{parser.prog}: error: {message}\n")
            sys.exit(USAGE_EXIT)
        raise CommandError(message, returncode=USAGE_EXIT)

    parser.error = error  # type: ignore[method-assign]
    return parser


def parse_count(argument: str, text: str) -> int:
    """``8030261248``, ``8.03e9``, ``321.3B``, ``25.4b`` → parameters."""
    match = _COUNT.match(text)
    if not match:
        raise usage_error(argument, f"expected a parameter count such as 8.03e9 or 321.3B, got {text!r}")
    number = float(match.group(1)) * _SUFFIX[match.group(2).lower()]
    if not math.isfinite(number) or not 1 <= number <= MAX_PARAMS:
        raise usage_error(argument, f"must be between 1 and {MAX_PARAMS:.0e}, got {text!r}")
    return round(number)


def parse_int(argument: str, text: str, upper: int, lower: int = 1) -> int:
    try:
        value = int(text.strip().replace("_", ""))
    except ValueError:
        raise usage_error(argument, f"expected a whole number, got {text!r}") from None
    if not lower <= value <= upper:
        raise usage_error(argument, f"must be between {lower:,} and {upper:,}, got {value:,}")
    return value


def parse_tokens_argument(argument: str, text: str, upper: int = MAX_CONTEXT) -> int:
    """A token count as the model page reads it: 32768, 8K, 128K, 1M (K and M binary, as windows are published)."""
    tokens = parse_tokens(text)
    if tokens is None:
        raise usage_error(argument, f"expected a token count such as 8192, 8K, 128K or 1M, got {text!r}")
    if not 1 <= tokens <= upper:
        raise usage_error(argument, f"must be between 1 and {upper:,} tokens, got {tokens:,}")
    return tokens


def parse_decimal(argument: str, text: str, upper: Decimal, *, allow_zero: bool = False) -> Decimal:
    """A finite decimal in (0, upper] (or [0, upper]); NaN, infinities, signs and words are refused."""
    try:
        value = Decimal(text.strip())
    except InvalidOperation:
        raise usage_error(argument, f"expected a number, got {text!r}") from None
    if not value.is_finite():
        raise usage_error(argument, f"expected a finite number, got {text!r}")
    if value < 0 or (value == 0 and not allow_zero):
        raise usage_error(argument, f"must be positive, got {text!r}")
    if value > upper:
        raise usage_error(argument, f"must be at most {upper:,}, got {text!r}")
    return value


def parse_fraction(argument: str, text: str) -> float:
    """A share in (0, 1], such as vLLM's gpu_memory_utilization."""
    return float(parse_decimal(argument, text, Decimal(1)))


# --- models -------------------------------------------------------------------------------------------------


@cache
def catalog_ids() -> dict[str, str]:
    """Recorded catalog ids by their lower-case spelling (Hub ids are case-insensitive)."""
    found: dict[str, str] = {}
    if HUB_DIR.is_dir():
        for config in HUB_DIR.glob("*/*/config.json"):
            model_id = f"{config.parent.parent.name}/{config.parent.name}"
            found[model_id.lower()] = model_id
    return found


def load_spec(model: str, params: int | None, active: int | None) -> tuple[str, ModelSpec, bool]:
    """(display name, spec, whether the counts were overridden) for a catalog id or a config.json path."""
    path = Path(model)
    overridden = params is not None or active is not None
    try:
        if path.suffix == ".json" or path.is_file():
            if not path.is_file():
                raise usage_error("model", f"no such file {model!r}")
            try:
                config = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
                raise usage_error("model", f"cannot read {path}: {exc}".replace("\n", " ")) from None
            counts = param_counts(params, active, active_given=active is not None)
            return str(path), spec_from_config(config, counts), overridden
        model_id = catalog_ids().get(model.strip().strip("/").lower())
        if model_id is None:
            raise usage_error("model", f"{model!r} is neither a catalog model id nor a path to a config.json")
        return model_id, spec_from_recorded_folder(HUB_DIR / model_id, params, active), overridden
    except SpecUnavailable as unavailable:
        raise usage_error("model", f"cannot size {model}: {unavailable}") from None


# --- hardware -----------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Machine:
    """One machine whose GPU shares the system's unified memory (a Mac, DGX Spark, a Strix Halo box).

    It is never stacked like GPUs: the need fits its one memory or it does not. Apple sells unified memory in
    GiB ("128 GB" = 128 × 2^30 bytes); the other boxes keep the decimal size their data row gives."""

    slug: str
    name: str
    memory_bytes: int
    apple: bool
    memory_bandwidth_gbps: float | None = None
    bf16_dense_tflops: float | None = None
    fp8_dense_tflops: float | None = None
    fp4_dense_tflops: float | None = None
    reported_capacity_bytes: int | None = None  # GpuSpec.capacity_bytes of the catalog row it comes from
    # The rest of what the speed model reads (core SpeedHardware); machine_from_gpu does not carry them over from the
    # catalog row, so the speed model takes its CUDA engine profiles and no measured prefill run for a machine.
    vendor: str = ""
    segment: str = ""
    form_factor: str | None = None
    fp16_tensor_dense_tflops: float | None = None
    prefill_run: PrefillRun | None = None

    @property
    def short_name(self) -> str:
        return self.name

    @property
    def capacity_bytes(self) -> int:
        """The memory its GPU may address: what the runtime reports for the machine's GPU record (a DGX Spark, a
        Strix Halo box), else the whole unified memory (a Mac; its limits come on top)."""
        return self.reported_capacity_bytes or self.memory_bytes


Hardware = GpuSpec | Machine


def machine_from_gpu(gpu: GpuSpec, ram_gb: float | None = None) -> Machine:
    apple = gpu.segment == "apple"
    size = ram_gb if ram_gb is not None else gpu.memory_gb
    memory = round(size * GIB) if apple else gpu.memory_bytes
    name = f"{gpu.short_name or gpu.name} {size:g} GB" if apple else gpu.short_name or gpu.name
    return Machine(
        slug=gpu.slug,
        name=name,
        memory_bytes=memory,
        apple=apple,
        memory_bandwidth_gbps=gpu.memory_bandwidth_gbps,
        bf16_dense_tflops=gpu.bf16_dense_tflops,
        fp8_dense_tflops=gpu.fp8_dense_tflops,
        fp4_dense_tflops=gpu.fp4_dense_tflops,
        reported_capacity_bytes=None if apple or ram_gb is not None else gpu.capacity_bytes,
    )


def mac(ram_gib: int) -> Machine:
    """A Mac of ``ram_gib`` GB unified memory whose chip is not named (its bandwidth is then unknown)."""
    return Machine(slug=f"mac-{ram_gib}", name=f"Mac {ram_gib} GB", memory_bytes=ram_gib * GIB, apple=True)


def as_hardware(gpu: GpuSpec) -> Hardware:
    return machine_from_gpu(gpu) if gpu.segment in UNIFIED_SEGMENTS else gpu


@cache
def _gpu_names() -> dict[str, GpuSpec]:
    """Every spelling a reader may use for a GPU: its slug and the names the output prints, normalised."""
    names: dict[str, GpuSpec] = {}
    for gpu in load_gpus():
        for spelling in (gpu.slug, gpu.name, gpu.short_name, gpu.family):
            names.setdefault(family_slug(spelling), gpu)  # file order: the first of a family answers
    by_slug = {gpu.slug: gpu for gpu in load_gpus()}
    for former in FORMER_FAMILIES:  # "H100 80GB", printed before the form factors were told apart: the SXM part
        successor = by_slug.get(successor_slug(former) or "")
        if successor is not None:
            names.setdefault(former, successor)
    return names


def gpu_slugs() -> list[str]:
    return [gpu.slug for gpu in load_gpus()]


def _unique_partial_match(key: str, argument: str, text: str) -> GpuSpec | None:
    """A shortened name ("DGX Spark", "Ryzen AI Max+ 395") when whole words of it name one GPU family only."""
    found: dict[str, GpuSpec] = {}
    for name, gpu in _gpu_names().items():
        if f"-{key}-" in f"-{name}-":
            found.setdefault(gpu.family or gpu.slug, gpu)
    if len(found) > 1:
        slugs = ", ".join(gpu.slug for gpu in found.values())
        raise usage_error(argument, f"{text!r} names several GPUs ({slugs}); say which")
    return next(iter(found.values()), None)


def find_hardware(text: str, argument: str = "--gpu") -> Hardware:
    """A GPU by slug or printed name ("h100-sxm", "H100 SXM 80GB", "Apple M2 Max 96 GB"), or a Mac by size ("mac-128");
    a name printed before form factors were told apart ("H100 80GB") is the part it now stands for (the SXM)."""
    key = family_slug(text)
    mac_size = MAC_SLUG.match(key)
    if mac_size:
        return mac(parse_int(argument, mac_size.group(1), MAX_MAC_GB, lower=8))
    gpu = _gpu_names().get(key)
    sized = SIZED_CHIP.match(key)
    if gpu is None and sized:
        chip = _gpu_names().get(sized.group(1))
        if chip is not None and chip.segment == "apple":
            return machine_from_gpu(chip, parse_int(argument, sized.group(2), MAX_MAC_GB, lower=8))
    if gpu is None:
        gpu = _unique_partial_match(key, argument, text)
    if gpu is None:
        close = difflib.get_close_matches(key, gpu_slugs(), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else "; see --help for the slugs"
        raise usage_error(argument, f"unknown GPU {text!r}{hint}")
    return as_hardware(gpu)


# --- the calculator's options -------------------------------------------------------------------------------


def add_workload_arguments(parser: CommandParser) -> None:
    """The model page's settings, spelled as the page and the engines spell them."""
    parser.add_argument("--params", help="total parameters, overriding the recorded count (8.03e9, 321.3B)")
    parser.add_argument("--active-params", help="parameters active per token (MoE)")
    parser.add_argument(
        "--precision",
        help="fp32 fp16 bf16 fp8 int8 int4 nf4 mxfp4 nvfp4 awq gptq mlx-2bit … mlx-8bit, or a GGUF type "
        "(Q4_K_M, IQ4_XS); default: the precision the model ships in (fp16 for BF16 / FP16 releases; QLoRA: int4)",
    )
    parser.add_argument("--mode", default="inference", help=" | ".join(MODES))
    parser.add_argument("--context", default="8192", help="tokens per request: 8192, 8K, 128K, 1M")
    parser.add_argument("--concurrency", default="1", help="requests served in parallel")
    parser.add_argument("--engine", help=" | ".join(ENGINES) + " (default: --launch's engine, else vllm)")
    parser.add_argument("--kv-dtype", default="fp16", help=" | ".join(KV_DTYPES))
    parser.add_argument(
        "--mtp",
        action="store_true",
        help="speculative decoding with the model's own MTP layers as the draft (vLLM and SGLang)",
    )
    parser.add_argument(
        "--vllm-version",
        default=CURRENT_VLLM.key,
        help="the vLLM release the start-up memory is for: 0.7 … " + CURRENT_VLLM.key + " (default: the current one)",
    )
    parser.add_argument(
        "--sglang-version",
        default=CURRENT_SGLANG.key,
        help="the SGLang release whose memory defaults the estimate and the engine capacity follow: 0.4.0 … "
        "(default: the current one)",
    )
    parser.add_argument(
        "--llamacpp-version",
        default=CURRENT_LLAMA_CPP.key,
        help="the llama.cpp build its caches, free margin and flags are for: b5429 … (default: the current one)",
    )
    parser.add_argument(
        "--mlx-version",
        default=CURRENT_MLX.key,
        help="the MLX-LM release whose cache the estimate follows: 0.22.2 … (default: the current one)",
    )
    parser.add_argument(
        "--framework",
        default="transformers",
        help="fine-tuning framework: " + " | ".join(FRAMEWORKS_KEYS) + " (default transformers: Hugging Face + PEFT)",
    )


@dataclass(frozen=True, slots=True)
class Request:
    """The workload to estimate, and how it differs from what was asked (``choose_mode``'s one rule)."""

    model: str
    spec: ModelSpec
    overridden: bool
    workload: Workload
    precision_label: str
    engine_name: str
    requested_mode: str
    requested_precision: str
    applies: bool
    reason: str  # a key of calculator.labels.MODE_CHANGES, "" when the pair applies


def _engine_option(options: dict[str, Any]) -> EngineProfile:
    """--engine, else the engine --launch starts (one plan: a command is sized under its own engine), else vLLM."""
    launch = options.get("launch")
    options["engine"] = options.get("engine") or (launch if launch in ENGINES else None) or "vllm"
    engine = get_engine(options["engine"])
    if engine is None:
        raise usage_error("--engine", f"expected one of {', '.join(ENGINES)}, got {options['engine']!r}")
    return engine


def read_request(options: dict[str, Any], **workload_fields: Any) -> Request:
    """Checks every workload option, then loads the model (so a typo in a flag is reported before any I/O)."""
    asked_precision = options.get("precision")
    precision = get_precision(asked_precision or "fp16")
    if precision is None:
        raise usage_error("--precision", f"unknown precision {asked_precision!r}")
    try:
        mode = Mode(str(options["mode"]).strip().lower())
    except ValueError:
        raise usage_error("--mode", f"expected one of {', '.join(MODES)}, got {options['mode']!r}") from None
    engine = _engine_option(options)
    kv_dtype = get_kv_dtype(options["kv_dtype"])
    if kv_dtype is None:
        raise usage_error("--kv-dtype", f"expected one of {', '.join(KV_DTYPES)}, got {options['kv_dtype']!r}")
    lines: dict[str, str] = {}
    for key, flag, engine_key, wanted in VERSION_OPTIONS:
        asked = str(options.get(key) or ENGINE_RELEASE_LINES[engine_key].current)
        if not release_names.covered(engine_key, asked):
            raise usage_error(flag, f"expected {wanted}, got {asked!r}")
        lines[engine_key] = ENGINE_RELEASE_LINES[engine_key].line_of(asked)
    framework = str(options.get("framework") or "transformers").strip().lower()
    if framework not in FRAMEWORKS_KEYS:
        raise usage_error("--framework", f"expected one of {', '.join(FRAMEWORKS_KEYS)}, got {framework!r}")
    context = parse_tokens_argument("--context", options["context"])
    concurrency = parse_int("--concurrency", options["concurrency"], MAX_CONCURRENCY)
    params = parse_count("--params", options["params"]) if options.get("params") is not None else None
    active = parse_count("--active-params", options["active_params"]) if options.get("active_params") else None
    name, spec, overridden = load_spec(options["model"], params, active)
    if asked_precision is None:  # the precision the model's repository ships, as on its page and in the API
        precision = get_precision(released_precision(spec.native_dtype)) or precision
    choice = choose_mode(mode, precision.key)
    # an unasked precision is the mode's own: QLoRA on its 4-bit base is what was asked, not a correction
    applies = choice.applies or asked_precision is None
    used = get_precision(choice.precision) or precision
    workload = Workload(
        mode=choice.mode,
        precision=used.key,
        context=context,
        concurrency=concurrency,
        engine=engine.key,
        kv_dtype=kv_dtype.key,
        engine_release=lines.get(engine.key, ""),
        framework=Framework(framework),
        mtp_draft=bool(options.get("mtp")),
        **workload_fields,
    )
    return Request(
        model=name,
        spec=spec,
        overridden=overridden,
        workload=workload,
        precision_label=used.label,
        engine_name=release_label(engine.key, lines.get(engine.key, "")) or engine.name,
        requested_mode=str(mode),
        requested_precision=precision.key if asked_precision is not None else used.key,
        applies=applies,
        reason="" if applies else choice.reason,
    )


def mode_change_note(request: Request) -> str | None:
    """The page's sentence for a changed pair, in English as the commands speak it."""
    if not request.reason:
        return None
    with translation.override("en"):
        return str(MODE_CHANGES[request.reason])


def mode_change_json(request: Request) -> dict[str, Any]:
    return {
        "requested_mode": request.requested_mode,
        "requested_precision": request.requested_precision,
        "applies": request.applies,
        "reason": request.reason or None,
        "note": mode_change_note(request),
    }
