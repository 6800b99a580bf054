"""Errors as JSON: ``{"error": {"code", "message", "parameters"}}`` with the HTTP status that fits."""

from __future__ import annotations

from collections.abc import Mapping

from django.http import JsonResponse


class ApiError(Exception):
    """Raised anywhere below an endpoint; answered as the error JSON with ``status``."""

    def __init__(self, status: int, code: str, message: str, parameters: Mapping[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.parameters = dict(parameters or {})


def bad_parameters(problems: Mapping[str, str]) -> ApiError:
    names = ", ".join(sorted(problems))
    return ApiError(400, "bad_parameter", f"Unusable parameter(s): {names}.", problems)


def error_response(error: ApiError) -> JsonResponse:
    body = {"error": {"code": error.code, "message": error.message, "parameters": error.parameters}}
    return JsonResponse(body, status=error.status)
