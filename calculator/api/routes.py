"""The API's operations. Each reads its input, calls the same selectors and page functions the site uses, and
returns plain data that django-ninja checks against the response schema it publishes."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

from django.http import Http404, HttpRequest, HttpResponse
from ninja import Field, NinjaAPI, Query, Schema
from ninja.errors import HttpError
from ninja.errors import ValidationError as NinjaValidationError
from pydantic import ValidationError

from calculator.api.body import json_body
from calculator.api.catalog import MAX_LIMIT, MAX_QUERY_CHARS, ModelFilters, model_detail, model_page, model_summary
from calculator.api.catalog_schemas import ApiPriceOut, GpuOfferOut, GpuOut, ModelListOut, ModelOut, ProviderOut
from calculator.api.errors import ApiError, bad_parameters, error_response
from calculator.api.estimate import estimate_json
from calculator.api.plan import plan_json
from calculator.api.schemas import (
    MAX_JSON_DEPTH,
    CalculatorQuery,
    ErrorOut,
    EstimateOut,
    EstimateQuery,
    InlineConfig,
    PlanQuery,
)
from calculator.estimation.engines.builds import released_precision
from calculator.page import model_page as page_for
from calculator.page import page_choices
from calculator.page import sources as page_data
from calculator.page.basis import page_basis
from calculator.plan_for import plan_for
from calculator.plan_state import parse_plan
from calculator.state import CalculatorState, parse_state_strict
from calculator.validation.bands import validation_family
from models_catalog import selectors as catalog
from models_catalog.hub_ids import InvalidHubId, parse_hub_id
from models_catalog.models import Model
from models_catalog.specs import SpecUnavailable, param_counts, spec_from_config
from pricing import selectors as pricing
from pricing.gpus import load_gpus
from pricing.models import ApiPrice

MAX_LAYERS = 4096  # far above any released model; a hostile config could otherwise ask for billions of layers

api = NinjaAPI(
    title="gpufit API",
    version="1",
    description=(
        "How much GPU memory an open-weight model needs, on which GPUs it runs and what that costs: the numbers "
        "of the model pages as JSON. Bytes are integers of bytes; money is USD with the day it was captured. "
        'Errors are JSON: {"error": {"code", "message", "parameters"}}.'
    ),
    openapi_url="/openapi.json",
    docs_url=None,
    urls_namespace="api-v1",
)

ERRORS: dict[int, Any] = {400: ErrorOut, 429: ErrorOut}
NOT_FOUND: dict[int, Any] = {**ERRORS, 404: ErrorOut}


@api.exception_handler(ApiError)
def _api_error(request: HttpRequest, exc: ApiError) -> HttpResponse:
    return error_response(exc)


def _parameter(loc: tuple[Any, ...] | list[Any]) -> str:
    named = [str(part) for part in loc if part not in ("query", "path", "body")]
    return ".".join(named) or "request"


@api.exception_handler(NinjaValidationError)
def _invalid(request: HttpRequest, exc: NinjaValidationError) -> HttpResponse:
    problems: dict[str, str] = {}
    for error in exc.errors:
        problems.setdefault(_parameter(error.get("loc", ())), str(error.get("msg", "invalid")))
    return error_response(bad_parameters(problems))


@api.exception_handler(Http404)
def _not_found(request: HttpRequest, exc: Http404) -> HttpResponse:
    return error_response(ApiError(404, "not_found", str(exc) or "Not found."))


@api.exception_handler(HttpError)
def _http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
    return error_response(ApiError(exc.status_code, "http_error", str(exc)))


def _today() -> Any:
    return datetime.now(UTC).date()


def _catalog_model(hub_id: str, parameter: str | None = None) -> Model:
    """The catalog's model for an id; 400 naming ``parameter`` for a malformed id (404 on a path), 404 unknown."""
    try:
        parsed = parse_hub_id(hub_id)
    except InvalidHubId as exc:
        if parameter:
            raise bad_parameters({parameter: str(exc)}) from None
        raise ApiError(404, "not_found", f"Not a model id: {exc}.") from None
    model = catalog.model_by_hub_id(parsed)
    if model is None:
        raise ApiError(404, "not_found", f"No model {parsed.value} in the catalog.")
    return model


def _estimate(request: HttpRequest, sources: page_data.PageSources, model_id: str | None) -> dict[str, Any]:
    strict = parse_state_strict(request.GET, sources.choices)
    if strict.problems:
        raise bad_parameters(strict.problems)
    return estimate_json(page_for(sources.inputs(strict.state)), strict.state, model_id)


@api.get(
    "/estimate",
    response={200: EstimateOut, **NOT_FOUND, 422: ErrorOut},
    summary="Estimate for a catalog model",
    description="Everything the model page shows for one calculator state: the memory breakdown term by term "
    "with its formula, the GPU fits and the ranking of current offers, the commands that start it (`commands`: on "
    "the cheapest cloud configuration and on the smallest Mac that holds it), max context and concurrency on `gpu`, "
    "local hardware verdicts, the reader's own machine (`rig`: llama.cpp on `rig` × `rig_gpus` with `ram` GB of "
    "RAM), the break-even against hosted APIs and the model's common questions answered from these figures "
    "(`faq`). 422 when the catalog cannot size the model.",
    tags=["estimate"],
)
def estimate_catalog(request: HttpRequest, query: Query[EstimateQuery]) -> Any:
    model = _catalog_model(query.model, "model")
    basis = page_basis(model, _today())
    if basis.sources is None:
        raise ApiError(422, "unsizable", f"{model.hub_id} cannot be sized: {basis.unsizable}.")
    return _estimate(request, basis.sources, model.hub_id)


@api.get(
    "/plan",
    response={200: dict[str, Any], **NOT_FOUND, 422: ErrorOut},
    summary="Plan serving a monthly volume",
    description="The cheapest ways to serve `out` output tokens a month of a catalog model within latency targets "
    "under steady load (median or 95th percentile): hosted APIs at their per-token prices (cached input at its price), "
    "replicas of the instances the model page ranks, each sized for the peak rate with the requests it runs within "
    "the targets, and owned servers (`price-dgx-h100=250000` sets a server's purchase price; otherwise the listed "
    "estimate, marked as such) — the same answer as the planner page and `manage.py plan`. 400 with the reason for "
    "an unusable parameter.",
    tags=["plan"],
)
def plan(request: HttpRequest, query: Query[PlanQuery]) -> Any:
    parsed = parse_plan(request.GET)
    if parsed.unused:
        raise bad_parameters({u.name: u.reason for u in parsed.unused})
    model = _catalog_model(query.model, "model")
    basis = page_basis(model, _today())
    if basis.sources is None:
        raise ApiError(422, "unsizable", f"{model.hub_id} cannot be sized: {basis.unsizable}.")
    state = parsed.state
    calculator = CalculatorState(engine=state.engine).with_defaults_of(basis.sources.choices)
    answer = plan_for(basis.sources.inputs(calculator), state)
    return plan_json(model.hub_id, state, answer, validation_family(basis.sources.spec))


def _layers_in(config: dict[str, Any]) -> int:
    found = 0
    for part in (config, config.get("text_config")):
        if isinstance(part, dict):
            for key in ("num_hidden_layers", "n_layer", "num_layers", "n_layers"):
                value = part.get(key)
                if isinstance(value, int | float) and not isinstance(value, bool):
                    found = max(found, int(value) if value == value and abs(value) < 1e18 else MAX_LAYERS + 1)
    return found


@api.post(
    "/estimate",
    response={200: EstimateOut, **ERRORS, 413: ErrorOut, 415: ErrorOut},
    summary="Estimate for an inline config.json",
    description="POST a model's config.json (with `params_total` / `params_active` where the config alone does "
    "not give them) as JSON; the calculator parameters go in the query string as for GET. At most 1 MB, nested "
    f"at most {MAX_JSON_DEPTH} deep.",
    tags=["estimate"],
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": InlineConfig.model_json_schema()}},
        }
    },
)
def estimate_inline(request: HttpRequest, query: Query[CalculatorQuery]) -> Any:
    data = json_body(request)
    try:
        given = InlineConfig.model_validate(data)
    except ValidationError as exc:
        problems = {_parameter(e["loc"]): e["msg"] for e in exc.errors()}
        raise bad_parameters(problems or {"body": "not an object"}) from None
    if _layers_in(given.config) > MAX_LAYERS:
        raise bad_parameters({"config": f"more than {MAX_LAYERS} layers"})
    try:
        spec = spec_from_config(given.config, param_counts(given.params_total, given.params_active))
    except SpecUnavailable as exc:
        raise bad_parameters({"config": str(exc)}) from None
    # A hostile or broken config can fail deep inside the reader in many ways; each is the sender's input error.
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, ArithmeticError) as exc:
        raise bad_parameters({"config": f"cannot be read: {type(exc).__name__}"}) from None
    gpus = load_gpus()
    sources = page_data.PageSources(
        spec=spec,
        builds=(),
        offers=page_data.page_offers(),
        gpus=tuple(gpus),
        hosted=(),
        today=_today(),
        choices=page_choices(spec.max_context, (), gpus, released=released_precision(spec.native_dtype)),
        hub_id="",
    )
    try:
        return _estimate(request, sources, None)
    except ApiError:
        raise
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, ArithmeticError) as exc:
        raise bad_parameters({"config": f"cannot be sized: {type(exc).__name__}"}) from None


class ModelQuery(Schema):
    q: str = Field("", max_length=MAX_QUERY_CHARS, description="words in the id, name or family")
    family: str = Field("", max_length=64)
    attention: str = Field("", max_length=64, description="attention kind: full, sliding, mla, linear, ...")
    modality: str = Field("", max_length=64, description="text or vision")
    moe: bool | None = Field(None, description="true: mixture-of-experts only; false: dense only")
    limit: int = Field(20, ge=1, le=MAX_LIMIT)
    cursor: str | None = Field(None, max_length=400, description="next_cursor of the previous page")


@api.get("/models", response={200: ModelListOut, **ERRORS}, summary="Search the catalog", tags=["catalog"])
def models(request: HttpRequest, query: Query[ModelQuery]) -> Any:
    filters = ModelFilters(query.q, query.family, query.attention, query.modality, query.moe)
    rows, next_cursor = model_page(filters, query.limit, query.cursor)
    return {"results": [model_summary(m) for m in rows], "next_cursor": next_cursor}


@api.get("/models/{org}/{name}", response={200: ModelOut, **NOT_FOUND}, summary="One model", tags=["catalog"])
def model(request: HttpRequest, org: str, name: str) -> Any:
    return model_detail(_catalog_model(f"{org}/{name}"))


@api.get("/gpus", response={200: list[GpuOut], **ERRORS}, summary="GPU catalog", tags=["pricing"])
def gpus(request: HttpRequest) -> Any:
    return [
        {
            "slug": g.slug,
            "name": g.name,
            "short_name": g.short_name,
            "vendor": g.vendor,
            "architecture": g.architecture,
            "segment": g.segment,
            "memory_bytes": g.memory_bytes,
            "capacity_bytes": g.capacity_bytes,
            "capacity_basis": g.capacity_basis,
            "capacity_source": g.capacity_report.source if g.capacity_report else None,
            "memory_bandwidth_gbps": g.memory_bandwidth_gbps,
            "bf16_dense_tflops": g.bf16_dense_tflops,
            "fp8_dense_tflops": g.fp8_dense_tflops,
            "released": g.released,
            "sources": list(g.sources),
        }
        for g in load_gpus()
    ]


class OfferQuery(Schema):
    kind: Literal["on-demand", "spot", "community", "reserved"] | None = Field(None, description="pricing kind")


@api.get(
    "/gpus/{slug}/offers",
    response={200: list[GpuOfferOut], **NOT_FOUND},
    summary="Current offers for one GPU, cheapest first",
    tags=["pricing"],
)
def gpu_offers(request: HttpRequest, slug: str, query: Query[OfferQuery]) -> Any:
    if slug not in {g.slug for g in load_gpus()}:
        raise ApiError(404, "not_found", "No GPU with that slug (GET /gpus lists them).")
    kinds = (query.kind,) if query.kind else None
    return [
        {
            "provider": o.provider_slug,
            "provider_name": o.provider_name,
            "gpu": o.gpu_slug,
            "instance_name": o.instance_name,
            "gpu_counts": list(o.gpu_counts),
            "price_per_gpu_hour_usd": o.price_per_gpu_hour_usd,
            "pricing_kind": o.pricing_kind,
            "term": o.term,
            "region": o.region,
            "captured_at": o.captured_at,
            "stale": o.stale,
            "confidence": o.confidence,
            "availability": o.availability,
            "url": o.url,
        }
        for o in pricing.current_offers(gpu_slugs=[slug], pricing_kinds=kinds)
    ]


@api.get("/providers", response={200: list[ProviderOut], **ERRORS}, summary="Price providers", tags=["pricing"])
def providers(request: HttpRequest) -> Any:
    return [
        {
            "slug": p.slug,
            "name": p.name,
            "website": p.website,
            "has_api": p.has_api,
            "last_refresh_at": p.last_refresh_at,
            "last_outcome": p.last_outcome,
            "last_good_at": p.last_good_at,
            "newest_capture": p.newest_capture,
            "offer_count": p.offer_count,
            "stale": p.stale,
        }
        for p in pricing.provider_statuses()
    ]


class ApiPriceQuery(Schema):
    model: str | None = Field(None, max_length=200, description="only this model's hosted routes")


def _optional_usd(value: Any) -> float | None:
    return None if value is None else float(value)


@api.get(
    "/api-prices",
    response={200: list[ApiPriceOut], **ERRORS},
    summary="Hosted per-token API prices in force today",
    tags=["pricing"],
)
def api_prices(request: HttpRequest, query: Query[ApiPriceQuery]) -> Any:
    today = _today()
    if query.model:
        hub_ids = [query.model]
    else:
        rows = ApiPrice.objects.exclude(hub_id="").order_by().values_list("hub_id", flat=True).distinct()
        hub_ids = sorted(set(rows), key=str.lower)
    return [
        {
            "model": price.hub_id,
            "route": price.route,
            "provider": price.provider,
            "input_per_million_usd": float(price.prices.input_per_million_usd),
            "cached_input_per_million_usd": _optional_usd(price.prices.cached_input_per_million_usd),
            "output_per_million_usd": float(price.prices.output_per_million_usd),
            "intro_applies": price.intro_applies,
            "intro_ends_on": price.intro_ends_on,
            "captured_on": price.captured_on,
            "confidence": price.confidence,
            "source_publisher": price.source.publisher,
            "source_title": price.source.title,
            "source_url": price.source.url,
            "context_length": price.context_length,
        }
        for hub_id in hub_ids
        for price in pricing.api_prices_for(hub_id, today)
    ]
