"""Reader-facing names of the calculator's choices, in the message catalog (the core keeps only keys).

The words are grouped by what they serve; import any name from ``calculator.labels``:

- ``choices``: the calculator's settings (modes, optimizers, frameworks, precisions, engines, release lines, the
  form's field names) and ``in_words``, the lookup every table here is read with.
- ``estimates``: what an estimate's figures say (speed limits, a Mac's verdict, accuracy checks, where a launch
  command's weights come from).
- ``self_host``: self-hosting against a hosted API (the configuration compared, what one replica serves, the
  break-even).
- ``prices``: offers, price refreshes, stale prices, hosted-API providers and the planner's ways to serve.
- ``catalog``: the catalog's facts (attention layouts, architecture families, fact sources, the architecture
  reader's notes, ``NOTE_MESSAGES``).
"""

from .catalog import (
    ATTENTION_NAMES,
    FAMILY_NAMES,
    NOTE_MESSAGES,
    attention_name,
    data_text,
    family_name,
    family_options,
    source_detail,
    spec_note,
)
from .choices import (
    FIELD_LABELS,
    FRAMEWORK_LABELS,
    FRAMEWORK_SELECT_LABELS,
    MACOS_LABELS,
    MODE_CHANGES,
    MODE_LABELS,
    OPTIMIZER_LABELS,
    PRECISION_NOTES,
    engine_name,
    field_label,
    in_words,
    mode_label,
    precision_name,
    release_line_label,
    requests_phrase,
)
from .estimates import (
    ACCURACY_LABELS,
    LIMITS,
    SOURCE_TEXTS,
    VERDICTS,
    accuracy_label,
    limit_label,
    weights_source_text,
)
from .prices import (
    GPU_FAMILIES,
    HOSTED_PROVIDERS,
    OFFER_PHRASES,
    PLAN_KIND_LEGENDS,
    PLAN_KINDS,
    PLAN_LIMITS,
    PRICING_KINDS,
    REFRESH_OUTCOMES,
    gpu_family_label,
    hosted_provider,
    offer_text,
    plan_kind_label,
    plan_kind_legend,
    plan_limit_label,
    pricing_kind_label,
    refresh_outcome_label,
    stale_text,
)
from .self_host import REPLICA_LIMITS, break_even_text, replica_text, self_host_text

__all__ = [
    "ACCURACY_LABELS",
    "ATTENTION_NAMES",
    "FAMILY_NAMES",
    "FIELD_LABELS",
    "FRAMEWORK_LABELS",
    "FRAMEWORK_SELECT_LABELS",
    "GPU_FAMILIES",
    "HOSTED_PROVIDERS",
    "LIMITS",
    "MACOS_LABELS",
    "MODE_CHANGES",
    "MODE_LABELS",
    "NOTE_MESSAGES",
    "OFFER_PHRASES",
    "OPTIMIZER_LABELS",
    "PLAN_KINDS",
    "PLAN_KIND_LEGENDS",
    "PLAN_LIMITS",
    "PRECISION_NOTES",
    "PRICING_KINDS",
    "REFRESH_OUTCOMES",
    "REPLICA_LIMITS",
    "SOURCE_TEXTS",
    "VERDICTS",
    "accuracy_label",
    "attention_name",
    "break_even_text",
    "data_text",
    "engine_name",
    "family_name",
    "family_options",
    "field_label",
    "gpu_family_label",
    "hosted_provider",
    "in_words",
    "limit_label",
    "mode_label",
    "offer_text",
    "plan_kind_label",
    "plan_kind_legend",
    "plan_limit_label",
    "precision_name",
    "pricing_kind_label",
    "refresh_outcome_label",
    "release_line_label",
    "replica_text",
    "requests_phrase",
    "self_host_text",
    "source_detail",
    "spec_note",
    "stale_text",
    "weights_source_text",
]
