"""Where the API's answer meets prices: the offers ranked for a need, the cheapest one, and the break-even against
hosted APIs at the throughput a configuration sustains. Money is USD as a number, beside the day it was captured."""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from ninja import Field, Schema


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
        ..., description="GPUs an engine (vLLM, SGLang) runs the model on: `tensor_parallel` × `pipeline_parallel`"
    )
    tensor_parallel: int | None = Field(None, description="tensor-parallel degree of that split")
    pipeline_parallel: int | None = Field(None, description="pipeline stages of that split")
    attention_data_parallel: int | None = Field(
        None,
        description="GPUs that each run attention for their own requests (SGLang `--enable-dp-attention`, vLLM "
        "`--data-parallel-size` with `--enable-expert-parallel`); `1`: plain tensor parallelism",
    )
    instance_gpus: int = Field(
        ...,
        description="GPUs in the instance as sold, all billed: `per_hour_usd` = `instance_gpus` × "
        "`price_per_gpu_hour_usd`",
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
    gpus_needed: int = Field(..., description="GPUs the memory needs under the engine's budget")
    nodes: int
    gpus_run: int = Field(..., description="GPUs an engine runs and a cloud rents: whole nodes of 8 beyond one")


class KernelRuleOut(Schema):
    engine: str
    feature: str = Field(..., description="the model's feature that needs the kernels (`sparse_attention`)")
    architectures: list[str] = Field(..., description="the GPU architectures the engine has the kernels for")
    source: str
    reason: str = Field(..., description="why other GPU types are not ranked, in words")


class GpusOut(Schema):
    need_bytes: int
    by_gpu: list[OfferOut]
    by_provider: list[OfferOut]
    several_nodes: list[GpuCountOut]
    newest_capture: date | None
    any_stale: bool
    any_low_confidence: bool
    kernels: KernelRuleOut | None = Field(
        None, description="the model starts under the engine only on these GPU architectures; others are not ranked"
    )


class CardFitOut(Schema):
    gpu: str = Field(..., description="the GPU type's slug, as in `/api/v1/gpus`")
    gpu_name: str
    memory_gb: int
    fit: Literal["runs", "tight", "split", "no"] = Field(
        ...,
        description="`runs`: one card holds the need within the engine's default memory share; `tight`: only above it; "
        "`split`: several cards of one node; `no`: not on one node, or the engine cannot start the model on this card",
    )
    cards: int = Field(..., description="the cards the engine runs the need on (`0` for `no`)")
    own: bool = Field(..., description="the reader's own machine (the rig settings)")


class GlanceOut(Schema):
    verdict: Literal["runs", "tight", "split", "no"]
    verdict_gpu_name: str = Field(
        ..., description="`runs` and `tight`: the smallest card that holds the need; `split`: the cheapest setup's card"
    )
    verdict_gpus: int = Field(..., description="`split`: the GPUs of the cheapest setup; `1` otherwise, `0` for `no`")
    cards: list[CardFitOut] = Field(..., description="the need against cards of 24, 48, 80, 141 and 192 GB")


class SummaryOut(Schema):
    need_bytes: int
    smallest_need_bytes: int
    smallest_label: str
    smallest_mode: str = Field(
        ..., description="the mode of the smallest need: `inference` on an inference page, a fine-tuning mode otherwise"
    )
    cheapest: OfferOut | None
    fits_one_gpu: bool
    largest_gpu_name: str
    smallest_gpu_name: str
    glance: GlanceOut | None = Field(None, description="the verdict the page leads with and the need on common cards")


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


class ReplicaOut(Schema):
    concurrency: int = Field(
        ..., description="requests one replica runs at a time at the largest batch within the targets"
    )
    output_tokens_per_s: float = Field(..., description="generated tokens a second one replica sustains there")
    tpot_s: float = Field(..., description="time per output token at the targets' percentile")
    ttft_s: float = Field(..., description="time to the first token at the targets' percentile, any queue included")
    limit: str = Field(
        ..., description="what stops a larger batch: `tpot`, `ttft`, `memory` (KV cache), `sequences`, `budget`"
    )


class TargetsOut(Schema):
    ttft_s: float = Field(..., description="first token within (seconds)")
    tpot_s: float = Field(..., description="time per output token within (seconds): 1 ÷ the page's `tps`")
    percentile: int = Field(..., description="the targets hold for the median request (50) or 95 % of them (95)")
    peak_factor: float = Field(..., description="replicas are sized for a peak of this many times the average rate")
    prompt_tokens: int = Field(..., description="tokens per request's prompt")
    output_tokens: int = Field(..., description="tokens per request's answer")


class BreakEvenOut(Schema):
    self_host: OfferOut | None = Field(..., description="the rented configuration the break-even is read from")
    tokens_per_s: float | None = Field(..., description="one replica's generated tokens a second within the targets")
    replica: ReplicaOut | None
    targets: TargetsOut
    self_host_per_million_output_usd: float | None = Field(
        ..., description="the self-host month over the tokens it generates at the peak it is sized for"
    )
    hosted: list[HostedOut]
    input_tokens_per_output_token: float
    cached_input_share: float
    api_per_million_output_usd: float | None
    break_even_output_tokens_per_month: float | None
    self_host_capacity_tokens_per_month: float | None
    self_host_can_reach_break_even: bool | None
