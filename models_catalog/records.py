"""What one import learned about one model, before it touches the database.

Two ways in: the recorded Hub folder (`<org>/<name>/{config.json,meta.json}`) and live Hub responses
(`hub.HubModelInfo` + config.json + quantized sibling repos). Both end in a `ModelRecord` that
`services.model_record_save` writes in one transaction. The facts only published articles give (their
figures and builds, `data/reference_facts.json`) are merged into the record of the models they name.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from models_catalog.hub_ids import HubId, parse_hub_id
from pricing.gpus import BYTES_PER_GB

DATA_DIR = Path(__file__).resolve().parent / "data"
REFERENCE_FACTS = DATA_DIR / "reference_facts.json"
DOWNLOAD_COUNTS = DATA_DIR / "hub_downloads.json"
# The recorded Hub folder was assembled on this day; it is the capture time of every fact in it.
RECORDED_AT = datetime(2026, 11, 29, tzinfo=UTC)


class RecordError(ValueError):
    """The recorded data for a model cannot be read."""


@dataclass(frozen=True, slots=True)
class Figure:
    """One value of one fact, with its source (several figures per fact when sources disagree)."""

    kind: str
    source: str
    value_int: int | None = None
    value_text: str = ""
    source_detail: str = ""
    primary: bool = False


@dataclass(frozen=True, slots=True)
class BuildRecord:
    format: str
    label: str
    repo_id: str
    bits_per_weight: Decimal | None = None
    bits_source: str = ""
    file_size_bytes: int | None = None
    size_source: str = ""
    size_is_approximate: bool = False
    min_ram_bytes: int | None = None
    quality_note: str = ""
    quality_source: str = ""
    source: str = ""
    sort_order: int = 0


@dataclass(frozen=True, slots=True)
class ModelRecord:
    hub_id: HubId
    origin: str  # "hub" / "recorded"
    fetched_at: datetime
    config: Mapping[str, Any] | None
    config_status: str  # complete / partial / none
    params_total: int | None = None
    params_total_source: str = ""
    params_active: int | None = None
    params_active_source: str = ""
    params_by_dtype: Mapping[str, int] | None = None
    licence: str = ""
    task: str = ""
    release_date: date | None = None
    max_context: int | None = None
    modalities: tuple[str, ...] = ()
    downloads: int | None = None
    downloads_as_of: date | None = None  # the day the count was read
    likes: int | None = None
    gated: str = ""
    hub_sha: str = ""
    native_dtype: str = ""
    sources: tuple[str, ...] = ()
    notes: str = ""
    figures: tuple[Figure, ...] = ()
    builds: tuple[BuildRecord, ...] = field(default_factory=tuple)


# --- the recorded folder -----
def recorded_model_dirs(root: Path) -> list[Path]:
    """Every `<org>/<name>/` under root that has a meta.json, in a stable order."""
    return sorted(p.parent for p in Path(root).glob("*/*/meta.json"))


def record_from_folder(folder: Path, fetched_at: datetime) -> ModelRecord:
    meta_path = folder / "meta.json"
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RecordError(f"{meta_path}: {exc}") from exc
    hub_id = parse_hub_id(meta.get("id") or f"{folder.parent.name}/{folder.name}")
    config_path = folder / "config.json"
    config = None
    if config_path.exists():
        try:
            config = json.loads(config_path.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise RecordError(f"{config_path}: {exc}") from exc
    status_text = str(meta.get("config_status") or "")
    config_status = "none" if config is None else ("partial" if status_text.startswith("partial") else "complete")
    # Cite what a reader can look up (the model's listed sources), not a file of ours.
    citation = f"Hugging Face Hub facts for {hub_id.value}, recorded {fetched_at:%Y-%m-%d} from its listed sources"

    figures: list[Figure] = []
    total = _int_or_none(meta.get("total_params"))
    if total is not None:
        figures.append(Figure("params_total", "safetensors", total, "", f"{citation} (Hub safetensors total)"))
    active = _int_or_none(meta.get("active_params"))
    if active is not None:
        figures.append(Figure("params_active", "model_card", active, "", f"{citation} (published figure)"))
    for kind, key in (
        ("params_total", "total_params_published"),
        ("params_active", "active_params_published"),
    ):
        if meta.get(key):
            text = str(meta[key])
            figures.append(
                Figure(kind, "model_card", parse_param_text(text), text, f"{citation} (published figure, as written)")
            )
    max_context = _int_or_none(meta.get("max_context"))
    if max_context is not None:
        figures.append(Figure("max_context", "config", max_context, "", citation))
    if meta.get("license"):
        figures.append(Figure("licence", "model_card", None, str(meta["license"]), citation))
    if meta.get("release_date"):
        figures.append(Figure("release_date", "model_card", None, str(meta["release_date"]), citation))

    return ModelRecord(
        hub_id=hub_id,
        origin="recorded",
        fetched_at=fetched_at,
        config=config,
        config_status=config_status,
        params_total=total,
        params_total_source="safetensors" if total is not None else "",
        params_active=active,
        params_active_source="model_card" if active is not None else "",
        params_by_dtype=meta.get("params_by_dtype") or None,
        licence=str(meta.get("license") or ""),
        task=str(meta.get("pipeline_tag") or ""),
        release_date=_date_or_none(meta.get("release_date")),
        max_context=max_context,
        modalities=tuple(meta.get("modalities") or ()),
        sources=tuple(str(s) for s in meta.get("sources") or ()),
        notes=str(meta.get("notes") or ""),
        figures=tuple(figures),
    )


# --- live Hub responses -----
def record_from_hub(
    info: Any, config: Mapping[str, Any], builds: Sequence[BuildRecord], fetched_at: datetime, endpoint: str
) -> ModelRecord:
    """`info` is a `hub.HubModelInfo`; `builds` come from `builds_from_hub`."""
    hub_id = parse_hub_id(info.hub_id)
    api = f"{endpoint.rstrip('/')}/api/models/{hub_id.value}"
    figures: list[Figure] = []
    if info.safetensors_total:
        figures.append(Figure("params_total", "safetensors", info.safetensors_total, "", f"{api} (safetensors.total)"))
    if info.license:
        figures.append(Figure("licence", "model_card", None, info.license, f"{api} (cardData.license)"))
    created = info.created_at.date() if info.created_at else None
    if created:
        figures.append(Figure("release_date", "hub_api", None, created.isoformat(), f"{api} (createdAt)"))
    if info.downloads is not None:
        figures.append(Figure("downloads", "hub_api", info.downloads, "", f"{api} (downloads, last 30 days)"))
    if info.likes is not None:
        figures.append(Figure("likes", "hub_api", info.likes, "", f"{api} (likes)"))
    nested = config.get("text_config")
    text_config = nested if isinstance(nested, Mapping) else config
    max_context = _int_or_none(text_config.get("max_position_embeddings"))
    if max_context is not None:
        figures.append(
            Figure(
                "max_context",
                "config",
                max_context,
                "",
                f"{endpoint.rstrip('/')}/{hub_id.value}/blob/main/config.json",
            )
        )
    modalities = ["text"]
    if "vision_config" in config or (info.pipeline_tag or "").startswith("image-"):
        modalities.append("image")
    return ModelRecord(
        hub_id=hub_id,
        origin="hub",
        fetched_at=fetched_at,
        config=config,
        config_status="complete",
        params_total=info.safetensors_total,
        params_total_source="safetensors" if info.safetensors_total else "",
        params_by_dtype=dict(info.safetensors_by_dtype) if info.safetensors_by_dtype else None,
        licence=info.license or "",
        task=info.pipeline_tag or "",
        release_date=created,
        max_context=max_context,
        modalities=tuple(modalities),
        downloads=info.downloads,
        downloads_as_of=fetched_at.date() if info.downloads is not None else None,
        likes=info.likes,
        gated=info.gated or "",
        hub_sha=info.sha or "",
        sources=(api, f"{endpoint.rstrip('/')}/{hub_id.value}/blob/main/config.json"),
        figures=tuple(figures),
        builds=tuple(builds),
    )


_GGUF_LABEL = re.compile(
    r"(?i)(?:^|[-_.])((?:IQ\d_[A-Z0-9_]+?|Q\d_K(?:_[SMLX]L?)?|Q\d_\d|BF16|F16|F32|TQ\d_\d))"
    r"(?=[-_.](?:\d{5}-of-\d{5}\.)?gguf$|\.gguf$)"
)
_BITS_IN_NAME = re.compile(
    r"(?i)(?:^|[-_.])(?:(\d{1,2})[-_]?bits?|int(\d{1,2})|w(\d{1,2})a\d{1,2}|q(\d)f16)(?:[-_.]|$)"
)


def builds_from_hub(repo: Any, params_total: int | None, endpoint: str) -> list[BuildRecord]:
    """Quantized builds in one sibling repo (`repo`: a `hub.HubModelInfo`), sized from its file listing."""
    fmt = repo.quantized_format
    if fmt is None:
        return []
    listing = f"{endpoint.rstrip('/')}/api/models/{repo.hub_id} (file listing, blobs=true)"
    builds: list[BuildRecord] = []
    if fmt == "GGUF":
        sizes: dict[str, int] = {}
        for f in repo.files_matching(".gguf"):
            name = f.path.rsplit("/", 1)[-1]
            if name.lower().startswith("mmproj"):
                continue
            match = _GGUF_LABEL.search(name)
            if match and f.size_bytes is not None:
                label = match.group(1).upper()
                sizes[label] = sizes.get(label, 0) + f.size_bytes
        for label, size in sizes.items():
            builds.append(_sized_build(fmt, label, repo.hub_id, size, params_total, listing))
    else:
        weights = [f for f in repo.files if f.path.endswith((".safetensors", ".bin")) and f.size_bytes]
        if not weights:
            return []
        size = sum(f.size_bytes for f in weights)
        match = _BITS_IN_NAME.search(repo.hub_id.split("/", 1)[1])
        bits = next((g for g in match.groups() if g), None) if match else None
        label = f"{bits}-bit" if bits else fmt
        builds.append(_sized_build(fmt, label, repo.hub_id, size, params_total, listing))
    return builds


def _sized_build(fmt: str, label: str, repo_id: str, size: int, params_total: int | None, listing: str) -> BuildRecord:
    bits = None
    bits_source = ""
    if params_total:
        bits = (Decimal(size * 8) / Decimal(params_total)).quantize(Decimal("0.01"))
        bits_source = "computed: file size × 8 / total parameters"
    return BuildRecord(
        format=fmt,
        label=label,
        repo_id=repo_id,
        bits_per_weight=bits,
        bits_source=bits_source,
        file_size_bytes=size,
        size_source=listing,
        source=listing,
    )


# --- the product's reference facts -----
def reference_texts(data: Mapping[str, Any]) -> list[str]:
    """What we wrote ourselves in ``reference_facts.json`` and pages show: how each document is cited, each build's
    quality note and a build's descriptive label. Pages show them in the reader's language (the message catalogs
    hold their translations; ``models_catalog/babel_extract.py`` puts them there)."""
    texts = list(data["documents"].values())
    for entry in data["models"].values():
        builds = entry.get("builds", ())
        texts.extend(b["label"] for b in builds if " " in b["label"])  # "FP8 reference"; "4-bit" is no sentence
        texts.extend(b["quality_note"] for b in builds if b.get("quality_note"))
    return list(dict.fromkeys(texts))


def load_download_counts(path: Path = DOWNLOAD_COUNTS) -> dict[str, Any]:
    """The recorded Hub download counts (``data/hub_downloads.json``): ``{"as_of": date, "detail": citation,
    "downloads": {lower-cased hub id: count}}``."""
    data = json.loads(path.read_text(encoding="utf-8"))
    source = data["source"]
    detail = (
        f"Hugging Face API downloads (30 days) as scraped into {source['repo']} {source['path']} "
        f"@{source['commit'][:8]}, {data['as_of']}"
    )
    counts = {hub_id.lower(): int(count) for hub_id, count in data["downloads"].items()}
    return {"as_of": date.fromisoformat(data["as_of"]), "detail": detail, "downloads": counts}


def with_download_count(record: ModelRecord, recorded: Mapping[str, Any]) -> ModelRecord:
    """A recorded Hub download count where the record has none of its own (a live import reads the Hub's)."""
    count = recorded["downloads"].get(record.hub_id.value.lower())
    if count is None or record.downloads is not None:
        return record
    figure = Figure("downloads", "hub_api", count, "", recorded["detail"])
    return replace(record, downloads=count, downloads_as_of=recorded["as_of"], figures=(*record.figures, figure))


def load_reference_facts(path: Path = REFERENCE_FACTS) -> dict[str, dict[str, Any]]:
    """Facts and builds only published articles give for a model, keyed by lower-cased Hub id."""
    data = json.loads(path.read_text(encoding="utf-8"))
    documents = data["documents"]
    result: dict[str, dict[str, Any]] = {}
    for hub_id, entry in data["models"].items():
        figures = tuple(
            Figure(
                kind=f["kind"],
                source="reference",
                value_int=f.get("value_int"),
                value_text=f.get("value_text", ""),
                source_detail=documents[f["document"]],
                primary=bool(f.get("primary")),
            )
            for f in entry.get("facts", ())
        )
        builds = tuple(
            BuildRecord(
                format=b["format"],
                label=b["label"],
                repo_id=b["repo_id"],
                bits_per_weight=Decimal(str(b["bits_per_weight"])) if b.get("bits_per_weight") else None,
                bits_source=b.get("bits_source", ""),
                file_size_bytes=round(b["weights_gb"] * BYTES_PER_GB) if b.get("weights_gb") else None,
                size_source=documents[b["document"]] if b.get("weights_gb") else "",
                size_is_approximate=True,
                min_ram_bytes=round(b["min_ram_gb"] * BYTES_PER_GB) if b.get("min_ram_gb") else None,
                quality_note=b.get("quality_note", ""),
                quality_source=documents[b["document"]] if b.get("quality_note") else "",
                source=documents[b["document"]],
                sort_order=i,
            )
            for i, b in enumerate(entry.get("builds", ()))
        )
        counted = next((f for f in entry.get("facts", ()) if f["kind"] == "downloads" and f.get("as_of")), None)
        result[hub_id.lower()] = {
            "figures": figures,
            "builds": builds,
            "native_dtype": entry.get("native_dtype", ""),
            "downloads_as_of": date.fromisoformat(counted["as_of"]) if counted else None,
        }
    return result


def with_reference_facts(record: ModelRecord, reference: Mapping[str, Mapping[str, Any]]) -> ModelRecord:
    """Add the published articles' figures and builds; a reference figure fills a fact nothing else gave."""
    entry = reference.get(record.hub_id.value.lower())
    if not entry:
        return record
    figures: tuple[Figure, ...] = entry["figures"]
    changes: dict[str, Any] = {"figures": record.figures + figures}
    for kind, attr in (("params_total", "params_total"), ("params_active", "params_active")):
        chosen = next((f for f in figures if f.kind == kind and f.primary and f.value_int), None)
        if chosen and getattr(record, attr) is None:
            changes[attr] = chosen.value_int
            changes[f"{attr}_source"] = "reference"
    for kind, attr in (("downloads", "downloads"), ("likes", "likes")):
        chosen = next((f for f in figures if f.kind == kind and f.value_int is not None), None)
        if chosen and getattr(record, attr) is None:
            changes[attr] = chosen.value_int
            if kind == "downloads" and entry.get("downloads_as_of"):
                changes["downloads_as_of"] = entry["downloads_as_of"]
    known = {(b.repo_id, b.label) for b in record.builds}
    changes["builds"] = record.builds + tuple(b for b in entry["builds"] if (b.repo_id, b.label) not in known)
    if entry.get("native_dtype") and not record.native_dtype:
        changes["native_dtype"] = entry["native_dtype"]
    return replace(record, **changes)


# --- small parsers -----
_PARAM_TEXT = re.compile(r"^\s*~?\s*(\d+(?:\.\d+)?)\s*([BMT])\b", re.IGNORECASE)


def parse_param_text(text: str) -> int | None:
    """'30.5B' → 30_500_000_000, '~21B (card: 20.9B)' → 21_000_000_000; None when it is not a plain figure."""
    match = _PARAM_TEXT.match(text)
    if not match:
        return None
    scale = {"M": 10**6, "B": 10**9, "T": 10**12}[match.group(2).upper()]
    return round(Decimal(match.group(1)) * scale)


def _int_or_none(value: Any) -> int | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _date_or_none(value: Any) -> date | None:
    if not value:
        return None
    try:
        return date.fromisoformat(str(value)[:10])
    except ValueError:
        return None
