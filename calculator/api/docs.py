"""The API's docs page, rendered on this origin from the generated OpenAPI document (no third-party script or
font: the site's Content-Security-Policy allows only 'self').

A page of the site (templates/base.html): its header, language switch and footer follow the reader's language, the
reference itself stays English like the API. The schema's descriptions are CommonMark (OpenAPI's own rule) and are
rendered as such, raw HTML off, so a description cannot add markup of its own; each operation shows an example
request from ``EXAMPLES``, on values the bundled catalog and GPU list hold.
"""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import translation
from markdown_it import MarkdownIt
from markupsafe import Markup

from calculator.api.routes import api

METHODS = ("get", "post", "put", "patch", "delete")

# CommonMark with raw HTML off: ``<slug>`` in a description is text, backticks are <code>.
MARKDOWN = MarkdownIt("commonmark", {"html": False})

# One example request per operation, keyed by method and the operation's path in the OpenAPI document: the path with
# its placeholders filled in and a query on values the bundled data holds (tests/api/test_api.py calls each one).
EXAMPLE_MODEL = "meta-llama/Llama-3.1-8B-Instruct"
EXAMPLES: dict[tuple[str, str], str] = {
    ("GET", "/api/v1/estimate"): f"/api/v1/estimate?model={EXAMPLE_MODEL}&precision=fp8&context=32K&concurrency=8"
    "&gpu=h100-sxm",
    ("GET", "/api/v1/plan"): f"/api/v1/plan?model={EXAMPLE_MODEL}&out=2.5B&ttft=1&tpot=40&x=aws",
    ("POST", "/api/v1/estimate"): "/api/v1/estimate?precision=fp16&context=16K",
    ("GET", "/api/v1/models"): "/api/v1/models?q=llama&moe=false&limit=5",
    ("GET", "/api/v1/models/{org}/{name}"): f"/api/v1/models/{EXAMPLE_MODEL}",
    ("GET", "/api/v1/gpus"): "/api/v1/gpus",
    ("GET", "/api/v1/gpus/{slug}/offers"): "/api/v1/gpus/h200-sxm/offers?kind=on-demand",
    ("GET", "/api/v1/providers"): "/api/v1/providers",
    ("GET", "/api/v1/api-prices"): f"/api/v1/api-prices?model={EXAMPLE_MODEL}",
}


def markdown_block(text: str) -> Markup:
    """A description as HTML paragraphs."""
    return Markup(MARKDOWN.render(text).strip())


def markdown_inline(text: str) -> Markup:
    """A short description as inline HTML, for a table cell or a list item (no paragraph around it)."""
    return Markup(MARKDOWN.renderInline(text).strip())


def _resolve(schema: dict[str, Any], node: Any) -> Any:
    if isinstance(node, dict) and "$ref" in node:
        target: Any = schema
        for part in str(node["$ref"]).lstrip("#/").split("/"):
            target = target.get(part, {})
        return target
    return node


def _type(schema: dict[str, Any], node: Any) -> str:
    node = _resolve(schema, node)
    if not isinstance(node, dict):
        return ""
    if "enum" in node:
        return " | ".join(str(v) for v in node["enum"])
    if "anyOf" in node:
        return " or ".join(filter(None, (_type(schema, n) for n in node["anyOf"])))
    words = [str(node.get("type", node.get("title", "")))]
    bounds = [f"{key} {node[key]}" for key in ("minimum", "maximum", "maxLength", "pattern") if key in node]
    return ", ".join([*words, *bounds])


def example_command(method: str, target: str, origin: str) -> str:
    """The ``curl`` line of an example request to ``target`` (a path and query) on ``origin``; a POST sends a
    model's config.json, wrapped as the body the operation takes."""
    url = f"'{origin}{target}'"
    if method == "GET":
        return f"curl {url}"
    post = "curl -H 'Content-Type: application/json' --data-binary @-"
    return f"jq '{{config: .}}' config.json \\\n  | {post} \\\n  {url}"


def operations(schema: dict[str, Any], origin: str = "") -> list[dict[str, Any]]:
    """Each operation of the document as the page lists it: method, path, words, parameters, answers and the example
    request (empty where ``EXAMPLES`` has none)."""
    found = []
    for route, item in schema.get("paths", {}).items():
        for method in METHODS:
            operation = item.get(method)
            if operation is None:
                continue
            body = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
            example = EXAMPLES.get((method.upper(), route))
            found.append(
                {
                    "anchor": f"{method}-{route}".replace("/", "-").replace("{", "").replace("}", ""),
                    "method": method.upper(),
                    "path": route,
                    "summary": markdown_inline(operation.get("summary", "")),
                    "description": markdown_block(operation.get("description", "")),
                    "parameters": [
                        {
                            "name": p["name"],
                            "in": p["in"],
                            "required": p.get("required", False),
                            "type": _type(schema, p.get("schema", {})),
                            "description": markdown_inline(
                                p.get("description") or p.get("schema", {}).get("description", "")
                            ),
                        }
                        for p in operation.get("parameters", [])
                    ],
                    "body": json.dumps(_resolve(schema, body), indent=2) if body else "",
                    "example": example_command(method.upper(), example, origin) if example else "",
                    "responses": [
                        (code, markdown_inline(answer.get("description", "")))
                        for code, answer in operation["responses"].items()
                    ],
                }
            )
    return found


def docs_page(request: HttpRequest) -> HttpResponse:
    schema = api.get_openapi_schema(path_prefix="/api/v1/")
    info = schema.get("info", {})
    context = {
        "info": info,
        "info_description": markdown_block(info.get("description", "")),
        "operations": operations(schema, request.build_absolute_uri("/").rstrip("/")),
    }
    # The API answers in English (api_view); the page's chrome is in the language the reader picked with the language
    # switch (?lang=, the page has one address outside the language prefixes) or else the one the locale middleware
    # chose (Accept-Language), the reference itself stays English (lang="en").
    languages = dict(settings.LANGUAGES)
    asked = request.GET.get("lang", "")
    language = asked if asked in languages else getattr(request, "LANGUAGE_CODE", settings.LANGUAGE_CODE)
    context["language_paths"] = {code: f"{request.path}?lang={code}" for code in languages}
    with translation.override(language):
        response = render(request, "api/docs.html", context)
    response["Content-Language"] = language
    return response
