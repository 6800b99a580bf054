"""The JSON API at /api/v1/: every endpoint on the bundled catalog, the seed offers and the hosted API prices.

The seed figures (GLM-5.3-Flash, 8K context, one request, vLLM, FP16 KV: 708 GB, first row 5 × MI300X for
$19.12 per hour) are the model page's (tests/calculator/test_model_page.py), prices captured 2026-11-13.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.http import QueryDict
from openapi_spec_validator import validate

from calculator.api.docs import EXAMPLE_MODEL, EXAMPLES
from calculator.api.schemas import CalculatorQuery
from calculator.page import model_page
from calculator.page import sources as page_data
from calculator.state import FIELD_NAMES, parse_state
from models_catalog import selectors, services
from pricing.api_price_services import api_prices_load
from tests.support import rows_for_the_module

SHIPPED = Path(services.__file__).resolve().parent / "data" / "hub"
GLM = "zai-org/GLM-5.3-Flash"
ESTIMATE = f"/api/v1/estimate?model={GLM}"

# Under pytest-xdist one worker runs the whole module in a row, so its rows are written once.
pytestmark = [pytest.mark.django_db, pytest.mark.xdist_group("api")]


def _write_site() -> None:
    services.model_import_offline(SHIPPED)
    call_command("loaddata", "seed_offers_2026-11-13", verbosity=0)
    api_prices_load()


@pytest.fixture(scope="module")
def _site_rows(django_db_setup, django_db_blocker):
    with rows_for_the_module(django_db_blocker, _write_site):
        yield


@pytest.fixture
def seed_site(_site_rows, db):
    """The bundled catalog, the seed offers and the API prices: written once for the module (the import alone takes
    about a second), rolled back to after each test."""


@pytest.fixture(autouse=True)
def fresh_rate_counts():
    cache.clear()
    yield
    cache.clear()


def _json(response, status=200):
    assert response.status_code == status, response.content[:500]
    assert response["Content-Type"].startswith("application/json")
    return json.loads(response.content)


def _error(response, status, code):
    body = _json(response, status)
    assert body["error"]["code"] == code
    assert body["error"]["message"]
    return body["error"]


# --- estimate -------------------------------------------------------------------------------------------------


def test_estimate_defaults_to_the_precision_each_model_is_released_in(client, seed_site):
    glm = _json(client.get(ESTIMATE))  # FP8 repository (the reference page names its 128x128-block FP8 weights)
    assert glm["setting"]["precision"] == "fp8" and round(glm["breakdown"]["total_bytes"] / 1e9) == 321
    gpt_oss = _json(client.get("/api/v1/estimate?model=openai/gpt-oss-120b"))  # MXFP4 experts in config.json
    assert gpt_oss["setting"]["precision"] == "mxfp4"
    assert 65e9 < gpt_oss["breakdown"]["total_bytes"] < 80e9
    assert _json(client.get("/api/v1/estimate?model=openai/gpt-oss-120b&precision=mxfp4")) == gpt_oss
    llama = _json(client.get("/api/v1/estimate?model=meta-llama/Llama-3.1-8B-Instruct"))  # BF16
    assert llama["setting"]["precision"] == "fp16"


def test_estimate_gives_the_seed_need_and_the_first_ranking_row(client, seed_site):
    body = _json(client.get(ESTIMATE + "&precision=fp16"))  # the reference page's BF16 figures

    assert body["model"] == GLM
    # what vLLM allocates (the reference page's rule: 708 GB on 5 MI300X → the 8-GPU instance, $19.12)
    assert round(body["breakdown"]["total_bytes"] / 1e9) == 633
    first = body["gpus"]["by_gpu"][0]
    # vLLM has no sparse-attention kernels for an MI300X: 5 H200 hold it, RunPod sells 8
    assert (first["gpus_needed"], first["gpu_name"], first["per_hour_usd"]) == (5, "H200 NVL 141GB", 30.32)
    assert first["captured_at"].startswith("2026-11-13")
    assert isinstance(first["stale"], bool)
    # RunPod sells 8 H200 together: vLLM runs them as TP 8 (64 heads); the row says so
    assert (first["instance_gpus"], first["engine_gpus"], first["tensor_parallel"], first["pipeline_parallel"]) == (
        8,
        8,
        8,
        1,
    )
    assert body["summary"]["cheapest"]["per_hour_usd"] == 30.32
    kernels = body["gpus"]["kernels"]
    assert (
        kernels["engine"] == "vllm"
        and "Hopper" in kernels["architectures"]
        and "CDNA 3" not in kernels["architectures"]
    )
    assert "MI300X" not in {row["gpu_name"] for row in body["gpus"]["by_gpu"]}


def test_estimate_numbers_equal_the_model_pages_for_the_same_query(client, seed_site):
    query = "precision=int8&context=32K&concurrency=4&gpu=h100-sxm&gpus=8&ratio=5&cached=20"
    body = _json(client.get(f"{ESTIMATE}&{query}"))

    model = selectors.model_by_hub_id(GLM)
    sources = page_data.page_sources(model, selectors.model_facts(model), datetime.now(UTC).date())
    page = model_page(sources.inputs(parse_state(QueryDict(query), sources.choices).state))

    assert body["breakdown"]["total_bytes"] == page.breakdown.total_bytes
    assert [t["bytes"] for t in body["breakdown"]["terms"]] == [t.bytes for t in page.breakdown.terms if t.bytes > 0]
    assert [(r["gpu"], r["gpus_needed"], r["per_hour_usd"]) for r in body["gpus"]["by_gpu"]] == [
        (r.ranked.offer.gpu_slug, r.ranked.gpus_needed, float(r.ranked.per_hour_usd)) for r in page.gpus.by_gpu
    ]
    assert [(r["provider"], r["per_month_usd"]) for r in body["gpus"]["by_provider"]] == [
        (r.ranked.provider_slug, float(r.ranked.per_month_usd)) for r in page.gpus.by_provider
    ]
    assert page.inverse is not None
    assert [(r["max_context"], r["max_concurrency"]) for r in body["inverse"]["rows"]] == [
        (r.max_context, r.max_concurrency) for r in page.inverse.rows
    ]
    assert body["inverse"]["count"] == 8
    assert body["api"]["break_even_output_tokens_per_month"] == page.api.break_even_tokens
    assert body["api"]["cached_input_share"] == 0.2
    assert [c["need_bytes"] for c in body["matrix"]] == [c.need_bytes for _, cells in page.matrix for c in cells]
    assert body["context"]["headroom"]["tokens"] == page.context.headroom.tokens


def test_estimate_terms_carry_label_formula_and_estimated_flag(client, seed_site):
    terms = _json(client.get(ESTIMATE))["breakdown"]["terms"]

    weights = next(t for t in terms if t["key"] == "weights")
    assert weights["label"] and weights["formula"]
    assert all(isinstance(t["estimated"], bool) for t in terms)
    assert sum(t["share"] for t in terms) == pytest.approx(1.0)


def test_estimate_takes_the_fine_tuning_knobs(client, seed_site):
    body = _json(client.get(f"{ESTIMATE}&mode=qlora&rank=64&batch=2&seq=4K&optimizer=adamw_8bit&checkpointing=0"))

    assert body["setting"]["mode"] == "qlora"
    assert body["parameters"]["rank"] == 64 and body["parameters"]["checkpointing"] is False
    assert {t["key"] for t in body["breakdown"]["terms"]} >= {"weights", "optimizer"}


def test_estimate_names_each_bad_parameter_in_a_400(client, seed_site):
    error = _error(client.get(f"{ESTIMATE}&concurrency=0&context=lots&gpu=abacus&precision=fp3"), 400, "bad_parameter")

    assert set(error["parameters"]) == {"concurrency", "context", "gpu", "precision"}


def test_estimate_rejects_a_context_past_the_models_window_where_the_page_would_clamp(client, seed_site):
    error = _error(client.get(f"{ESTIMATE}&context=64M"), 400, "bad_parameter")

    assert "context" in error["parameters"]


def test_estimate_without_a_model_or_with_a_malformed_id_is_a_400(client, seed_site):
    assert "model" in _error(client.get("/api/v1/estimate"), 400, "bad_parameter")["parameters"]
    assert "model" in _error(client.get("/api/v1/estimate?model=no-slash"), 400, "bad_parameter")["parameters"]


def test_unknown_model_is_a_404(client, seed_site):
    _error(client.get("/api/v1/estimate?model=nobody/nothing"), 404, "not_found")
    _error(client.get("/api/v1/models/nobody/nothing"), 404, "not_found")


def test_inline_config_estimates_like_the_catalog_model(client, seed_site):
    model = selectors.model_by_hub_id("meta-llama/Llama-3.1-8B-Instruct")
    body = {"config": model.config, "params_total": model.params_total, "params_active": model.params_active}
    inline = _json(client.post("/api/v1/estimate?context=16K", json.dumps(body), content_type="application/json"))
    catalog = _json(client.get("/api/v1/estimate?model=meta-llama/Llama-3.1-8B-Instruct&context=16K"))

    assert inline["model"] is None
    assert inline["breakdown"]["total_bytes"] == catalog["breakdown"]["total_bytes"]
    assert inline["gpus"]["by_gpu"][0]["per_hour_usd"] == catalog["gpus"]["by_gpu"][0]["per_hour_usd"]


def test_inline_config_without_sizes_names_config(client, seed_site):
    response = client.post("/api/v1/estimate", json.dumps({"config": {"model_type": "x"}}), "application/json")

    assert "config" in _error(response, 400, "bad_parameter")["parameters"]


def test_inline_config_over_one_megabyte_is_a_413(client, seed_site):
    big = json.dumps({"config": {"padding": "x" * (1024 * 1024)}})

    _error(client.post("/api/v1/estimate", big, content_type="application/json"), 413, "too_large")


def test_inline_config_as_form_data_is_a_415(client, seed_site):
    _error(client.post("/api/v1/estimate", {"config": "{}"}), 415, "unsupported_media_type")


def test_malformed_and_deeply_nested_json_are_400s(client, seed_site):
    _error(client.post("/api/v1/estimate", "{not json", content_type="application/json"), 400, "malformed_json")
    deep = "[" * 100_000 + "]" * 100_000
    _error(client.post("/api/v1/estimate", deep, content_type="application/json"), 400, "too_deep")


# --- catalog and pricing --------------------------------------------------------------------------------------


def test_models_pages_through_the_whole_catalog_with_cursors(client, seed_site):
    seen, cursor = [], ""
    for _ in range(100):
        body = _json(client.get(f"/api/v1/models?limit=7{f'&cursor={cursor}' if cursor else ''}"))
        seen += [m["id"] for m in body["results"]]
        cursor = body["next_cursor"]
        if cursor is None:
            break
    from models_catalog.models import Model

    assert len(seen) == len(set(seen)) == Model.objects.count()
    assert seen == sorted(seen, key=str.lower)


def test_models_search_and_filters(client, seed_site):
    found = _json(client.get("/api/v1/models?q=glm&moe=true"))["results"]

    assert GLM in [m["id"] for m in found]
    assert all(m["is_moe"] for m in found)


def test_models_with_a_forged_cursor_is_a_400(client, seed_site):
    assert "cursor" in _error(client.get("/api/v1/models?cursor=bm90LWpzb24"), 400, "bad_parameter")["parameters"]


def test_model_detail_lists_builds_with_their_precision_keys(client, seed_site):
    body = _json(client.get(f"/api/v1/models/{GLM}"))

    assert body["id"] == GLM and body["params_total"] > 0
    assert body["page_url"].endswith("/models/zai-org/GLM-5.3-Flash/")
    assert all(b["key"].startswith("build:") for b in body["builds"])


def test_gpus_and_their_offers_with_capture_dates(client, seed_site):
    gpus = _json(client.get("/api/v1/gpus"))
    assert {"mi300x", "h100-sxm"} <= {g["slug"] for g in gpus}
    assert all(isinstance(g["memory_bytes"], int) for g in gpus)
    h100 = next(g for g in gpus if g["slug"] == "h100-sxm")
    assert (h100["memory_bytes"], h100["capacity_bytes"], h100["capacity_basis"]) == (
        80 * 10**9,
        85_045_477_376,
        "reported",
    )
    assert h100["capacity_source"].startswith("https://github.com/")

    offers = _json(client.get("/api/v1/gpus/mi300x/offers"))
    assert offers and all(o["captured_at"] and o["price_per_gpu_hour_usd"] > 0 for o in offers)
    prices = [o["price_per_gpu_hour_usd"] for o in offers]
    assert prices == sorted(prices)
    _error(client.get("/api/v1/gpus/abacus/offers"), 404, "not_found")
    _error(client.get("/api/v1/gpus/mi300x/offers?kind=free"), 400, "bad_parameter")


def test_providers_and_api_prices(client, seed_site):
    providers = _json(client.get("/api/v1/providers"))
    assert providers and all("stale" in p for p in providers)

    prices = _json(client.get(f"/api/v1/api-prices?model={GLM}"))
    assert prices and all(p["model"] == GLM and p["output_per_million_usd"] > 0 for p in prices)
    assert _json(client.get("/api/v1/api-prices"))


def test_unknown_api_path_is_a_json_404(client):
    _error(client.get("/api/v1/nothing/here"), 404, "not_found")


# --- HTTP behaviour -------------------------------------------------------------------------------------------


def test_get_carries_etag_cache_control_and_cors_and_answers_304(client, seed_site):
    first = client.get("/api/v1/gpus")

    assert first["Access-Control-Allow-Origin"] == "*"
    assert first["Cache-Control"] == "public, max-age=300"
    etag = first["ETag"]
    again = client.get("/api/v1/gpus", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""
    assert client.get("/api/v1/gpus", headers={"If-None-Match": '"other"'}).status_code == 200


def test_head_and_preflight_answer_cors(client, seed_site):
    head = client.head("/api/v1/gpus")
    assert head.status_code == 200 and head.content == b"" and head["Access-Control-Allow-Origin"] == "*"

    preflight = client.options("/api/v1/estimate", headers={"Origin": "https://example.org"})
    assert preflight.status_code == 204
    assert preflight["Access-Control-Allow-Origin"] == "*"
    assert "GET" in preflight["Access-Control-Allow-Methods"]


def test_post_answers_carry_no_cors_and_no_cache(client, seed_site):
    response = client.post("/api/v1/estimate", "{}", content_type="application/json")

    assert response.status_code == 400
    assert not response.has_header("Access-Control-Allow-Origin")
    assert response["Cache-Control"] == "no-store"


def test_client_past_its_rate_gets_429_with_retry_after(client, settings):
    settings.API_RATE_LIMIT = "3/m"
    for _ in range(3):
        assert client.get("/api/v1/gpus").status_code == 200

    response = client.get("/api/v1/gpus")
    _error(response, 429, "rate_limited")
    assert 1 <= int(response["Retry-After"]) <= 60
    other = client.get("/api/v1/gpus", REMOTE_ADDR="10.0.0.9")
    assert other.status_code == 200


# --- schema and docs -------------------------------------------------------------------------------------------


def test_schema_is_valid_openapi_3_1(client):
    schema = _json(client.get("/api/v1/openapi.json"))

    assert schema["openapi"].startswith("3.1")
    validate(schema)
    assert {
        "/api/v1/estimate",
        "/api/v1/models",
        "/api/v1/models/{org}/{name}",
        "/api/v1/gpus",
        "/api/v1/gpus/{slug}/offers",
        "/api/v1/providers",
        "/api/v1/api-prices",
    } <= set(schema["paths"])


def test_schema_documents_every_calculator_parameter_of_the_page(client):
    page_knobs = {
        *("precision", "mode", "engine", "concurrency", "context", "kv", "batch", "seq", "rank", "optimizer"),
        *("framework", "checkpointing", "gpu", "gpus", "ratio", "cached"),
    }
    assert page_knobs <= set(CalculatorQuery.model_fields) <= set(FIELD_NAMES)
    schema = _json(client.get("/api/v1/openapi.json"))
    documented = {p["name"] for p in schema["paths"]["/api/v1/estimate"]["get"]["parameters"]}
    assert documented == {*CalculatorQuery.model_fields, "model"}


def test_docs_page_lists_every_operation_from_this_origin(client):
    response = client.get("/api/v1/docs")

    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-operation="GET /api/v1/estimate"' in html
    assert 'data-operation="POST /api/v1/estimate"' in html
    # only the site's own scripts and stylesheets (the Content-Security-Policy allows 'self' alone)
    assert re.findall(r"<script(?! src=\"/static/)", html) == []
    assert re.findall(r'<link rel="stylesheet" href="(?!/static/)', html) == []
    assert '<header class="site-header">' in html and '<a class="site-name" href="/en/">' in html  # a way back
    # token counts as the pages write them
    assert "<code>8192</code>, <code>8K</code>, <code>128K</code>, <code>1M</code>" in html and "128k" not in html


def test_every_example_request_of_the_docs_page_answers_on_the_bundled_data(client, seed_site):
    """The docs page's examples (calculator/api/docs.py EXAMPLES) name models, GPUs and providers the bundled data
    holds: each answers 200 with something in it, the POST with the catalog model's config.json as its body."""
    schema = _json(client.get("/api/v1/openapi.json"))
    operations = {(method.upper(), path) for path, item in schema["paths"].items() for method in item}
    assert set(EXAMPLES) == operations

    config = json.loads((SHIPPED / EXAMPLE_MODEL / "config.json").read_text())
    for (method, _path), target in EXAMPLES.items():
        if method == "GET":
            body = _json(client.get(target))
        else:
            body = _json(client.post(target, json.dumps({"config": config}), content_type="application/json"))
        assert body, target


def test_the_macos_version_is_a_parameter_of_the_mac_verdicts(client, seed_site):
    def mac_128(query: str) -> str:
        body = _json(client.get(f"/api/v1/estimate?model={GLM}{query}"))
        return next(m["verdict"] for m in body["local"]["macs"] if m["ram_gib"] == 128)

    assert (mac_128(""), mac_128("&macos=15"), mac_128("&macos=26")) == ("raise", "raise", "fits")
    _error(client.get(f"/api/v1/estimate?model={GLM}&macos=14"), 400, "bad_parameter")
