"""What hardware and hosted APIs cost: GPUs, providers, their offers, the append-only snapshots the offers come from,
and per-token API prices."""

from __future__ import annotations

from django.db import models
from django.db.models.functions import Lower

SEGMENT_CHOICES = [
    ("datacenter", "Datacenter"),
    ("workstation", "Workstation"),
    ("consumer", "Consumer"),
    ("apple", "Apple Silicon"),
    ("unified-desktop", "Unified-memory desktop"),
]
PRICING_KIND_CHOICES = [
    ("on-demand", "On-demand"),
    ("spot", "Spot / interruptible"),
    ("community", "Community cloud"),
    ("reserved", "Reserved / committed"),
]
CONFIDENCE_CHOICES = [
    ("high", "High: provider API or official price API"),
    ("medium", "Medium: the provider's own pricing page"),
    ("low", "Low: aggregator or fragile scrape"),
]


class SlugManager(models.Manager):
    def get_by_natural_key(self, slug: str):
        return self.get(slug=slug)


class Gpu(models.Model):
    """One accelerator, loaded from ``pricing/data/gpus.json`` (``gpus_sync``); every figure carries sources."""

    slug = models.SlugField(max_length=64, unique=True)
    name = models.CharField(max_length=200)
    short_name = models.CharField(max_length=64)
    family = models.SlugField(max_length=64, db_index=True)
    vendor = models.CharField(max_length=32)
    architecture = models.CharField(max_length=64)
    segment = models.CharField(max_length=20, choices=SEGMENT_CHOICES)
    memory_gb = models.DecimalField(max_digits=8, decimal_places=2)
    memory_bandwidth_gbps = models.FloatField(null=True, blank=True)
    bf16_dense_tflops = models.FloatField(null=True, blank=True)
    fp8_dense_tflops = models.FloatField(null=True, blank=True)
    int8_tops = models.FloatField(null=True, blank=True)
    sources = models.JSONField(default=list)
    notes = models.TextField(blank=True)

    objects = SlugManager()

    class Meta:
        ordering = ["-memory_gb", "name"]

    def __str__(self) -> str:
        return self.name

    def natural_key(self) -> tuple[str]:
        return (self.slug,)


class Provider(models.Model):
    slug = models.SlugField(max_length=64, unique=True)
    name = models.CharField(max_length=100)
    website = models.URLField(blank=True)
    has_api = models.BooleanField(default=False, help_text="Prices come from a provider API (else curated).")

    objects = SlugManager()

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def natural_key(self) -> tuple[str]:
        return (self.slug,)


class PriceSnapshot(models.Model):
    """One refresh of one provider. Appended, never changed; deleted with its offers only once every day it counts
    for is folded into the daily price history (``pricing.retention``), the history the GPU pages chart."""

    class Outcome(models.TextChoices):
        SUCCESS = "success", "New prices"
        UNCHANGED = "unchanged", "Same payload as the last good snapshot"
        EMPTY = "empty", "Provider returned no offers"
        FAILED = "failed", "Fetch or parse failed"

    provider = models.ForeignKey(Provider, on_delete=models.PROTECT, related_name="snapshots")
    captured_at = models.DateTimeField(db_index=True, help_text="When the payload was fetched or read.")
    outcome = models.CharField(max_length=10, choices=Outcome.choices)
    offer_count = models.PositiveIntegerField(default=0)
    payload_sha256 = models.CharField(max_length=64, blank=True)
    source = models.CharField(max_length=500, blank=True, help_text="Endpoint or file the payload came from.")
    error = models.TextField(blank=True)
    notes = models.TextField(blank=True)
    catalog_version = models.CharField(
        max_length=64, blank=True, help_text="Version of the published catalog the payload was read from (gpuhunt)."
    )
    same_as = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="confirmations",
        help_text="For an unchanged refresh: the snapshot whose offers it confirms.",
    )

    class Meta:
        ordering = ["-captured_at", "-id"]
        # Pages read each provider's newest snapshot three ways (any outcome, newest success, newest good one:
        # selectors._latest); each is one index lookup per provider however long the history grows.
        indexes = [
            models.Index(fields=["provider", "outcome", "-captured_at", "-id"], name="pricing_snap_outcome_newest"),
            models.Index(fields=["provider", "-captured_at", "-id"], name="pricing_snap_newest"),
            models.Index(
                fields=["provider", "-captured_at", "-id"],
                condition=models.Q(outcome__in=["success", "unchanged"]),
                name="pricing_snap_good_newest",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.provider_id} {self.captured_at:%Y-%m-%d %H:%M} {self.outcome}"

    def save(self, *args, **kwargs) -> None:
        if not self._state.adding:
            raise ValueError("price snapshots are append-only")
        super().save(*args, **kwargs)


class Offer(models.Model):
    """One parsed offer of one snapshot. Rows are never updated; the current prices are those of the provider's
    latest successful snapshot (``pricing.selectors.current_offers``)."""

    snapshot = models.ForeignKey(PriceSnapshot, on_delete=models.PROTECT, related_name="offers")
    provider = models.ForeignKey(Provider, on_delete=models.PROTECT, related_name="offers")
    gpu = models.ForeignKey(Gpu, on_delete=models.PROTECT, related_name="offers")
    instance_name = models.CharField(max_length=300)
    gpu_counts = models.JSONField(default=list, help_text="GPU counts an instance is sold with; [] = unknown.")
    price_per_gpu_hour_usd = models.DecimalField(max_digits=14, decimal_places=6)
    instance_prices_usd = models.JSONField(
        default=list, blank=True, help_text='Quoted whole-instance prices: [[gpu_count, "USD/h"], ...].'
    )
    pricing_kind = models.CharField(max_length=10, choices=PRICING_KIND_CHOICES, default="on-demand")
    term = models.CharField(max_length=32, blank=True, help_text="Commitment term of reserved prices.")
    region = models.CharField(max_length=100, blank=True)
    captured_at = models.DateTimeField(help_text="When this price was seen at the source.")
    url = models.URLField(max_length=500, blank=True)
    confidence = models.CharField(max_length=6, choices=CONFIDENCE_CHOICES, default="high")
    source = models.TextField(blank=True)
    notes = models.TextField(blank=True)
    availability = models.CharField(
        max_length=100, blank=True, help_text="Stock as the source reported it at captured_at; blank: not reported."
    )

    class Meta:
        ordering = ["price_per_gpu_hour_usd"]
        # The footer's "prices captured" date: the newest capture is the index's last entry. Pages find offers by
        # snapshot (its foreign key index, and the unique constraint that leads with it); the price history is
        # read from the folded daily tables, so no index by GPU and date is needed here.
        indexes = [models.Index(fields=["captured_at"], name="pricing_offer_captured_at")]
        constraints = [
            models.UniqueConstraint(
                fields=["snapshot", "gpu", "instance_name", "pricing_kind", "term", "region"],
                name="pricing_offer_unique_per_snapshot",
            )
        ]

    def __str__(self) -> str:
        return f"{self.provider_id} {self.instance_name} ${self.price_per_gpu_hour_usd}/GPU-h"


class ApiPrice(models.Model):
    """One per-token price of one hosted route at one provider, as captured on one day (USD per million tokens).

    Loaded from ``pricing/data/api-prices.json`` (``api_prices_load``) and appended daily from OpenRouter's models
    endpoint (``api_prices_refresh``). Appended per capture, never changed: the natural key is route + provider +
    capture date, and a newer capture is a new row.
    """

    hub_id = models.CharField(
        max_length=193, blank=True, help_text="Hub id of the model the route serves; blank when not in the catalog."
    )
    route = models.CharField(max_length=200, help_text="Hosted model id, e.g. z-ai/glm-5.3-flash.")
    provider = models.CharField(max_length=200, help_text="Who serves the route at this price.")
    input_per_million_usd = models.DecimalField(max_digits=14, decimal_places=6)
    cached_input_per_million_usd = models.DecimalField(max_digits=14, decimal_places=6, null=True, blank=True)
    output_per_million_usd = models.DecimalField(max_digits=14, decimal_places=6)
    intro_input_per_million_usd = models.DecimalField(max_digits=14, decimal_places=6, null=True, blank=True)
    intro_cached_input_per_million_usd = models.DecimalField(max_digits=14, decimal_places=6, null=True, blank=True)
    intro_output_per_million_usd = models.DecimalField(max_digits=14, decimal_places=6, null=True, blank=True)
    intro_ends_on = models.DateField(null=True, blank=True, help_text="Last day of the introductory offer.")
    captured_on = models.DateField(null=True, blank=True, help_text="When the price was seen; blank: not stated.")
    context_length = models.PositiveIntegerField(null=True, blank=True)
    source_publisher = models.CharField(max_length=200, blank=True)
    source_title = models.CharField(max_length=300)
    source_url = models.URLField(max_length=500, blank=True)
    source_detail = models.TextField(blank=True, help_text="The source exactly as the data file gives it.")
    confidence = models.CharField(max_length=6, choices=CONFIDENCE_CHOICES)
    notes = models.TextField(blank=True)

    class Meta:
        ordering = ["route", "provider", "-captured_on"]
        indexes = [models.Index(Lower("hub_id"), "captured_on", name="pricing_apiprice_hub_id_ci")]
        constraints = [
            models.UniqueConstraint(
                fields=["route", "provider", "captured_on"], name="pricing_apiprice_unique_per_capture"
            ),
            # NULLs never collide in a unique index, so an undated capture needs its own constraint.
            models.UniqueConstraint(
                fields=["route", "provider"],
                condition=models.Q(captured_on__isnull=True),
                name="pricing_apiprice_unique_undated",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.route} at {self.provider} ({self.captured_on or 'undated'})"

    def save(self, *args, **kwargs) -> None:
        if not self._state.adding:
            raise ValueError("API prices are append-only")
        super().save(*args, **kwargs)


class GpuPriceIndex(models.Model):
    """One day's on-demand price of one GPU type over every provider's offers current that day (USD per GPU-hour).

    Computed from snapshots by ``price_index_compute`` and kept indefinitely (raw snapshots are pruned after
    ``PRICING_OFFER_RETENTION_DAYS``, ``pricing.retention``; the index is the long history the GPU pages chart).
    Recomputing a day replaces that day's row.
    """

    gpu = models.ForeignKey(Gpu, on_delete=models.PROTECT, related_name="price_index")
    day = models.DateField()
    median_usd = models.DecimalField(max_digits=14, decimal_places=6)
    cheapest_usd = models.DecimalField(max_digits=14, decimal_places=6)
    offer_count = models.PositiveIntegerField()
    provider_count = models.PositiveIntegerField()
    computed_at = models.DateTimeField()

    class Meta:
        ordering = ["gpu", "day"]
        constraints = [models.UniqueConstraint(fields=["gpu", "day"], name="pricing_gpupriceindex_unique_per_day")]

    def __str__(self) -> str:
        return f"{self.gpu_id} {self.day} median ${self.median_usd}/GPU-h"


class ProviderPriceDay(models.Model):
    """One provider's prices of one GPU type and pricing kind on one day (USD per GPU-hour), kept indefinitely.

    Folded from snapshots by ``price_index_compute`` together with ``GpuPriceIndex`` (the same offers count: those
    current at the day's end, see ``pricing.price_index``), so raw offers can be pruned without losing history.
    """

    gpu = models.ForeignKey(Gpu, on_delete=models.PROTECT, related_name="provider_price_days")
    provider = models.ForeignKey(Provider, on_delete=models.PROTECT, related_name="price_days")
    pricing_kind = models.CharField(max_length=10, choices=PRICING_KIND_CHOICES)
    day = models.DateField()
    median_usd = models.DecimalField(max_digits=14, decimal_places=6)
    cheapest_usd = models.DecimalField(max_digits=14, decimal_places=6)
    offer_count = models.PositiveIntegerField()
    computed_at = models.DateTimeField()

    class Meta:
        ordering = ["gpu", "pricing_kind", "day", "provider"]
        constraints = [
            # Leads with what the GPU page asks for: one GPU's on-demand days.
            models.UniqueConstraint(
                fields=["gpu", "pricing_kind", "day", "provider"], name="pricing_providerpriceday_unique"
            )
        ]
        indexes = [models.Index(fields=["day"], name="pricing_providerpriceday_day")]

    def __str__(self) -> str:
        return f"{self.provider_id} {self.gpu_id} {self.pricing_kind} {self.day} median ${self.median_usd}/GPU-h"


class SettledPriceDay(models.Model):
    """A day whose price history is final: folded after the day ended, from the snapshots then stored.

    Raw offers are pruned only where every day they count for is settled, and a settled day is never folded again
    once its offers may be gone (``pricing.retention``).
    """

    day = models.DateField(unique=True)
    settled_at = models.DateTimeField()

    class Meta:
        ordering = ["day"]

    def __str__(self) -> str:
        return f"{self.day} settled {self.settled_at:%Y-%m-%d %H:%M}"
