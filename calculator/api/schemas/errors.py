"""What every failing API call answers: a code, a message and each bad parameter."""

from __future__ import annotations

from ninja import Field, Schema


class ErrorBody(Schema):
    code: str = Field(..., description="machine-readable: `bad_parameter`, `not_found`, `too_large`, ...")
    message: str
    parameters: dict[str, str] = Field(default_factory=dict, description="each bad parameter and what is wrong")


class ErrorOut(Schema):
    error: ErrorBody
