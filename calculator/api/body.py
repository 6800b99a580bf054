"""A bounded JSON request body: at most 1 MB, nested at most 32 deep, and a JSON content type.

``json.loads`` recurses once per nesting level, so a body of a million opening brackets would end in a
RecursionError; the depth is counted on the raw text first, which costs one pass and no recursion.
"""

from __future__ import annotations

import json
import re
from typing import Any

from django.http import HttpRequest

from calculator.api.errors import ApiError
from calculator.api.schemas import MAX_CONFIG_BYTES, MAX_JSON_DEPTH


def _too_large() -> ApiError:
    return ApiError(413, "too_large", f"The request body is over {MAX_CONFIG_BYTES} bytes.")


def _raw(request: HttpRequest) -> bytes:
    declared = request.META.get("CONTENT_LENGTH") or ""
    try:
        length = int(declared) if declared.strip() else None
    except ValueError:
        raise ApiError(400, "bad_request", "Content-Length is not a number.") from None
    if length is not None and length > MAX_CONFIG_BYTES:
        raise _too_large()
    data = request.read(MAX_CONFIG_BYTES + 1)
    if len(data) > MAX_CONFIG_BYTES:
        raise _too_large()
    return data


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKETS = re.compile(r"[\[\]{}]")


def json_depth(text: str) -> int:
    """The deepest nesting of objects and arrays in JSON text (brackets inside strings do not count)."""
    depth = deepest = 0
    for match in _BRACKETS.finditer(_STRING.sub("", text)):
        if match.group() in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def json_body(request: HttpRequest) -> Any:
    """The parsed body, or ApiError 413 / 415 / 400 (malformed, too deep)."""
    content_type = request.META.get("CONTENT_TYPE", "").split(";")[0].strip().lower()
    if content_type != "application/json":
        raise ApiError(415, "unsupported_media_type", "Send the body as application/json.")
    data = _raw(request)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ApiError(400, "malformed_json", "The body is not UTF-8.") from None
    if json_depth(text) > MAX_JSON_DEPTH:
        raise ApiError(400, "too_deep", f"The JSON is nested deeper than {MAX_JSON_DEPTH} levels.")
    try:
        return json.loads(text)
    except ValueError as exc:  # JSONDecodeError, and integers longer than Python converts
        raise ApiError(400, "malformed_json", f"The body is not JSON: {exc}") from None
