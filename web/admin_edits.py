"""Admin edits that change what pages show make the cached pages (and what each process keeps per model) outdated,
as an import or a price refresh does: each save or delete bumps the data's generation once it is committed."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from web.generations import Generation


class BumpsGeneration:
    """Mix into a ``ModelAdmin`` (before it) and name the ``generation`` its rows belong to."""

    generation: Generation

    def _bump(self) -> None:
        transaction.on_commit(self.generation.bump)

    def save_model(self, request: Any, obj: Any, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)  # type: ignore[misc]
        self._bump()

    def save_related(self, request: Any, form: Any, formsets: Any, change: bool) -> None:
        super().save_related(request, form, formsets, change)  # type: ignore[misc]
        self._bump()  # the inlines (a model's builds) are saved here

    def delete_model(self, request: Any, obj: Any) -> None:
        super().delete_model(request, obj)  # type: ignore[misc]
        self._bump()

    def delete_queryset(self, request: Any, queryset: Any) -> None:
        super().delete_queryset(request, queryset)  # type: ignore[misc]
        self._bump()
