"""Selectors: read the catalog for pages (no writes). Import any name from ``models_catalog.selectors``:

- ``listing``: the catalog list (search, filters, sort orders, one page of it with its bounded count).
- ``search``: finding one model (suggestions as the reader types, by Hub id, the model a page serves, close
  matches, a pending import request).
- ``facts``: one model's facts with their sources and conflicts, and its published builds.
- ``related``: models beside a page (the home page's featured models, similar models).

A test that changes a list constant sets it where it is read: ``PER_PAGE`` here (the list view reads it from this
package), ``COUNT_CAP`` in ``listing``.
"""

from .facts import (
    PARAM_KINDS,
    BuildRow,
    FactGroup,
    FactRow,
    ModelFacts,
    build_rows,
    model_facts,
)
from .listing import (
    COUNT_CAP,
    MACHINE_FIT_BITS,
    MACHINE_FITS,
    MOE_CHOICES,
    PER_PAGE,
    SIZE_BANDS,
    SORTS,
    WEIGHT_FITS,
    CatalogPage,
    CatalogRow,
    catalog_models,
    catalog_page,
    filter_choices,
    models_list,
    weight_bytes,
)
from .related import (
    FeaturedModel,
    SimilarModel,
    featured_models,
    similar_models,
)
from .search import (
    MAX_SERVED_MODELS,
    SERVED_MODELS,
    SUGGESTIONS,
    Suggestion,
    close_matches,
    import_request_for,
    model_by_hub_id,
    served_model,
    suggestions,
)

__all__ = [
    "COUNT_CAP",
    "MACHINE_FITS",
    "MACHINE_FIT_BITS",
    "MAX_SERVED_MODELS",
    "MOE_CHOICES",
    "PARAM_KINDS",
    "PER_PAGE",
    "SERVED_MODELS",
    "SIZE_BANDS",
    "SORTS",
    "SUGGESTIONS",
    "WEIGHT_FITS",
    "BuildRow",
    "CatalogPage",
    "CatalogRow",
    "FactGroup",
    "FactRow",
    "FeaturedModel",
    "ModelFacts",
    "SimilarModel",
    "Suggestion",
    "build_rows",
    "catalog_models",
    "catalog_page",
    "close_matches",
    "featured_models",
    "filter_choices",
    "import_request_for",
    "model_by_hub_id",
    "model_facts",
    "models_list",
    "served_model",
    "similar_models",
    "suggestions",
    "weight_bytes",
]
