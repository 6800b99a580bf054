"""The validation matrix pages: the overview (totals, the error per family, engine and GPU family) and a page per kind
with every published measurement of it beside our prediction.

The figures come from ``calculator.validation``; this module only runs it safely, caches the results and shapes
them for the template. A predictor that fails (any exception) leaves its row without a prediction and with the
reason, never a 500: other predictors and rows are added all the time.
"""

from __future__ import annotations

import hashlib
import logging
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_GET

from calculator import validation
from calculator.labels import engine_name, gpu_family_label, precision_name
from calculator.validation import Case, Result
from calculator.validation.bands import case_gpu_family
from calculator.validation.computed import kept_results
from pricing.gpus import gpu_by_slug
from web.kept import Kept

logger = logging.getLogger(__name__)

# Data and predictor edits change the fingerprint (a kept value's input); its shape, web.kept.KEY_PREFIX.
CACHE_SECONDS = 60 * 60
PACKAGE_DIR = Path(validation.__file__).resolve().parent

KIND_LABELS = {
    "gguf_size": _("GGUF file size"),
    "kv_bytes_per_token": _("KV cache per token"),
    "vllm_weights_gib": _("Weights loaded by vLLM"),
    "engine_kv_cache_gib": _("KV-cache memory an engine reserves"),
    "engine_kv_tokens": _("Tokens an engine's KV cache holds"),
    "engine_max_concurrency": _("Requests an engine serves at once"),
    "finetune_peak": _("Peak memory of fine-tuning"),
    "decode_tps": _("Decode speed"),
    "decode_total_tps": _("Decode throughput of all requests together"),
    "prefill_tps": _("Prefill speed"),
    "offload_gpu_bytes": _("GPU memory of a GPU + RAM split"),
    "offload_host_bytes": _("Host memory of a GPU + RAM split"),
    "engine_activation_gib": _("Activation peak of vLLM's profile run"),
    "engine_mem_fraction": _("SGLang's default static memory share (--mem-fraction-static)"),
    "load_total_tps": _("Serving benchmark throughput, prompt and output tokens"),
    "load_output_tps": _("Serving benchmark throughput, output tokens"),
    "load_ttft_mean_ms": _("Serving benchmark time to first token, mean"),
    "load_ttft_median_ms": _("Serving benchmark time to first token, median"),
    "load_ttft_p99_ms": _("Serving benchmark time to first token, 99th percentile"),
    "load_tpot_mean_ms": _("Serving benchmark time per output token, mean"),
    "load_tpot_median_ms": _("Serving benchmark time per output token, median"),
    "load_tpot_p99_ms": _("Serving benchmark time per output token, 99th percentile"),
}

UNIT_LABELS = {
    "bytes": _("bytes"),
    "bytes/token": _("bytes/token"),
    "tokens": _("tokens"),
    "tokens/s": _("tokens/s"),
    "requests": _("requests"),
    "ms": _("ms"),
}

_URL = re.compile(r"https?://[^\s<>\"']+")
# Our own section references in a source line point into the repository, not to anything a reader can open.
_INTERNAL_REFERENCE = re.compile(r"[;,]?\s*docs/methodology\.md(?:\s*§\s*[\d.]+(?:\s*,\s*§\s*[\d.]+)*)?")
# A commit a source line pins ("(commit 25933486)", "at commit 145b6280…"): kept in the downloadable data, where a
# script can use it; a reader cites the document by its title and link.
_COMMIT = re.compile(r"\s*\(?\b(?:at\s+)?commit\s+[0-9a-f]{7,40}\b\)?", re.IGNORECASE)
# The same pin written after a repository's name ("llm-d-planner @d3121e05", "ik_llama.cpp at 8337e4cd…"), and a
# commit as a path segment of a link (".../blob/d3121e05…/logs/…"), which the link keeps and its text shows as "…"
_PIN = re.compile(r"\s*(?:@|\bat\s+)(?=[0-9]*[a-f])[0-9a-f]{7,40}\b")
_HASH_SEGMENT = re.compile(r"/(?=[0-9]*[a-f])[0-9a-f]{7,40}(?=/)")  # a letter in it: not a number

# The architecture families the cases are grouped by, in the reader's words.
FAMILY_LABELS = {
    "dense": _("Dense"),
    "dense-tied": _("Dense, tied embeddings"),
    "dense-swa": _("Dense, sliding window"),
    "moe": _("Mixture of experts"),
    "mla-moe": _("Latent attention (MLA) + experts"),
    "gpt-oss": _("gpt-oss (experts, sliding window, MXFP4)"),
    "hybrid": _("Hybrid linear attention"),
    "vlm": _("Vision-language"),
}


def family_label(family: str) -> str:
    return str(FAMILY_LABELS.get(family, family.replace("-", " ")))


def kind_label(kind: str) -> str:
    return str(KIND_LABELS.get(kind, kind.replace("_", " ")))


def unit_label(unit: str) -> str:
    return str(UNIT_LABELS.get(unit, unit))


@dataclass(frozen=True, slots=True)
class SourcePart:
    text: str
    href: str = ""


def source_parts(source: str) -> list[SourcePart]:
    """A source line as text and links, without our internal section references."""
    text = _PIN.sub("", _COMMIT.sub("", _INTERNAL_REFERENCE.sub("", source))).strip().rstrip(";,").strip()
    parts: list[SourcePart] = []
    position = 0
    for match in _URL.finditer(text):
        url = match.group(0).rstrip(").,;")
        if match.start() > position:
            parts.append(SourcePart(text[position : match.start()]))
        parts.append(SourcePart(_HASH_SEGMENT.sub("/…", url), url))
        position = match.start() + len(url)
    if position < len(text):
        parts.append(SourcePart(text[position:]))
    return parts


# Reader names of the settings a case records; an engine's own flag (max_model_len, gpu_memory_utilization,
# mem_fraction_static) keeps its name, which is what one types to set it.
SETTING_LABELS = {
    "gpu": _("GPU"),
    "gpus": _("GPUs"),
    "ftype": _("GGUF type"),
    "precision": _("Precision"),
    "context": _("Context"),
    "concurrency": _("Concurrent requests"),
    "generated": _("Tokens generated"),
    "prompt": _("Prompt tokens"),
    "kv_dtype": _("KV cache type"),
    "framework": _("Framework"),
    "mode": _("Mode"),
    "sequence_length": _("Sequence length"),
    "batch_size": _("Batch size"),
    "lora_rank": _("LoRA rank"),
    "lora_targets": _("LoRA targets"),
    "optimizer": _("Optimizer"),
    "gradient_checkpointing": _("Gradient checkpointing"),
    "measures": _("Measures"),
    "tensor_parallel": _("Tensor parallel"),
    "imatrix": _("Importance matrix"),
    "gpu_total_gib": _("GPU memory (GiB)"),
    "kv_cache_gib": _("KV cache (GiB)"),
    "file": _("File"),
    "placement": _("Placement"),
    "gpu_layers": _("Layers on the GPU (-ngl)"),
    "cpu_moe_layers": _("Layers with experts in RAM (--n-cpu-moe)"),
    "engine": _("Engine"),
    "output": _("Output tokens"),
    "requests": _("Requests"),
    "request_rate": _("Requests per second"),
    "max_concurrency": _("Requests at a time, at most"),
    "release": _("Release"),
    "gpu_mem_mib": _("GPU memory (MiB)"),
    "gpu_name": _("GPU name"),
    "enforce_eager": _("Without CUDA graphs"),
    "dataset": _("Prompts"),
    "random_range_ratio": _("Length spread (±)"),
    "max_num_seqs": _("Requests at a time, engine limit (--max-num-seqs)"),
    "max_num_batched_tokens": _("Tokens per step (--max-num-batched-tokens)"),
    "chunked_prefill_size": _("Prompt chunk (--chunked-prefill-size)"),
    "data_parallel": _("Data-parallel replicas"),
    "expert_parallel": _("Expert parallel"),
    "dp_attention": _("Data-parallel attention"),
}
# How a serving benchmark drew its prompts, in words
DATASET_LABELS = {
    "sharegpt": _("ShareGPT conversations"),
    "random": _("random tokens"),
    "fixed": _("fixed lengths"),
}


def settings_text(settings: Any) -> list[str]:
    """The settings a case was measured at, as "name: value" (the model is shown as the case itself)."""
    shown = []
    for name, value in settings.items():
        if name == "model" or value is None:  # an unset value (a rate of "all at once") is no setting
            continue
        if isinstance(value, bool):
            value = gettext("yes") if value else gettext("no")
        elif name == "gpu" and isinstance(value, str) and (gpu := gpu_by_slug(value)) is not None:
            value = gpu.short_name  # "H100 SXM 80GB", not the catalog's slug
        elif name == "precision" and isinstance(value, str):
            value = precision_name(value)  # "INT8 W8A8", not the catalog's key
        elif name == "engine" and isinstance(value, str):
            value = engine_name(value)  # "vLLM", not the catalog's key
        elif name == "dataset" and isinstance(value, str):
            value = str(DATASET_LABELS.get(value, value))
        shown.append(f"{SETTING_LABELS.get(name, name)}: {value}")
    return shown


def _check_safely(case: Case) -> Result:
    try:
        return validation.check(case)
    except Exception as error:  # a failing predictor must not take the page down
        logger.warning("validation predictor failed for %s", case.id, exc_info=True)
        return Result(case, None, f"{type(error).__name__}: {error}")


def _fingerprint() -> str:
    """Changes whenever a data file or predictor module changes, so an edit shows without waiting an hour."""
    stats = []
    for path in sorted([*PACKAGE_DIR.glob("*.py"), *(PACKAGE_DIR / "data").glob("*.json")]):
        stat = path.stat()
        stats.append(f"{path.name}:{stat.st_size}:{stat.st_mtime_ns}")
    return hashlib.sha256("|".join(stats).encode()).hexdigest()[:16]


class _Unreadable(Exception):
    pass


# Every case with its prediction, kept for an hour per state of the data files and predictor modules.
VALIDATION_RESULTS: Kept[list[Result]] = Kept("validation-results", seconds=CACHE_SECONDS)


def validation_results() -> tuple[list[Result], str]:
    """Every case with its prediction, and why the cases could not be read if they could not (never kept)."""

    def checked() -> list[Result]:
        try:
            cases = validation.load_cases()
        except (ValueError, OSError) as error:
            logger.warning("validation cases could not be read", exc_info=True)
            raise _Unreadable(str(error)) from error
        return kept_results(cases, _check_safely)

    try:
        return VALIDATION_RESULTS.get(checked, _fingerprint()), ""
    except _Unreadable as error:
        return [], str(error)


def _shown_percent(fraction: float | None) -> float | None:
    """A fraction as the percent the page shows, to the tenth; a tiny negative error shows as 0.0, never -0.0."""
    if fraction is None:
        return None
    percent = round(fraction * 100, 1)
    return 0.0 if percent == 0 else percent


def _published_digits(value: float) -> int:
    """The decimals a measured figure was published with (at most three); the prediction is shown alike."""
    text = repr(value)
    if "e" in text or "." not in text:
        return 0
    decimals = text.split(".")[1].rstrip("0")
    return min(len(decimals), 3)


@dataclass(frozen=True, slots=True)
class Row:
    result: Result
    model: str
    engine: str
    measured: float
    predicted: float | None
    digits: int
    unit: str
    error_percent: float | None  # signed, to the tenth the page shows
    tolerance_percent: float
    source: list[SourcePart]
    settings: list[str]

    @property
    def case(self) -> Case:
        return self.result.case

    @property
    def family(self) -> str:
        return family_label(self.case.family)


def _row(result: Result) -> Row:
    case = result.case
    error = result.error
    return Row(
        result=result,
        model=str(case.settings.get("model", "")).rpartition("/")[2],  # its name, as the catalog shows it
        engine=engine_name(case.engine),
        measured=case.measured,
        predicted=result.predicted,
        digits=_published_digits(case.measured),
        unit=unit_label(case.unit),
        error_percent=_shown_percent(error),
        tolerance_percent=case.tolerance * 100,
        source=source_parts(case.source),
        settings=settings_text(case.settings),
    )


@dataclass(frozen=True, slots=True)
class KindSection:
    kind: str
    label: str
    rows: list[Row]


def _sections(results: list[Result]) -> list[KindSection]:
    kinds: dict[str, list[Row]] = {}
    for result in results:
        kinds.setdefault(result.case.kind, []).append(_row(result))
    return [KindSection(kind, kind_label(kind), rows) for kind, rows in kinds.items()]


@dataclass(frozen=True, slots=True)
class SummaryRow:
    kind: str
    key: str
    kind_key: str  # the kind's page
    cases: int
    within: int
    mean_abs_error_percent: float | None  # to the tenth, as the page shows it
    worst_id: str
    worst_error_percent: float | None  # signed, to the tenth


def _serving_key(case: Case) -> str:
    return f"{engine_name(case.engine)} · {gpu_family_label(case_gpu_family(case))}"


def _summary(results: list[Result], by: str) -> list[SummaryRow]:
    """Per kind and family, engine, or (``by`` "gpu") engine and GPU family of the serving benchmarks."""
    rows = []
    if by == "gpu":
        grouped = validation.summary([r for r in results if r.case.kind.startswith("load_")], _serving_key)
    else:
        grouped = validation.summary(results, by=by)
    for group in grouped:
        worst_error = group.worst.error if group.worst is not None else None
        rows.append(
            SummaryRow(
                kind=kind_label(group.kind),
                kind_key=group.kind,
                key=group.key if by == "gpu" else engine_name(group.key) if by == "engine" else family_label(group.key),
                cases=group.cases,
                within=group.within,
                mean_abs_error_percent=_shown_percent(group.mean_abs_error),
                worst_id=group.worst.case.id if group.worst is not None else "",
                worst_error_percent=_shown_percent(worst_error),
            )
        )
    return rows


@dataclass(frozen=True, slots=True)
class KindLink:
    """One kind in the overview's contents: its page, how many cases and how many within."""

    kind: str
    label: str
    cases: int
    within: int


def _kinds(results: list[Result]) -> list[KindLink]:
    counts: dict[str, list[int]] = {}
    for result in results:
        count = counts.setdefault(result.case.kind, [0, 0])
        count[0] += 1
        count[1] += result.within
    return [KindLink(kind, kind_label(kind), cases, within) for kind, (cases, within) in counts.items()]


@require_GET
def validation_page(request: HttpRequest, kind: str | None = None) -> HttpResponse:
    """The overview (totals, the summaries, a page per kind) or one kind's page with every case of it."""
    results, load_error = validation_results()
    shown = [r for r in results if r.case.kind == kind] if kind else []
    if kind and not shown and not load_error:
        missing: dict[str, object] = {"unknown_kind": kind, "kinds": _kinds(results)}
        return render(request, "validation.html", missing, status=404)
    context: dict[str, object] = {
        "kind": kind,
        "kind_label": kind_label(kind) if kind else "",
        "sections": _sections(shown),
        "kinds": _kinds(results),
        "by_family": _summary(results, "family") if not kind else [],
        "by_engine": _summary(results, "engine") if not kind else [],
        "by_gpu": _summary(results, "gpu") if not kind else [],
        "total": len(shown or results),
        "within": sum(result.within for result in shown or results),
        "without_prediction": sum(result.predicted is None for result in shown or results),
        "load_error": load_error,
    }
    response = render(request, "validation.html", context)
    response["Cache-Control"] = "public, max-age=3600"
    return response
