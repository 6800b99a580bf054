"""What the API takes and answers, as typed classes: django-ninja writes the OpenAPI 3.1 schema from these.

- ``queries``: what it takes: the calculator's query parameters (``CalculatorQuery``, ``EstimateQuery``), an inline
  model's body (``InlineConfig``), the planner's (``PlanQuery``) and the limits on a request body.
- ``errors``: what a failing call answers (``ErrorOut``).
- ``prices``: offers, GPU counts and the break-even against hosted APIs (``OfferOut``, ``GpusOut``, ``BreakEvenOut``).
- ``estimate``: the estimate itself, section by section (``EstimateOut``).

Bytes are integers of bytes; money is USD as a number, beside the day it was captured. The catalog's and the
price list's answers are in ``calculator.api.catalog_schemas``.
"""

from .errors import ErrorBody, ErrorOut
from .estimate import (
    AccuracyOut,
    BreakdownOut,
    BudgetOut,
    BuildOut,
    CardOut,
    CommandsOut,
    ContextOut,
    ContextPointOut,
    EstimateOut,
    FaqItemOut,
    HeadroomOut,
    InverseOut,
    InverseRowOut,
    LocalGpuOut,
    LocalOut,
    MacOut,
    MatrixCellOut,
    RigOut,
    RigRowOut,
    SettingOut,
    TermOut,
    WeightsSourceOut,
)
from .prices import BreakEvenOut, GpuCountOut, GpusOut, HostedOut, OfferOut, ReplicaOut, SummaryOut, TargetsOut
from .queries import (
    MAX_CONFIG_BYTES,
    MAX_JSON_DEPTH,
    MAX_PARAMS,
    TOKENS_PATTERN,
    CalculatorQuery,
    EstimateQuery,
    InlineConfig,
    PlanQuery,
)

__all__ = [
    "MAX_CONFIG_BYTES",
    "MAX_JSON_DEPTH",
    "MAX_PARAMS",
    "TOKENS_PATTERN",
    "AccuracyOut",
    "BreakEvenOut",
    "BreakdownOut",
    "BudgetOut",
    "BuildOut",
    "CalculatorQuery",
    "CardOut",
    "CommandsOut",
    "ContextOut",
    "ContextPointOut",
    "ErrorBody",
    "ErrorOut",
    "EstimateOut",
    "EstimateQuery",
    "FaqItemOut",
    "GpuCountOut",
    "GpusOut",
    "HeadroomOut",
    "HostedOut",
    "InlineConfig",
    "InverseOut",
    "InverseRowOut",
    "LocalGpuOut",
    "LocalOut",
    "MacOut",
    "MatrixCellOut",
    "OfferOut",
    "PlanQuery",
    "ReplicaOut",
    "RigOut",
    "RigRowOut",
    "SettingOut",
    "SummaryOut",
    "TargetsOut",
    "TermOut",
    "WeightsSourceOut",
]
