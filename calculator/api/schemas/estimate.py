"""The estimate the API answers, section by section (``EstimateOut``): the setting, the memory breakdown, launch
commands, the precision and mode cards, published builds, context, the inverse questions, local hardware, the
reader's machine, the FAQ and how close such figures came to published measurements. Bytes are integers of bytes."""

from __future__ import annotations

from typing import Any

from ninja import Field, Schema

from .prices import BreakEvenOut, GpusOut, OfferOut, SummaryOut


class SettingOut(Schema):
    mode: str
    precision: str
    precision_label: str
    engine: str
    context: int
    concurrency: int
    kv: str
    vllm_version: str | None = Field(None, description="the vLLM release line the figures are for (engine `vllm`)")
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


class WeightsSourceOut(Schema):
    kind: str = Field(
        ...,
        description="where the command's weights come from: `released` (the model's own repository), `published` (a "
        "published build), `on_the_fly` (the engine quantizes the 16-bit weights as it loads them), `converted` (the "
        "first lines make the build), `none` (no command)",
    )
    model: str = Field(..., description="what the engine is pointed at; empty when `kind` is `none`")
    repo: str = Field(..., description="the repository the weights come from")
    quantization: str = Field(..., description="the engine's on-the-fly method (`fp8`, `bitsandbytes`), or empty")
    missing: str | None = Field(
        ...,
        description="why there is no command: `no_wider_build`, `no_build`, `wrong_format`, `not_from_release` or "
        "`no_engine_build`",
    )
    precision: str = Field(..., description="the precision the command runs")
    released: str = Field(..., description="the precision the model's own repository holds")


class CommandsOut(Schema):
    cloud_engine: str = Field(..., description="the engine the cloud command starts: `vllm` or `sglang`")
    cloud: str | None = Field(
        ..., description="shell lines that start the cheapest configuration; `null` for fine-tuning or when none fits"
    )
    cloud_gpus: int | None = Field(..., description="GPUs the cloud command runs the model on")
    mac_gib: int | None = Field(..., description="unified memory of the smallest Mac that holds the model (MLX)")
    mac: str | None = Field(..., description="shell lines that start it there, with the sysctl line when needed")
    cloud_source: WeightsSourceOut | None = Field(..., description="the cloud command's weights; `null` with no offer")
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
    verdict: str = Field(..., description="`fits`, `raise` (after raising the GPU memory limit) or `no`")
    best: str | None
    best_need_bytes: int | None
    wired_limit_mb: int | None
    default_limit_bytes: int
    best_key: str | None = Field(None, description="precision key or published build key of best")


class LocalOut(Schema):
    gpus: list[LocalGpuOut]
    macs: list[MacOut]


class RigRowOut(Schema):
    file_type: str = Field(..., description="GGUF file type, e.g. `Q4_K_M`")
    fits: bool
    placement: str = Field(..., description="`gpu`, `experts_cpu`, `n_cpu_moe`, `layers` or `none`")
    gpu_layers: int
    cpu_moe_layers: int
    gpu_bytes: int
    host_bytes: int
    tokens_per_s: float | None = Field(..., description="estimated, one request; `null` when it does not fit")
    limit: str = Field(
        ..., description="what bounds the speed: `gpu_bandwidth`, `ram_bandwidth`, `overhead` or `unknown`"
    )


class RigOut(Schema):
    gpu: str
    gpu_name: str
    gpus: int
    ram_gib: int
    context: int
    rows: list[RigRowOut] = Field(..., description="llama.cpp on the machine, widest file type first")
    best_file_type: str | None
    command: str | None = Field(..., description="`llama-server` for the widest file type that fits")
    source: WeightsSourceOut | None = Field(..., description="where that file comes from; `null` when nothing fits")


class FaqItemOut(Schema):
    key: str
    question: str
    answer: str = Field(..., description="plain text, in English like every label of the API")


class AccuracyOut(Schema):
    checks: str = Field(
        ..., description="which figure: `memory`, `decode` (per request), `load` (under load), `finetune`"
    )
    kind: str = Field(..., description="the validation matrix's kind of measurement (`GET /validation` lists them)")
    engine: str
    family: str | None = Field(..., description="architecture family of the rows; `null`: every family of the engine")
    published_runs: int
    within_percent: int = Field(..., description="nine of ten published runs are within ± this percent")
    within_tolerance: int = Field(..., description="runs within the matrix's own tolerance for the kind")


class EstimateOut(Schema):
    model: str | None = Field(..., description="catalog id; `null` for an inline config")
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
        ...,
        description="the reader's machine (`rig`, `rig_gpus`, `ram`): where llama.cpp puts each file type, how fast",
    )
    api: BreakEvenOut
    faq: list[FaqItemOut] = Field(..., description="the model's common questions, answered from these figures")
