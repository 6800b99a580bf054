"""What the API takes: the calculator's and the planner's query parameters, and an inline model's body.

The calculator's query parameters are documented here with the page's bounds (``calculator.state``) but read as
text: the one parser in ``calculator.state`` validates them, so the API and the model page accept exactly the same
values. Each such field is ``Annotated[str | None, _documented(schema)]``: text to pydantic, the value it stands for
in the OpenAPI schema (pydantic's ``WithJsonSchema``).
"""

from __future__ import annotations

from typing import Annotated, Any

from ninja import Field, Schema
from pydantic import WithJsonSchema

from calculator.estimation import ENGINES, FRAMEWORKS_KEYS, KV_DTYPES, OPTIMIZERS, Mode
from calculator.estimation.engines.releases import LLAMA_CPP_RELEASES, MLX_RELEASES, SGLANG_RELEASES, VLLM_RELEASES
from calculator.estimation.memory.fit import MACOS_VERSIONS
from calculator.estimation.plan.planner import DEFAULT_MIN_TOKENS_PER_S
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


def _documented(schema: dict[str, Any]) -> WithJsonSchema:
    """Text the shared parser reads (a field typed ``Annotated[str | None, _documented(...)]``), shown in the schema
    as the value it stands for."""
    return WithJsonSchema({**schema, "maxLength": MAX_VALUE_CHARS})


TOKENS_PATTERN = r"^[0-9]{1,9}(\.[0-9]{1,6})?[kKmM]?$"


class CalculatorQuery(Schema):
    """Every calculator parameter of the model page, with the page's names, defaults and bounds."""

    precision: Annotated[str | None, _documented({"type": "string"})] = Field(
        None,
        description="`fp16` (default), `fp8`, `int8`, `int4`, `awq`, `q8_0`, `q4_k_m`, `nf4`, `mlx-4bit`, or "
        "`build:<slug>` of a published build of the model (`GET /models/{org}/{name}` lists them)",
    )
    mode: Annotated[str | None, _documented({"type": "string", "enum": [m.value for m in Mode]})] = Field(
        None, description="`inference` (default), `lora`, `qlora` or `full` fine-tuning"
    )
    engine: Annotated[str | None, _documented({"type": "string", "enum": list(ENGINES)})] = Field(
        None, description="serving engine (default `vllm`)"
    )
    concurrency: Annotated[str | None, _documented({"type": "integer", "minimum": 1, "maximum": MAX_CONCURRENCY})] = (
        Field(None, description="concurrent requests (default 1)")
    )
    context: Annotated[str | None, _documented({"type": "string", "pattern": TOKENS_PATTERN})] = Field(
        None,
        description="tokens of context per request: `8192`, `8K`, `128K`, `1M` (K and M binary; default `8K`), at most "
        "the model's context window",
    )
    kv: Annotated[str | None, _documented({"type": "string", "enum": list(KV_DTYPES)})] = Field(
        None, description="KV-cache precision (default `fp16`)"
    )
    mtp: Annotated[str | None, _documented({"type": "boolean"})] = Field(
        None,
        description="speculative decoding with the model's own multi-token-prediction layers as the draft (vLLM and "
        "SGLang, models that have them; default `false`): their weights and cache count, decoding speeds up",
    )
    release: Annotated[str | None, _documented({"type": "string"})] = Field(
        None,
        description="vLLM release the start-up memory is for: a release (`0.19.1`) or line ("
        + ", ".join(f"`{r}`" for r in VLLM_RELEASES)
        + "); default the current line. Ignored by other engines.",
    )
    sglang: Annotated[str | None, _documented({"type": "string"})] = Field(
        None,
        description="SGLang release its reserve is for: a release (`0.4.10`) or line ("
        + ", ".join(f"`{r}`" for r in SGLANG_RELEASES)
        + "); default the current line. Read with engine `sglang`.",
    )
    llamacpp: Annotated[str | None, _documented({"type": "string"})] = Field(
        None,
        description="llama.cpp build its caches, margin and flags are for: a build (`b7500`) or line ("
        + ", ".join(f"`{r}`" for r in LLAMA_CPP_RELEASES)
        + "); default the current line. Read with engine `llama.cpp` and by the local sections.",
    )
    mlx_lm: Annotated[str | None, _documented({"type": "string"})] = Field(
        None,
        description="MLX-LM release its cache is for: a release (`0.28.3`) or line ("
        + ", ".join(f"`{r}`" for r in MLX_RELEASES)
        + "); default the current line. Read with engine `mlx`.",
    )
    batch: Annotated[str | None, _documented({"type": "integer", "minimum": 1, "maximum": MAX_BATCH})] = Field(
        None, description="fine-tuning: samples per step (default 1)"
    )
    seq: Annotated[str | None, _documented({"type": "string", "pattern": TOKENS_PATTERN})] = Field(
        None, description="fine-tuning: tokens per sample (default: the context)"
    )
    rank: Annotated[str | None, _documented({"type": "integer", "minimum": 1, "maximum": MAX_LORA_RANK})] = Field(
        None, description="fine-tuning: LoRA rank (default 8)"
    )
    optimizer: Annotated[str | None, _documented({"type": "string", "enum": list(OPTIMIZERS)})] = Field(
        None, description="fine-tuning: optimizer (default `adamw`)"
    )
    framework: Annotated[str | None, _documented({"type": "string", "enum": list(FRAMEWORKS_KEYS)})] = Field(
        None, description="fine-tuning: framework profile (default `transformers`: Hugging Face Transformers + PEFT)"
    )
    checkpointing: Annotated[str | None, _documented({"type": "boolean"})] = Field(
        None, description="fine-tuning: gradient checkpointing (default `true`)"
    )
    gpu: Annotated[str | None, _documented({"type": "string"})] = Field(
        None,
        description="hardware for max context / max concurrency: a GPU slug (`GET /gpus`) or `mac-<GB>` (default "
        "`h200-sxm`)",
    )
    gpus: Annotated[str | None, _documented({"type": "integer", "minimum": 1, "maximum": MAX_GPUS})] = Field(
        None, description="how many of that GPU (default 1)"
    )
    ratio: Annotated[str | None, _documented({"type": "number", "minimum": 0, "maximum": 1000})] = Field(
        None, description="input tokens per generated token, for the API break-even (default 3)"
    )
    cached: Annotated[str | None, _documented({"type": "integer", "minimum": 0, "maximum": 100})] = Field(
        None, description="percent of input tokens the hosted API has cached (default 0)"
    )
    tps: Annotated[str | None, _documented({"type": "integer", "minimum": 1, "maximum": MAX_MIN_TOKENS_PER_S})] = Field(
        None,
        description="tokens per second each request sees at least: the break-even counts the largest batch that "
        f"keeps to it and fits (default {DEFAULT_MIN_TOKENS_PER_S})",
    )
    macos: Annotated[str | None, _documented({"type": "string", "enum": list(MACOS_VERSIONS)})] = Field(
        None,
        description="the Macs' macOS version: `15` (default; also earlier) or `26`, which lets the GPU use more of the "
        "unified memory by default (`local.macs` verdicts and the sysctl value)",
    )


class EstimateQuery(CalculatorQuery):
    model: str = Field(..., max_length=200, description="catalog model id, organisation/name (`GET /models`)")


class InlineConfig(Schema):
    """An inline model: the Hub's config.json, with parameter counts where the config alone does not say."""

    config: dict[str, Any] = Field(..., description="the model's config.json as published")
    params_total: int | None = Field(None, ge=1, le=MAX_PARAMS)
    params_active: int | None = Field(None, ge=1, le=MAX_PARAMS)


# --- plan ---------------------------------------------------------------------------------------------------


def _plan_field(schema: dict[str, Any], max_chars: int = PLAN_VALUE_CHARS) -> WithJsonSchema:
    """A planner parameter (typed ``Annotated[str | None, _plan_field(...)]``), documented with the length the
    planner's own parser accepts (calculator/plan_state.py)."""
    return WithJsonSchema({**schema, "maxLength": max_chars})


class PlanQuery(Schema):
    model: str = Field(..., max_length=200, description="catalog model id, organisation/name (`GET /models`)")
    out: Annotated[str | None, _plan_field({"type": "string"})] = Field(
        None, description="output tokens a month: `500M`, `1B`, `2.5T` (decimal K/M/B/T; default `1B`)"
    )
    ratio: Annotated[str | None, _plan_field({"type": "number", "minimum": 0, "maximum": 1000})] = Field(
        None, description="input tokens per output token (default 3)"
    )
    cached: Annotated[str | None, _plan_field({"type": "integer", "minimum": 0, "maximum": 100})] = Field(
        None, description="percent of input served from a prefix cache (default 0)"
    )
    olen: Annotated[str | None, _plan_field({"type": "integer", "minimum": 1, "maximum": 65536})] = Field(
        None, description="output tokens per request (default 1000)"
    )
    peak: Annotated[str | None, _plan_field({"type": "number", "minimum": 1, "maximum": 100})] = Field(
        None, description="peak over the average rate (default 2)"
    )
    ttft: Annotated[str | None, _plan_field({"type": "number", "minimum": 0.01, "maximum": 600})] = Field(
        None, description="time to first token under steady load at the percentile `pct`, seconds (default 2)"
    )
    tpot: Annotated[str | None, _plan_field({"type": "integer", "minimum": 1, "maximum": 10000})] = Field(
        None, description="time per output token under steady load at the percentile `pct`, milliseconds (default 50)"
    )
    engine: Annotated[str | None, _plan_field({"type": "string", "enum": ["vllm", "sglang"]})] = Field(
        None, description="the engine each rented replica runs (default `vllm`)"
    )
    pct: Annotated[str | None, _plan_field({"type": "integer", "enum": [50, 95]})] = Field(
        None, description="the percentile the latency targets hold at: `50` (median, default) or `95`"
    )
    spot: Annotated[str | None, _plan_field({"type": "integer", "enum": [0, 1]})] = Field(
        None, description="`1`: spot (interruptible) offers count too, marked as such (default `0`: on-demand only)"
    )
    x: Annotated[str | None, _plan_field({"type": "string"}, MAX_LIST_CHARS)] = Field(
        None, description="providers to leave out, comma-separated slugs (`GET /providers`), e.g. `aws,gcp`"
    )
    years: Annotated[str | None, _plan_field({"type": "number", "minimum": 1, "maximum": 15})] = Field(
        None, description="years an owned server is written off over (default 5)"
    )
    kwh: Annotated[str | None, _plan_field({"type": "number", "minimum": 0, "maximum": 2})] = Field(
        None, description="energy price, USD per kWh (default 0.0895)"
    )
    pue: Annotated[str | None, _plan_field({"type": "number", "minimum": 1, "maximum": 3})] = Field(
        None, description="the data centre's power usage effectiveness (default 1.54)"
    )
    colo: Annotated[str | None, _plan_field({"type": "number", "minimum": 0, "maximum": 5000})] = Field(
        None, description="colocation, USD per kW of rated server power a month (default 184.06)"
    )
