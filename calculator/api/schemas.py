"""What the API takes and answers, as typed classes: django-ninja writes the OpenAPI 3.1 schema from these.

Bytes are integers of bytes; money is USD as a number, beside the day it was captured. The calculator's query
parameters are documented here with the page's bounds (``calculator.state``) but read as text: the one parser in
``calculator.state`` validates them, so the API and the model page accept exactly the same values.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Any

from ninja import Field, Schema
from pydantic import WithJsonSchema

from calculator.estimation import ENGINES, FRAMEWORKS_KEYS, KV_DTYPES, OPTIMIZERS, Mode
from calculator.estimation.engines.releases import LLAMA_CPP_RELEASES, MLX_RELEASES, SGLANG_RELEASES, VLLM_RELEASES
from calculator.estimation.memory.fit import MACOS_VERSIONS
from calculator.estimation.speed.serving import DEFAULT_MIN_TOKENS_PER_S
from calculator.plan_state import MAX_LIST_CHARS
from calculator.plan_state import MAX_VALUE_CHARS as PLAN_VALUE_CHARS
from calculator.state import (
    MAX_BATCH,
    MAX_CONCURRENCY,
    MAX_GPUS,
    MAX_LORA_RANK,
    MAX_MIN_TOKENS_PER_S,
    MAX_VALUE_CHARS,
)

MAX_CONFIG_BYTES = 1024 * 1024
MAX_JSON_DEPTH = 32
MAX_PARAMS = 10**15  # far above any model (10^13 would be ten trillion parameters)


def _documented(schema: dict[str, Any]) -> Any:
    """Text the shared parser reads, shown in the schema as the value it stands for."""
    return Annotated[str | None, WithJsonSchema({**schema, "maxLength": MAX_VALUE_CHARS})]


TOKENS_PATTERN = r"^[0-9]{1,9}(\.[0-9]{1,6})?[kKmM]?$"


class CalculatorQuery(Schema):
    """Every calculator parameter of the model page, with the page's names, defaults and bounds."""

    precision: _documented({"type": "string"}) = Field(  # type: ignore[valid-type]
        None,
        description="fp16 (default), fp8, int8, int4, awq, q8_0, q4_k_m, nf4, mlx-4bit, or build:<slug> of a "
        "published build of the model (GET /models/{org}/{name} lists them)",
    )
    mode: _documented({"type": "string", "enum": [m.value for m in Mode]}) = Field(  # type: ignore[valid-type]
        None, description="inference (default), lora, qlora or full fine-tuning"
    )
    engine: _documented({"type": "string", "enum": list(ENGINES)}) = Field(  # type: ignore[valid-type]
        None, description="serving engine (default vllm)"
    )
    concurrency: _documented({"type": "integer", "minimum": 1, "maximum": MAX_CONCURRENCY}) = Field(  # type: ignore[valid-type]
        None, description="concurrent requests (default 1)"
    )
    context: _documented({"type": "string", "pattern": TOKENS_PATTERN}) = Field(  # type: ignore[valid-type]
        None,
        description="tokens of context per request: 8192, 8K, 128k, 1M (K and M binary; default 8K), at most "
        "the model's context window",
    )
    kv: _documented({"type": "string", "enum": list(KV_DTYPES)}) = Field(  # type: ignore[valid-type]
        None, description="KV-cache precision (default fp16)"
    )
    release: _documented({"type": "string"}) = Field(  # type: ignore[valid-type]
        None,
        description="vLLM release the start-up memory is for: a release (0.19.1) or line ("
        + ", ".join(VLLM_RELEASES)
        + "); default the current line. Ignored by other engines.",
    )
    sglang: _documented({"type": "string"}) = Field(  # type: ignore[valid-type]
        None,
        description="SGLang release its reserve is for: a release (0.4.10) or line ("
        + ", ".join(SGLANG_RELEASES)
        + "); default the current line. Read with engine sglang.",
    )
    llamacpp: _documented({"type": "string"}) = Field(  # type: ignore[valid-type]
        None,
        description="llama.cpp build its caches, margin and flags are for: a build (b7500) or line ("
        + ", ".join(LLAMA_CPP_RELEASES)
        + "); default the current line. Read with engine llama.cpp and by the local sections.",
    )
    mlx_lm: _documented({"type": "string"}) = Field(  # type: ignore[valid-type]
        None,
        description="MLX-LM release its cache is for: a release (0.28.3) or line ("
        + ", ".join(MLX_RELEASES)
        + "); default the current line. Read with engine mlx.",
    )
    batch: _documented({"type": "integer", "minimum": 1, "maximum": MAX_BATCH}) = Field(  # type: ignore[valid-type]
        None, description="fine-tuning: samples per step (default 1)"
    )
    seq: _documented({"type": "string", "pattern": TOKENS_PATTERN}) = Field(  # type: ignore[valid-type]
        None, description="fine-tuning: tokens per sample (default: the context)"
    )
    rank: _documented({"type": "integer", "minimum": 1, "maximum": MAX_LORA_RANK}) = Field(  # type: ignore[valid-type]
        None, description="fine-tuning: LoRA rank (default 8)"
    )
    optimizer: _documented({"type": "string", "enum": list(OPTIMIZERS)}) = Field(  # type: ignore[valid-type]
        None, description="fine-tuning: optimizer (default adamw)"
    )
    framework: _documented({"type": "string", "enum": list(FRAMEWORKS_KEYS)}) = Field(  # type: ignore[valid-type]
        None, description="fine-tuning: framework profile (default transformers: Hugging Face Transformers + PEFT)"
    )
    checkpointing: _documented({"type": "boolean"}) = Field(  # type: ignore[valid-type]
        None, description="fine-tuning: gradient checkpointing (default true)"
    )
    gpu: _documented({"type": "string"}) = Field(  # type: ignore[valid-type]
        None,
        description="hardware for max context / max concurrency: a GPU slug (GET /gpus) or mac-<GB> (default h200-sxm)",
    )
    gpus: _documented({"type": "integer", "minimum": 1, "maximum": MAX_GPUS}) = Field(  # type: ignore[valid-type]
        None, description="how many of that GPU (default 1)"
    )
    ratio: _documented({"type": "number", "minimum": 0, "maximum": 1000}) = Field(  # type: ignore[valid-type]
        None, description="input tokens per generated token, for the API break-even (default 3)"
    )
    cached: _documented({"type": "integer", "minimum": 0, "maximum": 100}) = Field(  # type: ignore[valid-type]
        None, description="percent of input tokens the hosted API has cached (default 0)"
    )
    tps: _documented(  # type: ignore[valid-type]
        {"type": "integer", "minimum": 1, "maximum": MAX_MIN_TOKENS_PER_S}
    ) = Field(
        None,
        description="tokens per second each request sees at least: the break-even counts the largest batch that "
        f"keeps to it and fits (default {DEFAULT_MIN_TOKENS_PER_S})",
    )
    macos: _documented({"type": "string", "enum": list(MACOS_VERSIONS)}) = Field(  # type: ignore[valid-type]
        None,
        description="the Macs' macOS version: 15 (default; also earlier) or 26, which lets the GPU use more of the "
        "unified memory by default (local.macs verdicts and the sysctl value)",
    )


class EstimateQuery(CalculatorQuery):
    model: str = Field(..., max_length=200, description="catalog model id, organisation/name (GET /models)")


# --- errors -------------------------------------------------------------------------------------------------


class ErrorBody(Schema):
    code: str = Field(..., description="machine-readable: bad_parameter, not_found, too_large, ...")
    message: str
    parameters: dict[str, str] = Field(default_factory=dict, description="each bad parameter and what is wrong")


class ErrorOut(Schema):
    error: ErrorBody


# --- estimate -----------------------------------------------------------------------------------------------


class SettingOut(Schema):
    mode: str
    precision: str
    precision_label: str
    engine: str
    context: int
    concurrency: int
    kv: str
    vllm_version: str | None = Field(None, description="the vLLM release line the figures are for (engine vllm)")
    engine_version: str | None = Field(
        None, description="the release line of the engine the figures are for (vLLM, SGLang, llama.cpp, MLX-LM)"
    )
    mode_changed: str = Field(..., description="why the requested mode/precision was replaced; empty when it applies")


class TermOut(Schema):
    key: str
    label: str
    formula: str
    bytes: int
    estimated: bool
    on_gpu: bool
    share: float = Field(..., description="share of the GPU total, 0..1 (0 for terms in host RAM)")
    inputs: dict[str, int | float | str]


class BreakdownOut(Schema):
    total_bytes: int
    host_bytes: int
    per_gpu_bytes: int | None
    precision_used: str
    params_total: int
    params_active: int
    params_source: str
    params_active_source: str
    estimated_fields: list[str]
    warnings: list[str]
    terms: list[TermOut]


class OfferOut(Schema):
    provider: str
    provider_name: str
    gpu: str
    gpu_name: str
    instance_name: str
    region: str
    pricing_kind: str
    gpus_needed: int = Field(..., description="GPUs the memory needs")
    engine_gpus: int | None = Field(
        ..., description="GPUs an engine (vLLM, SGLang) runs the model on: tensor_parallel × pipeline_parallel"
    )
    tensor_parallel: int | None = Field(None, description="tensor-parallel degree of that split")
    pipeline_parallel: int | None = Field(None, description="pipeline stages of that split")
    attention_data_parallel: int | None = Field(
        None,
        description="GPUs that each run attention for their own requests (SGLang --enable-dp-attention, vLLM "
        "--data-parallel-size with --enable-expert-parallel); 1: plain tensor parallelism",
    )
    instance_gpus: int = Field(
        ...,
        description="GPUs in the instance as sold, all billed: per_hour_usd = instance_gpus × price_per_gpu_hour_usd",
    )
    idle_gpus: int | None = Field(None, description="GPUs of the instance the engine's split leaves unused")
    price_per_gpu_hour_usd: float
    per_hour_usd: float
    per_month_usd: float
    captured_at: datetime | date | None
    stale: bool
    confidence: str
    url: str
    tokens_per_s_low: float | None = None
    tokens_per_s_high: float | None = None


class GpuCountOut(Schema):
    gpu_family: str
    gpu_name: str
    memory_bytes: int
    gpus_needed: int
    nodes: int


class GpusOut(Schema):
    need_bytes: int
    by_gpu: list[OfferOut]
    by_provider: list[OfferOut]
    several_nodes: list[GpuCountOut]
    newest_capture: date | None
    any_stale: bool
    any_low_confidence: bool


class SummaryOut(Schema):
    need_bytes: int
    smallest_need_bytes: int
    smallest_label: str
    smallest_mode: str = Field(
        ..., description="the mode of the smallest need: inference on an inference page, a fine-tuning mode otherwise"
    )
    cheapest: OfferOut | None
    fits_one_gpu: bool
    largest_gpu_name: str
    smallest_gpu_name: str


class WeightsSourceOut(Schema):
    kind: str = Field(
        ...,
        description="where the command's weights come from: released (the model's own repository), published (a "
        "published build), on_the_fly (the engine quantizes the 16-bit weights as it loads them), converted (the "
        "first lines make the build), none (no command)",
    )
    model: str = Field(..., description="what the engine is pointed at; empty when kind is none")
    repo: str = Field(..., description="the repository the weights come from")
    quantization: str = Field(..., description="the engine's on-the-fly method (fp8, bitsandbytes), or empty")
    missing: str | None = Field(
        ...,
        description="why there is no command: no_wider_build, no_build, wrong_format, not_from_release or "
        "no_engine_build",
    )
    precision: str = Field(..., description="the precision the command runs")
    released: str = Field(..., description="the precision the model's own repository holds")


class CommandsOut(Schema):
    cloud_engine: str = Field(..., description="the engine the cloud command starts: vllm or sglang")
    cloud: str | None = Field(
        ..., description="shell lines that start the cheapest configuration; null for fine-tuning or when none fits"
    )
    cloud_gpus: int | None = Field(..., description="GPUs the cloud command runs the model on")
    mac_gib: int | None = Field(..., description="unified memory of the smallest Mac that holds the model (MLX)")
    mac: str | None = Field(..., description="shell lines that start it there, with the sysctl line when needed")
    cloud_source: WeightsSourceOut | None = Field(..., description="the cloud command's weights; null with no offer")
    mac_source: WeightsSourceOut | None = Field(..., description="the Mac command's weights")


class MatrixCellOut(Schema):
    mode: str
    precision: str
    need_bytes: int | None


class CardOut(Schema):
    mode: str
    precision: str
    label: str
    need_bytes: int
    ratio_to_fp16_inference: float | None
    cheapest: OfferOut | None


class BuildOut(Schema):
    key: str
    label: str
    format: str
    repo_id: str
    bits_per_weight: float | None
    file_size_bytes: int | None
    need_bytes: int | None
    runtimes: list[str]
    smallest_mac_gib: int | None
    one_gpu: str | None
    gpu_count: int | None
    gpu_count_name: str | None


class ContextPointOut(Schema):
    context: int
    total_bytes: int
    kv_bytes: int


class BudgetOut(Schema):
    label: str
    usable_bytes: int


class HeadroomOut(Schema):
    precision_label: str
    is_current: bool
    gpu_name: str
    usable_bytes: int
    fixed_bytes: int
    left_bytes: int
    tokens: int
    full_context_bytes: int | None
    full_context_fits: bool


class ContextOut(Schema):
    precision_label: str
    points: list[ContextPointOut]
    budgets: list[BudgetOut]
    headroom: HeadroomOut | None


class InverseRowOut(Schema):
    precision: str
    label: str
    max_context: int
    max_concurrency: int


class InverseOut(Schema):
    hardware: str
    is_mac: bool
    budget_bytes: int
    count: int
    context: int
    concurrency: int
    rows: list[InverseRowOut]


class LocalGpuOut(Schema):
    gpu: str
    gpu_name: str
    best: str | None
    best_need_bytes: int | None


class MacOut(Schema):
    ram_gib: int
    verdict: str = Field(..., description="fits, raise (after raising the GPU memory limit) or no")
    best: str | None
    best_need_bytes: int | None
    wired_limit_mb: int | None
    default_limit_bytes: int
    best_key: str | None = Field(None, description="precision key or published build key of best")


class LocalOut(Schema):
    gpus: list[LocalGpuOut]
    macs: list[MacOut]


class RigRowOut(Schema):
    file_type: str = Field(..., description="GGUF file type, e.g. Q4_K_M")
    fits: bool
    placement: str = Field(..., description="gpu, experts_cpu, n_cpu_moe, layers or none")
    gpu_layers: int
    cpu_moe_layers: int
    gpu_bytes: int
    host_bytes: int
    tokens_per_s: float | None = Field(..., description="estimated, one request; null when it does not fit")
    limit: str = Field(..., description="what bounds the speed: gpu_bandwidth, ram_bandwidth, overhead or unknown")


class RigOut(Schema):
    gpu: str
    gpu_name: str
    gpus: int
    ram_gib: int
    context: int
    rows: list[RigRowOut] = Field(..., description="llama.cpp on the machine, widest file type first")
    best_file_type: str | None
    command: str | None = Field(..., description="llama-server for the widest file type that fits")
    source: WeightsSourceOut | None = Field(..., description="where that file comes from; null when nothing fits")


class HostedOut(Schema):
    route: str
    provider: str
    input_per_million_usd: float
    cached_input_per_million_usd: float
    output_per_million_usd: float
    intro_in_force: bool
    intro_expired: bool
    captured_on: date | None
    confidence: str
    source_publisher: str
    source_title: str
    source_url: str


class SustainedOut(Schema):
    concurrency: int = Field(..., description="requests at a time the configuration holds at the floor")
    tokens_per_s: float = Field(..., description="all of them together, low end of the estimate")
    per_request_tokens_per_s: float = Field(..., description="what each request sees, low end")
    limit: str = Field(..., description="what stops a larger batch: memory, latency (the floor) or batch (256)")
    meets_floor: bool = Field(..., description="false when even one request is slower than the floor")


class BreakEvenOut(Schema):
    self_host: OfferOut | None
    tokens_per_s: float | None = Field(..., description="self-host throughput at the sustained batch")
    sustained: SustainedOut | None
    min_tokens_per_s: int = Field(..., description="the per-request floor (tps)")
    self_host_per_million_output_usd: float | None = Field(
        ..., description="the self-host month over the tokens it generates at the sustained batch"
    )
    hosted: list[HostedOut]
    input_tokens_per_output_token: float
    cached_input_share: float
    api_per_million_output_usd: float | None
    break_even_output_tokens_per_month: float | None
    self_host_capacity_tokens_per_month: float | None
    self_host_can_reach_break_even: bool | None


class FaqItemOut(Schema):
    key: str
    question: str
    answer: str = Field(..., description="plain text, in English like every label of the API")


class AccuracyOut(Schema):
    checks: str = Field(..., description="which figure: memory, decode (per request), load (under load), finetune")
    kind: str = Field(..., description="the validation matrix's kind of measurement (GET /validation lists them)")
    engine: str
    family: str | None = Field(..., description="architecture family of the rows; null: every family of the engine")
    published_runs: int
    within_percent: int = Field(..., description="nine of ten published runs are within ± this percent")
    within_tolerance: int = Field(..., description="runs within the matrix's own tolerance for the kind")


class EstimateOut(Schema):
    model: str | None = Field(..., description="catalog id; null for an inline config")
    parameters: dict[str, Any] = Field(..., description="the calculator state the numbers are for")
    setting: SettingOut
    accuracy: list[AccuracyOut] = Field(
        ..., description="how close these figures came to published measurements (the validation matrix)"
    )
    breakdown: BreakdownOut
    summary: SummaryOut
    gpus: GpusOut
    commands: CommandsOut
    matrix: list[MatrixCellOut]
    precision_cards: list[CardOut]
    mode_cards: list[CardOut]
    builds: list[BuildOut]
    context: ContextOut
    inverse: InverseOut | None
    local: LocalOut
    rig: RigOut | None = Field(
        ..., description="the reader's machine (rig, rig_gpus, ram): where llama.cpp puts each file type, how fast"
    )
    api: BreakEvenOut
    faq: list[FaqItemOut] = Field(..., description="the model's common questions, answered from these figures")


class InlineConfig(Schema):
    """An inline model: the Hub's config.json, with parameter counts where the config alone does not say."""

    config: dict[str, Any] = Field(..., description="the model's config.json as published")
    params_total: int | None = Field(None, ge=1, le=MAX_PARAMS)
    params_active: int | None = Field(None, ge=1, le=MAX_PARAMS)


# --- plan ---------------------------------------------------------------------------------------------------


def _plan_field(schema: dict[str, Any], max_chars: int = PLAN_VALUE_CHARS) -> Any:
    """A planner parameter, documented with the length the planner's own parser accepts (calculator/plan_state.py)."""
    return Annotated[str | None, WithJsonSchema({**schema, "maxLength": max_chars})]


class PlanQuery(Schema):
    model: str = Field(..., max_length=200, description="catalog model id, organisation/name (GET /models)")
    out: _plan_field({"type": "string"}) = Field(  # type: ignore[valid-type]
        None, description="output tokens a month: 500M, 1B, 2.5T (decimal K/M/B/T; default 1B)"
    )
    ratio: _plan_field({"type": "number", "minimum": 0, "maximum": 1000}) = Field(  # type: ignore[valid-type]
        None, description="input tokens per output token (default 3)"
    )
    cached: _plan_field({"type": "integer", "minimum": 0, "maximum": 100}) = Field(  # type: ignore[valid-type]
        None, description="percent of input served from a prefix cache (default 0)"
    )
    olen: _plan_field({"type": "integer", "minimum": 1, "maximum": 65536}) = Field(  # type: ignore[valid-type]
        None, description="output tokens per request (default 1000)"
    )
    peak: _plan_field({"type": "number", "minimum": 1, "maximum": 100}) = Field(  # type: ignore[valid-type]
        None, description="peak over the average rate (default 2)"
    )
    ttft: _plan_field({"type": "number", "minimum": 0.01, "maximum": 600}) = Field(  # type: ignore[valid-type]
        None, description="time to first token under steady load at the percentile `pct`, seconds (default 2)"
    )
    tpot: _plan_field({"type": "integer", "minimum": 1, "maximum": 10000}) = Field(  # type: ignore[valid-type]
        None, description="time per output token under steady load at the percentile `pct`, milliseconds (default 50)"
    )
    engine: _plan_field({"type": "string", "enum": ["vllm", "sglang"]}) = Field(  # type: ignore[valid-type]
        None, description="the engine each rented replica runs (default vllm)"
    )
    pct: _plan_field({"type": "integer", "enum": [50, 95]}) = Field(  # type: ignore[valid-type]
        None, description="the percentile the latency targets hold at: 50 (median, default) or 95"
    )
    spot: _plan_field({"type": "integer", "enum": [0, 1]}) = Field(  # type: ignore[valid-type]
        None, description="1: spot (interruptible) offers count too, marked as such (default 0: on-demand only)"
    )
    x: _plan_field({"type": "string"}, MAX_LIST_CHARS) = Field(  # type: ignore[valid-type]
        None, description="providers to leave out, comma-separated slugs (GET /providers), e.g. aws,gcp"
    )
    years: _plan_field({"type": "number", "minimum": 1, "maximum": 15}) = Field(  # type: ignore[valid-type]
        None, description="years an owned server is written off over (default 5)"
    )
    kwh: _plan_field({"type": "number", "minimum": 0, "maximum": 2}) = Field(  # type: ignore[valid-type]
        None, description="energy price, USD per kWh (default 0.0895)"
    )
    pue: _plan_field({"type": "number", "minimum": 1, "maximum": 3}) = Field(  # type: ignore[valid-type]
        None, description="the data centre's power usage effectiveness (default 1.54)"
    )
    colo: _plan_field({"type": "number", "minimum": 0, "maximum": 5000}) = Field(  # type: ignore[valid-type]
        None, description="colocation, USD per kW of rated server power a month (default 184.06)"
    )
