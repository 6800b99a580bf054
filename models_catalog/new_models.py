"""Catalog queries for what discovery brought in: the models the catalog first listed in the last week."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db.models import QuerySet
from django.utils import timezone

from models_catalog.models import Model

NEW_DAYS = 7
NEW_LISTED = 12


def new_this_week(now: datetime | None = None, limit: int = NEW_LISTED) -> QuerySet[Model]:
    """Models the catalog first listed in the last seven days (found on the Hub or asked for), newest first."""
    since = (now or timezone.now()) - timedelta(days=NEW_DAYS)
    return Model.objects.filter(listed_at__gte=since).order_by("-listed_at", "id")[:limit]
