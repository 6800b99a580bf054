"""The one seam to the Hugging Face Hub: model info, config.json, quantized sibling repos.

This is the only module that imports `huggingface_hub`. The library speaks HTTP through its own client
(`httpx2`); we hand it a transport that sends every request through `httpx`, the HTTP library of the rest of
gpufit, so one set of timeouts applies and tests replay recorded Hub responses with respx at the httpx layer.

Failures come out as a few plain states a page can print: gated (401/403 or a gated repo), not found (404),
rate limited (429 after honouring Retry-After), unavailable (timeouts, connection errors, 5xx after backoff).
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from email.utils import parsedate_to_datetime
from typing import Any, Literal, TypeVar

import httpx
import httpx2
from huggingface_hub import HfApi, hf_hub_url, set_client_factory
from huggingface_hub.errors import (
    EntryNotFoundError,
    GatedRepoError,
    HfHubHTTPError,
    RepositoryNotFoundError,
)

DEFAULT_ENDPOINT = "https://huggingface.co"
T = TypeVar("T")
ListingSort = Literal["trending_score", "downloads", "created_at"]

# Quantized formats as the Hub tags them (library tags, repo-name conventions), most specific first.
_FORMAT_BY_TAG = (
    ("gguf", "GGUF"),
    ("mlx", "MLX"),
    ("awq", "AWQ"),
    ("gptq", "GPTQ"),
    ("w8a8", "W8A8"),
    ("bitsandbytes", "NF4"),
    ("nvfp4", "NVFP4"),
    ("fp8", "FP8"),
    ("exl2", "EXL2"),
)


def _compressed_tensors_format(quantization: Mapping[str, Any]) -> str | None:
    """An llm-compressor checkpoint's format from its scheme (``config_groups``): 8-bit integer weights with 8-bit
    activations are INT8 W8A8, 8-bit float weights FP8, 4-bit float weights in groups of 16 (the
    ``nvfp4-pack-quantized`` format) NVFP4; other schemes (W4A16 and the like) are not told apart."""
    if str(quantization.get("format") or "").lower() == "nvfp4-pack-quantized":
        return "NVFP4"
    groups = quantization.get("config_groups") or {}
    for group in groups.values() if isinstance(groups, Mapping) else ():
        weights = (group or {}).get("weights") or {}
        activations = (group or {}).get("input_activations") or {}
        if str((group or {}).get("format") or "").lower() == "nvfp4-pack-quantized" or (
            weights.get("num_bits") == 4 and weights.get("type") == "float" and weights.get("group_size") == 16
        ):
            return "NVFP4"
        if weights.get("num_bits") == 8 and weights.get("type") == "float":
            return "FP8"
        if weights.get("num_bits") == 8 and weights.get("type") == "int" and activations.get("num_bits") == 8:
            return "W8A8"
    return None


class HubError(Exception):
    """A Hub request that did not give us the model. `state` is what the page says."""

    state = "failed"

    def __init__(self, hub_id: str, detail: str) -> None:
        super().__init__(f"{hub_id}: {detail}")
        self.hub_id = hub_id
        self.detail = detail


class HubGated(HubError):
    state = "gated"


class HubNotFound(HubError):
    state = "not_found"


class HubRateLimited(HubError):
    state = "rate_limited"

    def __init__(self, hub_id: str, detail: str, retry_after_s: float | None = None) -> None:
        super().__init__(hub_id, detail)
        self.retry_after_s = retry_after_s


class HubUnavailable(HubError):
    """Timeouts, refused connections, 5xx: worth trying again later."""

    state = "unavailable"


@dataclass(frozen=True, slots=True)
class HubFile:
    path: str
    size_bytes: int | None


@dataclass(frozen=True, slots=True)
class HubModelInfo:
    """What `GET /api/models/<id>?blobs=true` tells us, reduced to the facts the catalog keeps."""

    hub_id: str
    sha: str | None
    created_at: datetime | None
    last_modified: datetime | None
    gated: str | None  # None when open; "auto" / "manual" when the repo asks for access
    private: bool
    downloads: int | None
    likes: int | None
    pipeline_tag: str | None
    library_name: str | None
    tags: tuple[str, ...]
    license: str | None
    base_models: tuple[str, ...]
    safetensors_total: int | None
    safetensors_by_dtype: Mapping[str, int] | None
    files: tuple[HubFile, ...] = ()
    api_config: Mapping[str, Any] | None = None

    @property
    def quantized_format(self) -> str | None:
        """GGUF / MLX / AWQ / GPTQ / NF4 / NVFP4 / FP8 when this repo holds a quantized build, else None."""
        haystack = {tag.lower() for tag in self.tags} | {self.library_name or ""}
        name = self.hub_id.lower()
        for needle, label in _FORMAT_BY_TAG:
            if needle in haystack or re.search(rf"(^|[/_.-]){needle}([_.-]|$)", name):
                return label
        quantization = (self.api_config or {}).get("quantization_config") or {}
        quant_method = quantization.get("quant_method")
        if isinstance(quant_method, str) and quant_method.lower() == "compressed-tensors":
            return _compressed_tensors_format(quantization)
        if isinstance(quant_method, str) and quant_method.lower() == "modelopt":
            return "NVFP4" if str(quantization.get("quant_algo") or "").upper() == "NVFP4" else None
        if isinstance(quant_method, str):
            return {"awq": "AWQ", "gptq": "GPTQ", "fp8": "FP8", "bitsandbytes": "NF4"}.get(quant_method.lower())
        return None

    def files_matching(self, suffix: str) -> tuple[HubFile, ...]:
        return tuple(f for f in self.files if f.path.lower().endswith(suffix))


@dataclass(frozen=True, slots=True)
class HubListing:
    """One row of the Hub's model listing (`GET /api/models?pipeline_tag=…&sort=…`)."""

    hub_id: str
    downloads: int | None
    likes: int | None
    created_at: datetime | None
    pipeline_tag: str | None
    library_name: str | None
    tags: tuple[str, ...]

    @property
    def organisation(self) -> str:
        return self.hub_id.split("/", 1)[0]


@dataclass
class HubSettings:
    endpoint: str = DEFAULT_ENDPOINT
    token: str | None = None
    timeout_s: float = 10.0
    max_retries: int = 3
    backoff_s: float = 1.0
    max_retry_after_s: float = 30.0
    # The least time between two requests of one client: the Hub counts API requests per 5-minute window
    # (https://huggingface.co/docs/hub/rate-limits); 0 for the on-demand import, which makes a handful.
    min_interval_s: float = 0.0
    sleep: Callable[[float], None] = field(default=time.sleep)
    clock: Callable[[], float] = field(default=time.monotonic)


class _HttpxTransport(httpx2.BaseTransport):
    """Carries huggingface_hub's requests over httpx (redirects followed here, bodies fully read)."""

    def __init__(self, timeout_s: float) -> None:
        self._client = httpx.Client(
            timeout=httpx.Timeout(timeout_s, connect=min(timeout_s, 5.0)), follow_redirects=True
        )

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        sent = self._client.request(
            request.method,
            str(request.url),
            headers=[(k, v) for k, v in request.headers.multi_items() if k.lower() != "host"],
            content=request.read() or None,
        )
        # httpx already decoded the body: drop the encoding headers so httpx2 does not decode it twice.
        headers = [
            (k, v)
            for k, v in sent.headers.multi_items()
            if k.lower() not in {"content-encoding", "content-length", "transfer-encoding"}
        ]
        return httpx2.Response(sent.status_code, headers=headers, content=sent.content, request=request)

    def close(self) -> None:
        self._client.close()


_factory_lock = threading.Lock()
_installed_timeout: float | None = None


def _install_transport(timeout_s: float) -> None:
    global _installed_timeout
    with _factory_lock:
        if _installed_timeout == timeout_s:
            return
        set_client_factory(lambda: httpx2.Client(transport=_HttpxTransport(timeout_s)))
        _installed_timeout = timeout_s


class HubClient:
    def __init__(self, settings: HubSettings | None = None) -> None:
        self.settings = settings or HubSettings()
        _install_transport(self.settings.timeout_s)
        self._api = HfApi(endpoint=self.settings.endpoint.rstrip("/"), token=self.settings.token or False)
        self._last_request_at: float | None = None

    # --- reads -----
    def model_info(self, hub_id: str) -> HubModelInfo:
        """Model info with safetensors parameter counts and every file's size (`files_metadata=True`)."""
        info = self._retrying(hub_id, lambda: self._api.model_info(hub_id, files_metadata=True))
        return _to_model_info(info)

    def config(self, hub_id: str, revision: str | None = None) -> dict[str, Any]:
        """The repo's `config.json`, parsed. A repo without one is `HubNotFound` with that detail."""
        url = hf_hub_url(hub_id, "config.json", revision=revision, endpoint=self._api.endpoint)

        def fetch() -> bytes:
            from huggingface_hub.utils import build_hf_headers, get_session, hf_raise_for_status

            response = get_session().get(url, headers=build_hf_headers(token=self.settings.token or False))
            hf_raise_for_status(response)
            return response.content

        try:
            body = self._retrying(hub_id, fetch)
        except HubNotFound as exc:
            raise HubNotFound(hub_id, "the repo has no config.json") from exc
        try:
            config = json.loads(body)
        except ValueError as exc:
            raise HubNotFound(hub_id, "config.json is not valid JSON") from exc
        if not isinstance(config, dict):
            raise HubNotFound(hub_id, "config.json is not a JSON object")
        return config

    def quantized_repo_ids(self, hub_id: str, limit: int = 8) -> list[str]:
        """Repos whose card names this model as `base_model` with relation `quantized`, most used first."""
        return self._retrying(
            hub_id,
            lambda: [
                m.id
                for m in self._api.list_models(filter=f"base_model:quantized:{hub_id}", sort="downloads", limit=limit)
            ],
        )

    def model_facts(self, hub_id: str) -> HubModelInfo:
        """Model info without the file listing: downloads, likes, gated state, licence, the latest commit."""
        info = self._retrying(hub_id, lambda: self._api.model_info(hub_id))
        return _to_model_info(info)

    def listed_models(self, pipeline_tag: str, sort: ListingSort, limit: int) -> list[HubListing]:
        """The Hub's listing for one pipeline tag, `sort` one of "trending_score", "downloads", "created_at"."""
        label = f"listing {pipeline_tag} by {sort}"
        found = self._retrying(
            label, lambda: list(self._api.list_models(pipeline_tag=pipeline_tag, sort=sort, limit=limit))
        )
        return [_to_listing(m) for m in found]

    def quantized_children(self, hub_id: str, limit: int) -> list[HubListing]:
        """Repos whose card names this model as `base_model` with relation `quantized`, newest first."""
        found = self._retrying(
            hub_id,
            lambda: list(
                self._api.list_models(filter=f"base_model:quantized:{hub_id}", sort="created_at", limit=limit)
            ),
        )
        return [_to_listing(m) for m in found]

    # --- retries and error states -----
    def _paced(self) -> None:
        """Wait until `min_interval_s` has passed since this client's last request."""
        s = self.settings
        if s.min_interval_s > 0 and self._last_request_at is not None:
            wait = self._last_request_at + s.min_interval_s - s.clock()
            if wait > 0:
                s.sleep(wait)
        self._last_request_at = s.clock()

    def _retrying(self, hub_id: str, call: Callable[[], T]) -> T:
        s = self.settings
        attempt = 0
        while True:
            try:
                self._paced()
                return call()
            except HfHubHTTPError as exc:
                status = exc.response.status_code if exc.response is not None else None
                if status == 429:
                    wait = _retry_after_s(exc.response)
                    if wait is not None and wait > s.max_retry_after_s:
                        raise HubRateLimited(hub_id, f"the Hub asks us to wait {wait:.0f} s", wait) from exc
                    wait = wait if wait is not None else s.backoff_s * 2**attempt
                    failure: HubError = HubRateLimited(hub_id, "the Hub keeps answering 429 Too Many Requests", wait)
                elif status is not None and status >= 500:
                    wait = s.backoff_s * 2**attempt
                    failure = HubUnavailable(hub_id, f"the Hub answered {status}")
                else:
                    raise _http_failure(hub_id, exc, status) from exc
            except (httpx.TransportError, httpx2.TransportError) as exc:
                wait = s.backoff_s * 2**attempt
                kind = (
                    "timed out"
                    if isinstance(exc, httpx.TimeoutException | httpx2.TimeoutException)
                    else ("could not be reached")
                )
                failure = HubUnavailable(hub_id, f"the Hub {kind} ({type(exc).__name__})")
            attempt += 1
            if attempt > s.max_retries:
                raise failure
            s.sleep(wait)


def _http_failure(hub_id: str, exc: HfHubHTTPError, status: int | None) -> HubError:
    error_code = exc.response.headers.get("X-Error-Code") if exc.response is not None else None
    if isinstance(exc, GatedRepoError) or error_code == "GatedRepo":
        return HubGated(hub_id, "the repo is gated: its files need an accepted licence and a token")
    if isinstance(exc, EntryNotFoundError) or error_code == "EntryNotFound":
        return HubNotFound(hub_id, "the file is not in the repo")
    if status == 404 or error_code == "RepoNotFound":
        return HubNotFound(hub_id, "no such model on the Hub")
    if status in (401, 403) or isinstance(exc, RepositoryNotFoundError):
        return HubGated(hub_id, f"the Hub refused access ({status}): the repo is gated or private")
    return HubUnavailable(hub_id, f"the Hub answered {status}")


def _retry_after_s(response: Any) -> float | None:
    if response is None:
        return None
    value = response.headers.get("Retry-After")
    if value:
        try:
            return max(0.0, float(value))
        except ValueError:
            try:
                return max(0.0, (parsedate_to_datetime(value) - datetime.now(tz=None).astimezone()).total_seconds())
            except (TypeError, ValueError):
                return None
    # The Hub's own header: `"api";r=0;t=55` (t = seconds until the window resets).
    match = re.search(r";\s*t\s*=\s*(\d+)", response.headers.get("RateLimit", ""))
    return float(match.group(1)) if match else None


def _to_listing(info: Any) -> HubListing:
    return HubListing(
        hub_id=info.id,
        downloads=info.downloads,
        likes=info.likes,
        created_at=info.created_at,
        pipeline_tag=info.pipeline_tag,
        library_name=info.library_name,
        tags=tuple(info.tags or ()),
    )


def _to_model_info(info: Any) -> HubModelInfo:
    card = info.card_data
    license_ = getattr(card, "license", None) if card is not None else None
    if not license_:
        license_ = next((t.split(":", 1)[1] for t in info.tags or () if t.startswith("license:")), None)
    base = getattr(card, "base_model", None) if card is not None else None
    base_models = tuple([base] if isinstance(base, str) else base or ())
    gated = info.gated if isinstance(info.gated, str) else None
    files = tuple(
        HubFile(path=s.rfilename, size_bytes=(s.lfs.size if s.lfs is not None else s.size)) for s in info.siblings or ()
    )
    safetensors = info.safetensors
    return HubModelInfo(
        hub_id=info.id,
        sha=info.sha,
        created_at=info.created_at,
        last_modified=info.last_modified,
        gated=gated,
        private=bool(info.private),
        downloads=info.downloads,
        likes=info.likes,
        pipeline_tag=info.pipeline_tag,
        library_name=info.library_name,
        tags=tuple(info.tags or ()),
        license=license_ if isinstance(license_, str) else None,
        base_models=tuple(b for b in base_models if isinstance(b, str)),
        safetensors_total=safetensors.total if safetensors is not None else None,
        safetensors_by_dtype=dict(safetensors.parameters) if safetensors is not None else None,
        files=files,
        api_config=info.config if isinstance(info.config, dict) else None,
    )
