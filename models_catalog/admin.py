from django.contrib import admin
from django.utils.html import format_html_join

from models_catalog.discovery_report import report_lines
from models_catalog.models import (
    DiscoveryRun,
    HubSkip,
    ImportRequest,
    Model,
    ModelFact,
    ModelRevision,
    QuantizedBuild,
)
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
    "listed_at",
    "hub_checked_at",
    "builds_checked_at",
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


@admin.register(DiscoveryRun)
class DiscoveryRunAdmin(admin.ModelAdmin):
    """What discovery did: each run's imports, skips with reasons, builds found and facts changed."""

    list_display = ("started_at", "step", "outcome", "imported", "skipped", "builds_found", "changed", "finished_at")
    list_filter = ("step", "outcome")
    fields = ("step", "outcome", "started_at", "finished_at", "report_text")
    readonly_fields = fields

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    @admin.display(description="imported")
    def imported(self, run: DiscoveryRun) -> int:
        return len(run.report.get("imported", ()))

    @admin.display(description="skipped")
    def skipped(self, run: DiscoveryRun) -> int:
        return len(run.report.get("skipped", {}))

    @admin.display(description="builds found")
    def builds_found(self, run: DiscoveryRun) -> int:
        return len(run.report.get("builds", ()))

    @admin.display(description="facts changed")
    def changed(self, run: DiscoveryRun) -> int:
        return len(run.report.get("changed", {}))

    @admin.display(description="report")
    def report_text(self, run: DiscoveryRun) -> str:
        return format_html_join("", "<div>{}</div>", ((line,) for line in report_lines(run)))


@admin.register(HubSkip)
class HubSkipAdmin(admin.ModelAdmin):
    """Hub models discovery did not import (or child repos without a build), with the reason."""

    list_display = ("hub_id", "failure", "reason", "first_seen_at", "checked_at")
    list_filter = ("failure",)
    search_fields = ("hub_id", "reason")
    readonly_fields = ("first_seen_at", "checked_at")
