"""The API's docs page, rendered on this origin from the generated OpenAPI document (no third-party script or
font: the site's Content-Security-Policy allows only 'self')."""

from __future__ import annotations

import json
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from calculator.api.routes import api

METHODS = ("get", "post", "put", "patch", "delete")


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


def operations(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """Each operation of the document as the page lists it: method, path, words, parameters and answers."""
    found = []
    for route, item in schema.get("paths", {}).items():
        for method in METHODS:
            operation = item.get(method)
            if operation is None:
                continue
            body = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
            found.append(
                {
                    "anchor": f"{method}-{route}".replace("/", "-").replace("{", "").replace("}", ""),
                    "method": method.upper(),
                    "path": route,
                    "summary": operation.get("summary", ""),
                    "description": operation.get("description", ""),
                    "parameters": [
                        {
                            "name": p["name"],
                            "in": p["in"],
                            "required": p.get("required", False),
                            "type": _type(schema, p.get("schema", {})),
                            "description": p.get("description") or p.get("schema", {}).get("description", ""),
                        }
                        for p in operation.get("parameters", [])
                    ],
                    "body": json.dumps(_resolve(schema, body), indent=2) if body else "",
                    "responses": [
                        (code, answer.get("description", "")) for code, answer in operation["responses"].items()
                    ],
                }
            )
    return found


def docs_page(request: HttpRequest) -> HttpResponse:
    schema = api.get_openapi_schema(path_prefix="/api/v1/")
    context = {"info": schema.get("info", {}), "operations": operations(schema)}
    return render(request, "api/docs.html", context)
