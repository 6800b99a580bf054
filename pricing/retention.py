"""Retention of raw offers: snapshots older than ``PRICING_OFFER_RETENTION_DAYS`` are deleted with their offers,
once every day they count for is folded into the daily price history (``pricing.price_index``).

What is never deleted, whatever its age:
- each provider's newest snapshot, newest successful snapshot (its offers are the current ones every page
  shows) and newest good one (the date the provider's prices were last confirmed);
- each provider's newest good snapshot before the pruning boundary: it is what counts for the first days after
  the boundary, which may still be recomputed;
- the snapshot any kept confirmation (an ``unchanged`` refresh) points at.

Failed and empty refreshes count for no history; past the boundary they go too, except each provider's newest.
Running it twice deletes nothing more the second time.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, time

from django.db import transaction
from django.db.models import OuterRef, Q, QuerySet, Subquery

from web.generations import PRICES_GENERATION

from .models import Offer, PriceSnapshot, Provider
from .price_index import GOOD, first_unsettled_day, price_history_settle, retention_start

DELETE_BATCH = 2000  # snapshots per transaction: short transactions, and a run cut short keeps what it did


@dataclass(frozen=True, slots=True)
class PruneResult:
    settled_days: int
    snapshots_deleted: int
    offers_deleted: int
    boundary: datetime  # snapshots captured before this were candidates


def _newest(outcomes: Iterable[str] | None, before: datetime | None = None) -> Subquery:
    snapshots = PriceSnapshot.objects.filter(provider=OuterRef("pk"))
    if outcomes is not None:
        snapshots = snapshots.filter(outcome__in=list(outcomes))
    if before is not None:
        snapshots = snapshots.filter(captured_at__lt=before)
    return Subquery(snapshots.order_by("-captured_at", "-id").values("id")[:1])


def kept_snapshot_ids(boundary: datetime) -> set[int]:
    """The snapshots before ``boundary`` that stay (module docstring), plus the newest ones."""
    rows = Provider.objects.annotate(
        newest=_newest(None),
        newest_success=_newest([PriceSnapshot.Outcome.SUCCESS]),
        newest_good=_newest(GOOD),
        good_before=_newest(GOOD, before=boundary),
    ).values_list("newest", "newest_success", "newest_good", "good_before")
    kept = {snapshot_id for row in rows for snapshot_id in row if snapshot_id is not None}
    confirmed = PriceSnapshot.objects.filter(id__in=kept, same_as__isnull=False).values_list("same_as_id", flat=True)
    return kept | {snapshot_id for snapshot_id in confirmed if snapshot_id is not None}


def prunable_snapshots(boundary: datetime) -> QuerySet[PriceSnapshot]:
    kept = kept_snapshot_ids(boundary)
    # A success snapshot that a confirmation after the boundary (or a kept one) points at stays with it.
    referenced = PriceSnapshot.objects.filter(
        Q(captured_at__gte=boundary) | Q(id__in=kept), same_as__isnull=False
    ).values("same_as_id")
    return PriceSnapshot.objects.filter(captured_at__lt=boundary).exclude(id__in=kept).exclude(id__in=referenced)


def pruning_boundary(now: datetime) -> datetime:
    """The retention window's start, or the first day whose history is not settled if that is earlier."""
    unsettled = datetime.combine(first_unsettled_day(now), time.min, tzinfo=UTC)
    return min(retention_start(now), unsettled)


def offers_prune(now: datetime | None = None) -> PruneResult:
    """Settle the history of every finished day, then delete the snapshots and offers it no longer needs."""
    now = now or datetime.now(UTC)
    settled = price_history_settle(now)
    boundary = pruning_boundary(now)
    snapshots_deleted = offers_deleted = 0
    # Confirmations first: each points at (PROTECTs) the success snapshot it confirms; they have no offers.
    for confirmations in (True, False):
        while True:
            batch = prunable_snapshots(boundary)
            if confirmations:
                batch = batch.filter(same_as__isnull=False)
            ids = list(batch.order_by("id").values_list("id", flat=True)[:DELETE_BATCH])
            if not ids:
                break
            with transaction.atomic():
                offers_deleted += Offer.objects.filter(snapshot_id__in=ids).delete()[0]
                snapshots_deleted += PriceSnapshot.objects.filter(id__in=ids).delete()[0]
    if snapshots_deleted:
        PRICES_GENERATION.bump()
    return PruneResult(len(settled), snapshots_deleted, offers_deleted, boundary)
