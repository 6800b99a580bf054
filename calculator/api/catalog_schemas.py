"""What the API answers about the catalog, the GPUs, the providers and the hosted APIs, as typed classes (the
calculator's query and answer are in ``calculator.api.schemas``)."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any, Literal

from ninja import Field, Schema


class ModelSummaryOut(Schema):
    id: str
    display_name: str
    family: str
    params_total: int | None
    params_active: int | None
    is_moe: bool
    attention_kind: str
    max_context: int | None
    modality: str
    licence: str
    release_date: date | None


class ModelListOut(Schema):
    results: list[ModelSummaryOut]
    next_cursor: str | None = Field(..., description="pass as cursor for the next page; null on the last page")


class ModelBuildOut(Schema):
    key: str
    format: str
    label: str
    repo_id: str
    bits_per_weight: float | None
    file_size_bytes: int | None
    size_is_approximate: bool
    min_ram_bytes: int | None


class ModelOut(ModelSummaryOut):
    organisation: str
    params_total_source: str
    params_active_source: str
    model_type: str
    num_layers: int | None
    native_dtype: str
    experts_routed: int
    experts_per_token: int
    experts_shared: int
    modalities: list[str]
    hub_sha: str
    sources: list[Any]
    builds: list[ModelBuildOut]
    page_url: str


class GpuOut(Schema):
    slug: str
    name: str
    short_name: str
    vendor: str
    architecture: str
    segment: str
    memory_bytes: int = Field(..., description="memory as marketed, decimal bytes")
    capacity_bytes: int = Field(..., description="total memory as the runtime (CUDA / ROCm) reports it")
    capacity_basis: Literal["reported", "nvidia-smi", "nameplate"] = Field(
        ...,
        description="reported: the runtime's own total from a public log; nvidia-smi: the driver's total less the "
        "median gap to CUDA's (estimated); nameplate: estimated from the marketed size",
    )
    capacity_source: str | None = Field(..., description="the public log the total was read from")
    memory_bandwidth_gbps: float | None
    bf16_dense_tflops: float | None
    fp8_dense_tflops: float | None
    released: int | None
    sources: list[str]


class GpuOfferOut(Schema):
    provider: str
    provider_name: str
    gpu: str
    instance_name: str
    gpu_counts: list[int]
    price_per_gpu_hour_usd: float
    pricing_kind: str
    term: str
    region: str
    captured_at: datetime | date | None
    stale: bool
    confidence: str
    availability: str
    url: str


class ProviderOut(Schema):
    slug: str
    name: str
    website: str
    has_api: bool
    last_refresh_at: datetime | None
    last_outcome: str | None
    last_good_at: datetime | None = Field(..., description="the latest refresh that confirmed prices")
    newest_capture: datetime | None = Field(..., description="the newest capture among its current offers")
    offer_count: int
    stale: bool


class ApiPriceOut(Schema):
    model: str
    route: str
    provider: str
    input_per_million_usd: float
    cached_input_per_million_usd: float | None
    output_per_million_usd: float
    intro_applies: bool
    intro_ends_on: date | None
    captured_on: date | None
    confidence: str
    source_publisher: str
    source_title: str
    source_url: str
    context_length: int | None
