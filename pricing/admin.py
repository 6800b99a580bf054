"""Admin: GPUs and providers are editable metadata; snapshots, offers and API prices are append-only history
(read-only)."""

from django.contrib import admin

from web.admin_edits import BumpsGeneration
from web.generations import PRICES_GENERATION

from .models import ApiPrice, Gpu, Offer, PriceSnapshot, Provider


@admin.register(Gpu)
class GpuAdmin(BumpsGeneration, admin.ModelAdmin):
    generation = PRICES_GENERATION  # GPU pages and price tables show these rows
    list_display = ["name", "short_name", "segment", "memory_gb", "memory_bandwidth_gbps", "bf16_dense_tflops"]
    list_filter = ["segment", "vendor"]
    search_fields = ["slug", "name", "short_name"]


@admin.register(Provider)
class ProviderAdmin(BumpsGeneration, admin.ModelAdmin):
    generation = PRICES_GENERATION
    list_display = ["name", "slug", "has_api", "website"]
    search_fields = ["slug", "name"]


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(PriceSnapshot)
class PriceSnapshotAdmin(ReadOnlyAdmin):
    list_display = ["provider", "captured_at", "outcome", "offer_count", "error"]
    list_filter = ["outcome", "provider"]
    date_hierarchy = "captured_at"


@admin.register(Offer)
class OfferAdmin(ReadOnlyAdmin):
    list_display = ["provider", "gpu", "instance_name", "price_per_gpu_hour_usd", "pricing_kind", "captured_at"]
    list_filter = ["provider", "pricing_kind", "confidence", "gpu"]
    search_fields = ["instance_name"]
    list_select_related = ["provider", "gpu"]


@admin.register(ApiPrice)
class ApiPriceAdmin(ReadOnlyAdmin):
    list_display = [
        "route",
        "hub_id",
        "provider",
        "input_per_million_usd",
        "cached_input_per_million_usd",
        "output_per_million_usd",
        "intro_ends_on",
        "captured_on",
        "confidence",
    ]
    list_filter = ["confidence", "captured_on"]
    search_fields = ["route", "hub_id", "provider"]
