"""Admin edits that change what pages show make the cached pages (and what each process keeps per model) outdated,
as an import or a price refresh does: each save or delete bumps the data's generation once it is committed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib import admin
from django.db import transaction

from web.generations import Generation

# django-stubs make ModelAdmin generic over its model; Django's own class takes no subscript at run time.
if TYPE_CHECKING:
    _ModelAdmin = admin.ModelAdmin[Any]
else:
    _ModelAdmin = admin.ModelAdmin


class BumpsGeneration(_ModelAdmin):
    """A ``ModelAdmin`` (or a mixin before one) that names the ``generation`` its rows belong to."""

    generation: Generation

    def _bump(self) -> None:
        transaction.on_commit(self.generation.bump)

    def save_model(self, request: Any, obj: Any, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        self._bump()

    def save_related(self, request: Any, form: Any, formsets: Any, change: bool) -> None:
        super().save_related(request, form, formsets, change)
        self._bump()  # the inlines (a model's builds) are saved here

    def delete_model(self, request: Any, obj: Any) -> None:
        super().delete_model(request, obj)
        self._bump()

    def delete_queryset(self, request: Any, queryset: Any) -> None:
        super().delete_queryset(request, queryset)
        self._bump()
