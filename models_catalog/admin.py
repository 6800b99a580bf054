from django.contrib import admin

from models_catalog.models import ImportRequest, Model, ModelFact, ModelRevision, QuantizedBuild
from web.admin_edits import BumpsGeneration
from web.generations import CATALOG_GENERATION

PROVENANCE = (
    "params_total_source",
    "params_active_source",
    "params_computed",
    "params_active_computed",
    "config_sha256",
    "hub_sha",
    "sources",
    "origin",
    "fetched_at",
    "updated_at",
)


class ModelFactInline(admin.TabularInline):
    model = ModelFact
    extra = 0
    can_delete = False
    fields = ("kind", "value_int", "value_text", "source", "source_detail", "is_primary", "captured_at")
    readonly_fields = fields

    def has_add_permission(self, request, obj=None) -> bool:
        return False


class QuantizedBuildInline(admin.TabularInline):
    model = QuantizedBuild
    extra = 0
    fields = ("format", "label", "bits_per_weight", "repo_id", "file_size_bytes", "min_ram_bytes", "quality_note")
    readonly_fields = ("fetched_at",)


class ModelRevisionInline(admin.TabularInline):
    model = ModelRevision
    extra = 0
    can_delete = False
    fields = ("replaced_at", "reason", "params_total", "config_sha256", "hub_sha")
    readonly_fields = fields

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Model)
class ModelAdmin(BumpsGeneration, admin.ModelAdmin):
    generation = CATALOG_GENERATION
    list_display = (
        "hub_id",
        "params_total",
        "params_total_source",
        "family",
        "attention_kind",
        "modality",
        "max_context",
        "release_date",
        "origin",
        "fetched_at",
    )
    list_filter = (
        "family",
        "attention_kind",
        "modality",
        "is_moe",
        "params_total_source",
        "config_status",
        "origin",
        "licence",
    )
    search_fields = ("hub_id", "display_name", "organisation", "family")
    readonly_fields = PROVENANCE
    inlines = (ModelFactInline, QuantizedBuildInline, ModelRevisionInline)


@admin.register(QuantizedBuild)
class QuantizedBuildAdmin(BumpsGeneration, admin.ModelAdmin):
    generation = CATALOG_GENERATION
    list_display = ("model", "format", "label", "bits_per_weight", "file_size_bytes", "min_ram_bytes", "repo_id")
    list_filter = ("format",)
    search_fields = ("model__hub_id", "repo_id", "label")
    readonly_fields = ("size_source", "bits_source", "quality_source", "source", "fetched_at")


@admin.register(ImportRequest)
class ImportRequestAdmin(admin.ModelAdmin):
    list_display = ("hub_id", "state", "failure", "attempts", "created_at", "updated_at")
    list_filter = ("state", "failure")
    search_fields = ("hub_id",)
    readonly_fields = ("created_at", "updated_at")
