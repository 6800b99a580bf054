"""The model page as data: one function turns a model, a calculator state, offers and prices into every section.

``model_page(inputs) -> ModelPage`` calls the pure estimation core (estimate, fit, rank, inverse, apple_fit,
speed, break_even) and returns plain dataclasses per section. It takes data, not querysets, so it is tested
without a database and can be cached as one value per (model, state, language, data generation). Templates
format and print what it returns; they compute nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from functools import lru_cache
from typing import Any

from calculator.estimation import (
    GB,
    GIB,
    PRECISIONS,
    ApiPrice,
    Breakdown,
    Framework,
    GpuCount,
    Mode,
    Optimizer,
    RankedOffer,
    Ranking,
    Term,
    TrafficMix,
    Workload,
    apple_fit,
    break_even,
    estimate,
    fit,
    gpus_needed,
    max_concurrency,
    max_context,
    rank,
    several_node_gpus,
    speed,
    usable_bytes,
)
from calculator.estimation.applicability import choose_mode
from calculator.estimation.fit import ParallelPlan, plan_on_instance
from calculator.estimation.launch import LaunchConfig, launch_command
from calculator.estimation.offload import offload_verdict
from calculator.estimation.precision import gguf_key
from calculator.forms import MAC_MEMORY_GIB, PRESET_CONTEXTS, CalculatorState, Choice, PageChoices
from models_catalog.architecture import AttentionKind, ModelSpec
from pricing.gpus import GpuSpec
from pricing.offers import OfferRecord

MATRIX_PRECISIONS: tuple[str, ...] = ("fp16", "int8", "int4")
INVERSE_PRECISIONS: tuple[str, ...] = ("fp16", "fp8", "int8", "int4")
MODES: tuple[Mode, ...] = (Mode.INFERENCE, Mode.LORA, Mode.QLORA, Mode.FULL)
LOCAL_GPUS: tuple[str, ...] = ("rtx-3090", "rtx-4090", "rtx-5090", "rtx-pro-6000-blackwell")
BUILD_PREFIX = "build:"
MAC_PREFIX = "mac-"
# Budget lines on the context chart: common hardware by its usable memory (90 % fill, as the GPU counts).
BUDGET_GPUS: tuple[tuple[str, int], ...] = (("rtx-4090", 1), ("h100-sxm", 1), ("h200-sxm", 1), ("h100-sxm", 8))
HEADROOM_GPU = "h200-sxm"
# Which runtimes load a build of each format (docs/methodology.md §2 and §4).
RUNTIMES: dict[str, tuple[str, ...]] = {
    "GGUF": ("llama.cpp", "Ollama", "LM Studio"),
    "MLX": ("MLX (mlx-lm)", "LM Studio on a Mac"),
    "AWQ": ("vLLM", "SGLang", "Transformers"),
    "GPTQ": ("vLLM", "SGLang", "Transformers"),
    "FP8": ("vLLM", "SGLang", "TensorRT-LLM"),
    "NF4": ("Transformers + bitsandbytes",),
    "EXL2": ("ExLlamaV2", "TabbyAPI"),
    "BF16": ("vLLM", "SGLang", "llama.cpp (after conversion)", "Transformers"),
}


# --- inputs ------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Build:
    """A real quantized build of the model, as the catalog records it."""

    key: str  # "build:<slug>", the precision value the form uses
    label: str
    format: str
    repo_id: str
    bits_per_weight: float | None
    file_size_bytes: int | None
    size_is_approximate: bool
    size_source: str
    min_ram_bytes: int | None  # as published, when known
    quality_note: str
    quality_source: str

    @property
    def precision(self) -> str:
        """The generic precision whose rules size everything but the weights (KV cache, overhead)."""
        if self.format == "GGUF" and gguf_key(self.label) in PRECISIONS:
            return gguf_key(self.label)
        if self.format == "MLX" and self.bits_per_weight and f"mlx-{int(self.bits_per_weight)}bit" in PRECISIONS:
            return f"mlx-{int(self.bits_per_weight)}bit"
        by_format = {"AWQ": "awq", "GPTQ": "gptq", "FP8": "fp8", "NF4": "nf4", "BF16": "fp16"}
        if self.format in by_format:
            return by_format[self.format]
        bits = self.bits_per_weight or 16
        return "fp16" if bits >= 12 else "int8" if bits >= 7 else "int4"


@dataclass(frozen=True, slots=True)
class HostedPrice:
    """A hosted API's per-token price for this model, with where it was seen."""

    route: str  # "z-ai/glm-5.3-flash"
    provider: str
    price: ApiPrice
    captured_on: date | None  # None: the source states no date
    source_publisher: str
    source_title: str
    source_url: str
    confidence: str  # "high" | "medium" | "low"


@dataclass(frozen=True, slots=True)
class PageInputs:
    spec: ModelSpec
    state: CalculatorState
    offers: Sequence[OfferRecord]
    gpus: Sequence[GpuSpec]
    builds: Sequence[Build] = ()
    hosted: Sequence[HostedPrice] = ()
    today: date = field(default_factory=date.today)


# --- sections ----------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Setting:
    """What the page computed for: the state after applying the mode rule."""

    mode: Mode
    precision: str
    precision_label: str
    engine: str
    context: int
    concurrency: int
    kv: str
    mode_changed: str = ""  # reason key when the requested mode/precision pair does not apply


@dataclass(frozen=True, slots=True)
class BreakdownRow:
    term: Term
    share: float  # of the GPU total, 0..1, for the stacked bar (0 for terms kept in host RAM)
    offset: float  # where its segment starts in the bar, 0..1


@dataclass(frozen=True, slots=True)
class Summary:
    need_bytes: int
    smallest_need_bytes: int
    smallest_label: str
    cheapest: RankedOffer | None
    fits_one_gpu: bool
    largest_gpu_name: str
    smallest_gpu_name: str  # the smallest single GPU that holds the need, when one does


@dataclass(frozen=True, slots=True)
class OfferRow:
    ranked: RankedOffer
    plan: ParallelPlan  # how vLLM/SGLang run the model on the priced instance (fit.plan_on_instance)
    tokens_per_s_low: float | None  # per request, estimated
    tokens_per_s_high: float | None

    @property
    def tensor_parallel(self) -> int:
        return self.plan.tensor_parallel

    @property
    def pipeline_stages(self) -> int:
        return self.plan.pipeline_stages


def instance_plan(row: RankedOffer, spec: ModelSpec) -> ParallelPlan:
    """The engine's split of ``spec`` over the GPUs of the instance ``row`` prices."""
    return plan_on_instance(row.instance_gpus, row.gpus_needed, spec.num_attention_heads, spec.num_kv_heads)


@dataclass(frozen=True, slots=True)
class Gpus:
    need_bytes: int
    by_gpu: tuple[OfferRow, ...]
    by_provider: tuple[OfferRow, ...]
    ranking: Ranking
    several_nodes: tuple[GpuCount, ...]  # every catalog GPU type (offered or not) that needs more than 8
    newest_capture: date | None
    any_stale: bool
    any_low_confidence: bool


@dataclass(frozen=True, slots=True)
class MatrixCell:
    mode: Mode
    precision: str
    need_bytes: int | None  # None: the combination does not apply


@dataclass(frozen=True, slots=True)
class PrecisionCard:
    precision: str
    label: str
    need_bytes: int
    cheapest: RankedOffer | None


@dataclass(frozen=True, slots=True)
class ModeCard:
    mode: Mode
    precision: str
    need_bytes: int
    ratio: float  # to inference at FP16
    cheapest: RankedOffer | None


@dataclass(frozen=True, slots=True)
class BuildRow:
    build: Build
    weights_bytes: int | None
    need_bytes: int | None  # weights as measured + KV cache + runtime overhead at the current context
    runtimes: tuple[str, ...]
    smallest_mac_gib: int | None
    one_gpu: str | None  # the smallest single GPU it fits on
    gpu_count: tuple[int, str] | None  # else: how many of the largest common GPU


@dataclass(frozen=True, slots=True)
class ContextPoint:
    context: int
    total_bytes: int
    kv_bytes: int


@dataclass(frozen=True, slots=True)
class BudgetLine:
    label: str
    usable_bytes: int


@dataclass(frozen=True, slots=True)
class Headroom:
    precision_label: str  # the current precision, or the widest option that fits when the current one does not
    is_current: bool
    gpu_name: str
    usable_bytes: int
    fixed_bytes: int  # weights + overhead at the shortest context
    left_bytes: int
    tokens: int  # longest context for one request that fits
    full_context_bytes: int | None  # need at the model's full context, when known
    full_context_fits: bool


@dataclass(frozen=True, slots=True)
class ContextSection:
    precision_label: str
    points: tuple[ContextPoint, ...]
    budgets: tuple[BudgetLine, ...]
    headroom: Headroom | None


@dataclass(frozen=True, slots=True)
class InverseRow:
    precision: str
    label: str
    max_context: int
    max_concurrency: int


@dataclass(frozen=True, slots=True)
class UnifiedMemory:
    """A Mac as hardware for the inverse question: one machine whose GPU may use up to ``budget_bytes``."""

    slug: str
    name: str
    memory_bytes: int
    budget_bytes: int


@dataclass(frozen=True, slots=True)
class Inverse:
    label: str  # "H200 141GB" or "Mac with 128 GB"
    is_mac: bool
    budget_bytes: int  # what the fits were checked against: 90 % of each GPU, or a Mac's raised GPU limit
    count: int
    context: int
    concurrency: int
    rows: tuple[InverseRow, ...]


@dataclass(frozen=True, slots=True)
class LocalGpuVerdict:
    gpu: GpuSpec
    best: str | None  # label of the widest precision or build that fits one card
    best_need_bytes: int | None
    smallest_need_bytes: int


@dataclass(frozen=True, slots=True)
class MacVerdict:
    ram_gib: int
    verdict: str  # "fits" | "raise" | "no"
    best: str | None
    best_need_bytes: int | None
    wired_limit_mb: int | None
    default_limit_bytes: int


@dataclass(frozen=True, slots=True)
class Local:
    gpus: tuple[LocalGpuVerdict, ...]
    macs: tuple[MacVerdict, ...]
    options: tuple[tuple[str, int], ...]  # (label, need) from smallest to largest, what the verdicts chose from


@dataclass(frozen=True, slots=True)
class HostedRow:
    hosted: HostedPrice
    input_usd: float
    cached_usd: float
    output_usd: float
    intro_in_force: bool
    intro_expired: bool


@dataclass(frozen=True, slots=True)
class SelfHostVsApi:
    self_host: RankedOffer | None
    tokens_per_s: float | None  # all requests together, the low end of the estimate
    rows: tuple[HostedRow, ...]
    per_million_output_usd: float | None  # the first API's cost per million generated tokens with the mix
    break_even_tokens: float | None
    capacity_tokens: float | None
    reachable: bool | None
    mix: TrafficMix


@dataclass(frozen=True, slots=True)
class Faq:
    """The figures the model's FAQ answers with (the same numbers as the sections above)."""

    qlora_fits_one_80gb: bool
    fp16_fits_one_80gb: bool
    int4_fits_one_80gb: bool
    smallest_mac: MacVerdict | None  # the smallest Mac that holds some precision or build, with which one
    counts_at_fp16: tuple[tuple[int, int], ...]  # (GPU memory in GB, GPUs needed)

    @property
    def smallest_mac_gib(self) -> int | None:
        return self.smallest_mac.ram_gib if self.smallest_mac else None


@dataclass(frozen=True, slots=True)
class CacheLayout:
    """Which layers keep a per-token KV cache: the reason a hybrid model's cache is far below 2·L·H·d·T."""

    total_layers: int
    cached_layers: int  # full, sliding-window or MLA attention
    state_layers: int  # linear attention / SSM: a fixed-size state per request
    sliding_layers: int


def _cache_layout(spec: ModelSpec) -> CacheLayout:
    counts = {kind: 0 for kind in AttentionKind}
    for group in spec.layer_groups:
        counts[group.kind] += group.count
    cached = counts[AttentionKind.FULL] + counts[AttentionKind.SLIDING] + counts[AttentionKind.MLA]
    return CacheLayout(spec.num_layers, cached, counts[AttentionKind.LINEAR], counts[AttentionKind.SLIDING])


@dataclass(frozen=True, slots=True)
class ModelPage:
    cache_layout: CacheLayout
    setting: Setting
    breakdown: Breakdown
    rows: tuple[BreakdownRow, ...]
    summary: Summary
    gpus: Gpus
    matrix: tuple[tuple[str, tuple[MatrixCell, ...]], ...]
    precision_cards: tuple[PrecisionCard, ...]
    mode_cards: tuple[ModeCard, ...]
    builds: tuple[BuildRow, ...]
    context: ContextSection
    inverse: Inverse | None
    local: Local
    api: SelfHostVsApi
    faq: Faq


# --- composition -------------------------------------------------------------------------------------------


class _Estimates:
    """Memoised estimates for one page: several sections ask for the same workload."""

    def __init__(self, spec: ModelSpec, builds: Sequence[Build]) -> None:
        self.spec = spec
        self.builds = {b.key: b for b in builds}
        self._cache: dict[Workload, tuple[Breakdown, int]] = {}

    def workload(self, state: CalculatorState, mode: Mode, precision: str, **changes: Any) -> Workload:
        """The core's workload for ``precision``; a published build sizes its weights from its files."""
        build = self.builds.get(precision)
        measured = build.file_size_bytes if build is not None and mode is Mode.INFERENCE else None
        return replace(
            Workload(
                mode=mode,
                precision=build.precision if build else precision,
                context=state.context,
                concurrency=state.concurrency,
                engine=state.engine,
                kv_dtype=state.kv,
                batch_size=state.batch,
                sequence_length=state.seq or None,
                lora_rank=state.rank,
                gradient_checkpointing=state.checkpointing,
                optimizer=Optimizer(state.optimizer),
                framework=Framework(state.framework),
                weights_file_bytes=measured or None,
            ),
            **changes,
        )

    def need(self, workload: Workload) -> tuple[Breakdown, int]:
        """The breakdown and its GPU total, estimated once per workload on a page."""
        cached = self._cache.get(workload)
        if cached is None:
            breakdown = estimate(self.spec, workload)
            cached = self._cache[workload] = (breakdown, breakdown.total_bytes)
        return cached


def precision_label(precision: str, builds: Sequence[Build] = ()) -> str:
    for build in builds:
        if build.key == precision:
            return build.label
    found = PRECISIONS.get(precision)
    return found.label if found else precision


def _setting(state: CalculatorState, builds: Sequence[Build]) -> Setting:
    build_keys = {b.key for b in builds}
    precision = state.precision
    generic = next((b.precision for b in builds if b.key == precision), precision)
    choice = choose_mode(state.mode, generic)
    changed = "" if choice.applies else choice.reason
    if not choice.applies or (precision in build_keys and choice.mode is not Mode.INFERENCE):
        precision = choice.precision
    return Setting(
        mode=choice.mode,
        precision=precision,
        precision_label=precision_label(precision, builds),
        engine=state.engine,
        context=state.context,
        concurrency=state.concurrency,
        kv=state.kv,
        mode_changed=changed,
    )


def _gpu_index(gpus: Sequence[GpuSpec]) -> dict[str, GpuSpec]:
    return {g.slug: g for g in gpus}


def _offer_rows(
    rows: Sequence[RankedOffer], spec: ModelSpec, workload: Workload, gpus: dict[str, GpuSpec]
) -> tuple[OfferRow, ...]:
    speeds: dict[tuple[str, int], tuple[float | None, float | None]] = {}
    built = []
    for row in rows:
        gpu = gpus.get(row.offer.gpu_slug)
        plan = instance_plan(row, spec)
        # a request passes the pipeline stages one after another, each reading its share of the layers at the
        # tensor-parallel degree: per request, the speed of the whole model at that degree
        key = (row.offer.gpu_slug, plan.tensor_parallel)
        if key not in speeds:
            speeds[key] = (None, None)
            if gpu is not None and gpu.memory_bandwidth_gbps:
                found = speed(spec, workload, gpu, plan.tensor_parallel)
                speeds[key] = (found.per_request_tokens_per_s_low, found.per_request_tokens_per_s_high)
        built.append(OfferRow(row, plan, *speeds[key]))
    return tuple(built)


def _gpus_section(
    need: int, spec: ModelSpec, workload: Workload, offers: Sequence[OfferRecord], gpus: Sequence[GpuSpec]
) -> Gpus:
    ranking = rank(need, offers, gpus)
    index = _gpu_index(gpus)
    shown = [*ranking.by_gpu, *ranking.by_provider]
    captures = [capture_day(r.offer.captured_at) for r in shown if r.offer.captured_at]
    return Gpus(
        need_bytes=need,
        by_gpu=_offer_rows(ranking.by_gpu, spec, workload, index),
        by_provider=_offer_rows(ranking.by_provider, spec, workload, index),
        ranking=ranking,
        several_nodes=several_node_gpus(need, [g for g in gpus if g.segment in INVERSE_GPU_SEGMENTS]),
        newest_capture=max(captures) if captures else None,
        any_stale=any(r.offer.stale for r in shown),
        any_low_confidence=any(r.offer.confidence == "low" for r in shown),
    )


def capture_day(moment: date | datetime) -> date:
    """The day of a capture time (offers carry a day or a moment)."""
    return moment.date() if isinstance(moment, datetime) else moment


class _Cheapest:
    """The cheapest configuration for a need, ranked once per distinct need on a page."""

    def __init__(self, offers: Sequence[OfferRecord], gpus: Sequence[GpuSpec], known: Ranking) -> None:
        self.offers, self.gpus = offers, gpus
        self._found: dict[int, RankedOffer | None] = {known.need_bytes: known.cheapest}

    def __call__(self, need: int) -> RankedOffer | None:
        if need not in self._found:
            self._found[need] = rank(need, self.offers, self.gpus).cheapest
        return self._found[need]


def _largest_datacenter_gpu(gpus: Sequence[GpuSpec]) -> GpuSpec | None:
    rentable = [g for g in gpus if g.is_rentable_class]
    return max(rentable, key=lambda g: g.memory_bytes) if rentable else None


def _smallest_single_gpu(need: int, gpus: Sequence[GpuSpec]) -> GpuSpec | None:
    fitting = [
        g
        for g in gpus
        if g.segment in ("datacenter", "workstation", "consumer") and need <= usable_bytes(g.memory_bytes)
    ]
    return min(fitting, key=lambda g: (g.memory_bytes, g.slug)) if fitting else None


def _smallest_mac(need: int) -> int | None:
    for gib in MAC_MEMORY_GIB:
        if apple_fit(need, gib * GIB).fits_after_raise:
            return gib
    return None


def _build_rows(
    estimates: _Estimates, state: CalculatorState, builds: Sequence[Build], gpus: Sequence[GpuSpec]
) -> tuple[BuildRow, ...]:
    index = _gpu_index(gpus)
    h100 = index.get("h100-sxm")
    rows = []
    for build in builds:
        need = None
        if build.file_size_bytes:
            _, need = estimates.need(estimates.workload(state, Mode.INFERENCE, build.key))
        one = _smallest_single_gpu(need, gpus) if need else None
        count = None
        if need and one is None and h100 is not None:
            count = (fit(need, h100).count, h100.short_name)
        rows.append(
            BuildRow(
                build=build,
                weights_bytes=build.file_size_bytes,
                need_bytes=need,
                runtimes=RUNTIMES.get(build.format, ()),
                smallest_mac_gib=_smallest_mac(need) if need else None,
                one_gpu=one.short_name if one else None,
                gpu_count=count,
            )
        )
    return tuple(rows)


def _context_points(max_ctx: int | None, current: int) -> tuple[int, ...]:
    limit = max_ctx or PRESET_CONTEXTS[-1]
    points = {c for c in PRESET_CONTEXTS if c <= limit}
    points.add(limit)
    points.add(min(current, limit))
    return tuple(sorted(p for p in points if p >= 1))


def _context_section(
    estimates: _Estimates, state: CalculatorState, setting: Setting, spec: ModelSpec, gpus: Sequence[GpuSpec]
) -> ContextSection:
    points = []
    for context in _context_points(spec.max_context, state.context):
        workload = estimates.workload(state, Mode.INFERENCE, setting.precision, context=context)
        breakdown, total = estimates.need(workload)
        points.append(ContextPoint(context, total, breakdown.kv_cache_bytes))
    index = _gpu_index(gpus)
    budgets = []
    for slug, count in BUDGET_GPUS:
        gpu = index.get(slug)
        if gpu is not None:
            label = f"{count} × {gpu.short_name}" if count > 1 else gpu.short_name
            budgets.append(BudgetLine(label, usable_bytes(gpu.memory_bytes) * count))
    headroom = None
    gpu = index.get(HEADROOM_GPU)
    if gpu is not None:
        headroom = _headroom(estimates, state, setting, spec, gpu)
    return ContextSection(setting.precision_label, tuple(points), tuple(budgets), headroom)


def _headroom(
    estimates: _Estimates, state: CalculatorState, setting: Setting, spec: ModelSpec, gpu: GpuSpec
) -> Headroom:
    """What one GPU leaves for the KV cache after weights and runtime: at the current precision, or else at the
    widest generic precision or published build that still fits it."""
    usable = usable_bytes(gpu.memory_bytes)
    candidates = [setting.precision] + [p for p in MATRIX_PRECISIONS if p != setting.precision]
    candidates += [key for key, build in estimates.builds.items() if build.file_size_bytes and key != setting.precision]
    fixed_by: list[tuple[int, str, Workload]] = []
    for precision in candidates:
        base = estimates.workload(state, Mode.INFERENCE, precision, context=1, concurrency=1)
        fixed_by.append((estimates.need(base)[1], precision, base))
    fitting = [f for f in fixed_by[1:] if f[0] <= usable]
    chosen = fixed_by[0] if fixed_by[0][0] <= usable or not fitting else max(fitting, key=lambda f: f[0])
    fixed, precision, base = chosen
    tokens = 0
    if fixed <= usable:
        tokens = max_context(spec, base, gpu, 1)
    full = None
    if spec.max_context:
        full = estimates.need(replace(base, context=spec.max_context))[1]
    return Headroom(
        precision_label=precision_label(precision, list(estimates.builds.values())),
        is_current=precision == setting.precision,
        gpu_name=gpu.short_name,
        usable_bytes=usable,
        fixed_bytes=fixed,
        left_bytes=usable - fixed,
        tokens=tokens,
        full_context_bytes=full,
        full_context_fits=full is not None and full <= usable,
    )


def _inverse(estimates: _Estimates, state: CalculatorState, spec: ModelSpec, gpus: Sequence[GpuSpec]) -> Inverse | None:
    hardware: GpuSpec | UnifiedMemory | None = _gpu_index(gpus).get(state.gpu)
    count, budget, label, is_mac = state.gpus, None, "", False
    if state.gpu.startswith(MAC_PREFIX) and state.gpu[len(MAC_PREFIX) :].isdigit():
        gib = int(state.gpu[len(MAC_PREFIX) :])
        budget = apple_fit(0, gib * GIB).max_raised_limit_bytes
        hardware = UnifiedMemory(state.gpu, f"Mac {gib} GB", gib * GIB, budget)
        count, label, is_mac = 1, str(gib), True
    if hardware is None:
        return None
    if not is_mac:
        label = hardware.short_name if isinstance(hardware, GpuSpec) else hardware.name
        budget = usable_bytes(hardware.memory_bytes) * count
    rows = []
    for precision in INVERSE_PRECISIONS:
        workload = estimates.workload(state, Mode.INFERENCE, precision)
        rows.append(
            InverseRow(
                precision=precision,
                label=precision_label(precision),
                max_context=max_context(spec, workload, hardware, count, budget_bytes=budget),
                max_concurrency=max_concurrency(spec, workload, hardware, count, budget_bytes=budget),
            )
        )
    return Inverse(label, is_mac, budget or 0, count, state.context, state.concurrency, tuple(rows))


def _local(estimates: _Estimates, state: CalculatorState, builds: Sequence[Build], gpus: Sequence[GpuSpec]) -> Local:
    options: list[tuple[str, int]] = []
    for precision in MATRIX_PRECISIONS:
        _, need = estimates.need(estimates.workload(state, Mode.INFERENCE, precision))
        options.append((precision_label(precision), need))
    for build in builds:
        if build.file_size_bytes:
            _, need = estimates.need(estimates.workload(state, Mode.INFERENCE, build.key))
            options.append((build.label, need))
    options.sort(key=lambda o: o[1])
    smallest = options[0][1]
    index = _gpu_index(gpus)
    gpu_verdicts = []
    for slug in LOCAL_GPUS:
        gpu = index.get(slug)
        if gpu is None:
            continue
        fitting = [o for o in options if o[1] <= usable_bytes(gpu.memory_bytes)]
        best = fitting[-1] if fitting else None
        gpu_verdicts.append(LocalGpuVerdict(gpu, best[0] if best else None, best[1] if best else None, smallest))
    macs = []
    for gib in MAC_MEMORY_GIB:
        ram = gib * GIB
        limits = apple_fit(0, ram)  # the machine's default and most-raised GPU limits
        default = [o for o in options if o[1] <= limits.default_limit_bytes]
        raised = [o for o in options if o[1] <= limits.max_raised_limit_bytes]
        if default:
            label, need = default[-1]
            macs.append(MacVerdict(gib, "fits", label, need, None, limits.default_limit_bytes))
        elif raised:
            label, need = raised[-1]
            fitted = apple_fit(need, ram)
            macs.append(MacVerdict(gib, "raise", label, need, fitted.wired_limit_mb, limits.default_limit_bytes))
        else:
            macs.append(MacVerdict(gib, "no", None, None, None, limits.default_limit_bytes))
    return Local(tuple(gpu_verdicts), tuple(macs), tuple(options))


def _api(inputs: PageInputs, gpus: Gpus, spec: ModelSpec, workload: Workload) -> SelfHostVsApi:
    state = inputs.state
    mix = TrafficMix(input_tokens_per_output_token=state.ratio, cached_input_share=state.cached / 100)
    rows = []
    for hosted in inputs.hosted:
        input_usd, cached_usd, output_usd = hosted.price.prices_on(inputs.today)
        intro = hosted.price.intro_ends
        rows.append(
            HostedRow(
                hosted=hosted,
                input_usd=input_usd,
                cached_usd=cached_usd,
                output_usd=output_usd,
                intro_in_force=intro is not None and inputs.today <= intro,
                intro_expired=intro is not None and inputs.today > intro,
            )
        )
    cheapest = gpus.ranking.cheapest
    tokens_per_s = None
    if cheapest is not None:
        gpu = _gpu_index(inputs.gpus).get(cheapest.offer.gpu_slug)
        if gpu is not None and gpu.memory_bandwidth_gbps:
            running = instance_plan(cheapest, spec).tensor_parallel
            tokens_per_s = speed(spec, workload, gpu, running).decode_tokens_per_s_low
    per_million = volume = capacity = reachable = None
    if rows and cheapest is not None:
        result = break_even(float(cheapest.per_month_usd), rows[0].hosted.price, mix, inputs.today, tokens_per_s)
        per_million = result.api_per_million_output_usd
        volume = result.break_even_output_tokens_per_month
        capacity = result.self_host_capacity_tokens_per_month
        reachable = result.self_host_can_reach_break_even
    return SelfHostVsApi(cheapest, tokens_per_s, tuple(rows), per_million, volume, capacity, reachable, mix)


def model_page(inputs: PageInputs) -> ModelPage:
    """Every section of the model page for one calculator state."""
    spec, state, builds = inputs.spec, inputs.state, inputs.builds
    estimates = _Estimates(spec, builds)
    setting = _setting(state, builds)
    workload = estimates.workload(state, setting.mode, setting.precision)
    breakdown, need = estimates.need(workload)
    on_gpu = [t for t in breakdown.terms if t.on_gpu and t.bytes > 0]
    gpu_total = sum(t.bytes for t in on_gpu) or 1
    rows, offset = [], 0.0
    for term in breakdown.terms:
        if term.bytes > 0:
            share = term.bytes / gpu_total if term.on_gpu else 0.0
            rows.append(BreakdownRow(term, share, offset))
            offset += share

    gpus = _gpus_section(need, spec, workload, inputs.offers, inputs.gpus)
    cheapest = _Cheapest(inputs.offers, inputs.gpus, gpus.ranking)

    matrix = []
    needs: dict[tuple[Mode, str], int] = {}
    for precision in MATRIX_PRECISIONS:
        cells = []
        for mode in MODES:
            choice = choose_mode(mode, precision)
            cell_need = None
            if choice.applies:
                _, cell_need = estimates.need(estimates.workload(state, mode, precision))
                needs[(mode, precision)] = cell_need
            cells.append(MatrixCell(mode, precision, cell_need))
        matrix.append((precision, tuple(cells)))

    cards = tuple(
        PrecisionCard(
            p,
            precision_label(p),
            needs[(Mode.INFERENCE, p)],
            cheapest(needs[(Mode.INFERENCE, p)]),
        )
        for p in MATRIX_PRECISIONS
    )
    inference_fp16 = needs[(Mode.INFERENCE, "fp16")]
    mode_cards = []
    for mode, precision in ((Mode.INFERENCE, "fp16"), (Mode.LORA, "fp16"), (Mode.QLORA, "int4"), (Mode.FULL, "fp16")):
        mode_need = needs[(mode, precision)]
        mode_cards.append(
            ModeCard(
                mode,
                precision,
                mode_need,
                mode_need / inference_fp16,
                cheapest(mode_need),
            )
        )

    local = _local(estimates, state, builds, inputs.gpus)
    largest = _largest_datacenter_gpu(inputs.gpus)
    smallest_gpu = _smallest_single_gpu(need, inputs.gpus)
    smallest_label, smallest_need = local.options[0]
    summary = Summary(
        need_bytes=need,
        smallest_need_bytes=smallest_need,
        smallest_label=smallest_label,
        cheapest=gpus.ranking.cheapest,
        fits_one_gpu=largest is not None and need <= usable_bytes(largest.memory_bytes),
        largest_gpu_name=largest.short_name if largest else "",
        smallest_gpu_name=smallest_gpu.short_name if smallest_gpu else "",
    )
    return ModelPage(
        cache_layout=_cache_layout(spec),
        setting=setting,
        breakdown=breakdown,
        rows=tuple(rows),
        summary=summary,
        gpus=gpus,
        matrix=tuple(matrix),
        precision_cards=cards,
        mode_cards=tuple(mode_cards),
        builds=_build_rows(estimates, state, builds, inputs.gpus),
        context=_context_section(estimates, state, setting, spec, inputs.gpus),
        inverse=_inverse(estimates, state, spec, inputs.gpus),
        local=local,
        api=_api(inputs, gpus, spec, workload),
        faq=_faq(needs, local),
    )


def _faq(needs: dict[tuple[Mode, str], int], local: Local) -> Faq:
    usable_80 = usable_bytes(80 * GB)
    fp16 = needs[(Mode.INFERENCE, "fp16")]
    return Faq(
        qlora_fits_one_80gb=needs[(Mode.QLORA, "int4")] <= usable_80,
        fp16_fits_one_80gb=fp16 <= usable_80,
        int4_fits_one_80gb=needs[(Mode.INFERENCE, "int4")] <= usable_80,
        smallest_mac=next((m for m in local.macs if m.verdict != "no"), None),
        counts_at_fp16=tuple((size, gpus_needed(fp16, size * GB)) for size in (80, 48, 24)),
    )


# --- what the form offers -----------------------------------------------------------------------------------

FORM_PRECISIONS: tuple[str, ...] = ("fp16", "fp8", "int8", "int4", "awq", "q8_0", "q4_k_m", "nf4", "mlx-4bit")
INVERSE_GPU_SEGMENTS = ("datacenter", "workstation", "consumer")


def build_key(label: str, taken: set[str]) -> str:
    """'2bit-lite' → 'build:2bit-lite'; unique within the model's builds."""
    slug = "-".join("".join(ch if ch.isalnum() else " " for ch in label.lower()).split()) or "build"
    key, n = BUILD_PREFIX + slug, 2
    while key in taken:
        key, n = f"{BUILD_PREFIX}{slug}-{n}", n + 1
    taken.add(key)
    return key


def page_choices(max_context: int | None, builds: Sequence[Build], gpus: Sequence[GpuSpec]) -> PageChoices:
    precisions = [Choice(p, precision_label(p)) for p in FORM_PRECISIONS]
    precisions += [Choice(b.key, b.label) for b in builds if b.file_size_bytes]
    hardware = [Choice(g.slug, g.name) for g in gpus if g.segment in INVERSE_GPU_SEGMENTS]
    hardware += [Choice(f"{MAC_PREFIX}{gib}", f"Mac {gib} GB") for gib in MAC_MEMORY_GIB]
    return PageChoices(precisions=tuple(precisions), max_context=max_context, gpus=tuple(hardware))


# --- run it yourself: the reader's own machine (GPU + system RAM) and the commands that start each engine --------

RIG_FILE_TYPES: tuple[str, ...] = ("q8_0", "q4_k_m", "q2_k", "iq2_xxs")
RIG_SEGMENTS = ("consumer", "workstation", "datacenter")
MLX_BITS = (8, 6, 4, 3, 2)
MLX_GOOD_BITS = (8, 6, 4)


@dataclass(frozen=True, slots=True)
class RigRow:
    """One GGUF file type on the reader's machine: where llama.cpp puts it, and how fast it generates."""

    file_type: str  # "Q4_K_M"
    fits: bool
    placement: str  # "gpu" | "experts_cpu" | "n_cpu_moe" | "layers" | "none"
    gpu_layers: int
    cpu_moe_layers: int
    gpu_bytes: int
    host_bytes: int
    tokens_per_s: float | None
    limit: str  # what bounds the speed: "gpu_bandwidth" | "ram_bandwidth" | "overhead" | "unknown"


@dataclass(frozen=True, slots=True)
class Rig:
    gpu: GpuSpec
    gpus: int
    ram_gib: int
    rows: tuple[RigRow, ...]  # widest file type first
    best: RigRow | None
    command: str  # llama-server for the best row, "" when nothing fits


@dataclass(frozen=True, slots=True)
class Commands:
    """What to paste to start the configurations the page shows."""

    cloud_engine: str
    cloud: str  # the cheapest configuration, on vLLM or SGLang
    cloud_gpus: int
    mac_gib: int | None
    mac: str  # mlx_lm.server (with the sysctl line when the limit must be raised) on the smallest Mac that fits


@lru_cache(maxsize=4096)
def _rig_row(
    spec: ModelSpec,
    file_type: str,
    context: int,
    concurrency: int,
    memory_gb: float,
    bandwidth_gbps: float | None,
    ram_gib: int,
    gpus: int,
) -> RigRow:
    """One file type on one machine; pure and immutable inputs, so remembered across requests (a split search
    tries up to two candidates per layer)."""
    workload = Workload(precision=file_type, context=context, concurrency=concurrency, engine="llama.cpp")
    verdict = offload_verdict(
        spec, workload, gpu_memory_gb=memory_gb, gpu_bandwidth_gbps=bandwidth_gbps, ram_bytes=ram_gib * GIB, gpus=gpus
    )
    split = verdict.split
    return RigRow(
        file_type=split.ftype,
        fits=verdict.fits,
        placement=split.placement.value,
        gpu_layers=split.gpu_layers,
        cpu_moe_layers=split.cpu_moe_layers,
        gpu_bytes=split.gpu_bytes,
        host_bytes=split.host_bytes,
        tokens_per_s=verdict.speed.tokens_per_s if verdict.fits else None,
        limit=verdict.speed.limit,
    )


def rig(inputs: PageInputs, hub_id: str) -> Rig | None:
    """The reader's machine from the state (``rig``, ``rig_gpus``, ``ram``): each file type's split and speed."""
    state, spec = inputs.state, inputs.spec
    gpu = next((g for g in inputs.gpus if g.slug == state.rig and g.segment in RIG_SEGMENTS), None)
    if gpu is None:
        return None
    rows = [
        _rig_row(
            spec,
            key,
            state.context,
            state.concurrency,
            gpu.memory_gb,
            gpu.memory_bandwidth_gbps,
            state.ram,
            state.rig_gpus,
        )
        for key in RIG_FILE_TYPES
    ]
    best = next((r for r in rows if r.fits), None)
    command = ""
    if best is not None:
        name = hub_id.split("/", 1)[-1]
        command = launch_command(
            LaunchConfig(
                engine="llama.cpp",
                model=f"{name}-{best.file_type}.gguf",
                context=state.context,
                concurrency=state.concurrency,
                kv_dtype=state.kv if state.kv in ("q8_0", "q4_0") else "fp16",
                offload=best.placement,
                gpu_layers=best.gpu_layers,
                cpu_moe_layers=best.cpu_moe_layers,
            )
        ).script
    return Rig(gpu, state.rig_gpus, state.ram, tuple(rows), best, command)


def commands(inputs: PageInputs, page: ModelPage, hub_id: str) -> Commands:
    """The launch commands for the cheapest cloud configuration and for the smallest Mac that holds the model."""
    state, spec = inputs.state, inputs.spec
    engine = state.engine if state.engine in ("vllm", "sglang") else "vllm"
    cloud, gpus = "", 0
    cheapest = page.summary.cheapest
    if cheapest is not None and page.setting.mode is Mode.INFERENCE:
        plan = instance_plan(cheapest, spec)
        gpus = plan.gpus_run
        precision = page.setting.precision if page.setting.precision in PRECISIONS else "fp16"
        cloud = launch_command(
            LaunchConfig(
                engine=engine,
                model=hub_id,
                context=state.context,
                concurrency=state.concurrency,
                precision=precision,
                kv_dtype=state.kv,
                tensor_parallel=plan.tensor_parallel,
                pipeline_parallel=plan.pipeline_stages,
                gpu_memory_utilization=0.9,
                max_num_seqs=state.concurrency if state.concurrency > 1 else None,
            )
        ).script
    mac_gib, mac = None, ""
    # the smallest Mac that holds the model at 4 bits or more (the widest that fits there); 3 and 2 bits only when
    # nothing else fits even the largest Mac
    for gib in MAC_MEMORY_GIB:
        ram = gib * GIB
        for bits in MLX_BITS if gib == MAC_MEMORY_GIB[-1] else MLX_GOOD_BITS:
            need = estimate(
                spec,
                Workload(
                    precision=f"mlx-{bits}bit", context=state.context, concurrency=state.concurrency, engine="mlx"
                ),
            ).total_bytes
            fitted = apple_fit(need, ram)
            if fitted.fits_after_raise:
                mac_gib = gib
                mac = launch_command(
                    LaunchConfig(
                        engine="mlx",
                        model=f"mlx-community/{hub_id.split('/', 1)[-1]}-{bits}bit",
                        context=state.context,
                        concurrency=state.concurrency,
                        wired_limit_mb=fitted.wired_limit_mb,
                    )
                ).script
                break
        if mac:
            break
    return Commands(engine, cloud, gpus, mac_gib, mac)
