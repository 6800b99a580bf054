"""What a model is, with where every figure came from.

`Model` keeps one chosen value per fact (what lists sort and filter on) and `ModelFact` keeps every figure we
found, each with its source, so a page can show conflicts side by side instead of silently picking one.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from models_catalog import naming


class Source(models.TextChoices):
    SAFETENSORS = "safetensors", _("Hub safetensors metadata")
    MODEL_CARD = "model_card", _("Model card")
    COMPUTED = "computed", _("Computed from config.json")
    REFERENCE = "reference", _("Published model page or article")
    HUB_API = "hub_api", _("Hub API")
    CONFIG = "config", _("config.json")
    RECORDED = "recorded", _("Recorded Hub data")


class Model(models.Model):
    hub_id = models.CharField(max_length=193, help_text="organisation/name as on the Hub")
    slug = models.SlugField(max_length=200, unique=True)
    display_name = models.CharField(max_length=200)
    organisation = models.CharField(max_length=96)

    config = models.JSONField(null=True, blank=True, help_text="the raw config.json (partial where noted)")
    config_status = models.CharField(max_length=16, default="complete")  # complete / partial / none
    config_sha256 = models.CharField(max_length=64, blank=True)

    params_total = models.BigIntegerField(null=True, blank=True)
    params_total_source = models.CharField(max_length=16, choices=Source.choices, blank=True)
    params_active = models.BigIntegerField(null=True, blank=True)
    params_active_source = models.CharField(max_length=16, choices=Source.choices, blank=True)
    params_by_dtype = models.JSONField(null=True, blank=True, help_text="safetensors element counts per dtype")
    params_computed = models.BigIntegerField(null=True, blank=True, help_text="total computed from config.json")
    params_active_computed = models.BigIntegerField(null=True, blank=True)

    family = models.CharField(max_length=64, blank=True, db_index=True)
    model_type = models.CharField(max_length=64, blank=True)
    attention_kind = models.CharField(max_length=32, blank=True, db_index=True)
    is_moe = models.BooleanField(default=False)
    experts_routed = models.PositiveIntegerField(default=0)
    experts_per_token = models.PositiveIntegerField(default=0)
    experts_shared = models.PositiveIntegerField(default=0)
    num_layers = models.PositiveIntegerField(null=True, blank=True)
    native_dtype = models.CharField(max_length=16, blank=True)
    max_context = models.PositiveIntegerField(null=True, blank=True)
    modality = models.CharField(max_length=16, blank=True, db_index=True)  # "text" / "vision"
    modalities = models.JSONField(default=list, blank=True)
    task = models.CharField(max_length=64, blank=True)  # the Hub's pipeline_tag
    licence = models.CharField(max_length=64, blank=True)
    release_date = models.DateField(null=True, blank=True)
    downloads = models.BigIntegerField(null=True, blank=True)  # the Hub's count over the 30 days to downloads_as_of
    downloads_as_of = models.DateField(null=True, blank=True)  # when that count was read (a live import, a scrape)
    likes = models.PositiveIntegerField(null=True, blank=True)
    gated = models.CharField(max_length=16, blank=True)
    hub_sha = models.CharField(max_length=64, blank=True)

    sources = models.JSONField(default=list, blank=True, help_text="citations for the facts of this model")
    notes = models.TextField(blank=True)
    origin = models.CharField(max_length=16, default="hub")  # "hub" or "recorded" (the shipped folder)
    fetched_at = models.DateTimeField()
    updated_at = models.DateTimeField(auto_now=True)
    # Discovery (models_catalog.discovery): when the catalog first listed a model it found or was asked for on the
    # Hub (None for the bundled data), and when its Hub facts and its builds were last checked.
    listed_at = models.DateTimeField(null=True, blank=True, db_index=True)
    hub_checked_at = models.DateTimeField(null=True, blank=True)
    builds_checked_at = models.DateTimeField(null=True, blank=True)
    # set on save from the Hub id and the name (models_catalog.naming): the catalog's name order and its search
    name_key = models.CharField(max_length=400, blank=True, editable=False)
    search_text = models.CharField(max_length=600, blank=True, editable=False)

    class Meta:
        ordering = ["organisation", "display_name"]
        constraints = [models.UniqueConstraint(Lower("hub_id"), name="model_hub_id_ci_unique")]
        # The catalog list's sort orders (models_catalog.selectors.SORTS) and its licence filter, so a page deep
        # in a large catalog is an index scan, not a sort of the whole table.
        indexes = [
            models.Index(fields=["organisation", "display_name"], name="model_list_by_name"),
            models.Index(fields=["name_key", "id"], name="model_list_by_natural_name"),
            models.Index(fields=["-params_total", "display_name"], name="model_list_by_size"),
            models.Index(fields=["-release_date", "display_name"], name="model_list_by_date"),
            models.Index(fields=["licence"], name="model_licence"),
            models.Index(fields=["-downloads", "display_name"], name="model_list_by_downloads"),
        ]

    def __str__(self) -> str:
        return self.hub_id

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.name_key = naming.name_key(self.hub_id, self.display_name)
        self.search_text = naming.search_text(self.hub_id, self.display_name, self.family)
        fields = kwargs.get("update_fields")
        if fields is not None:
            kwargs["update_fields"] = {*fields, "name_key", "search_text"}
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        org, name = self.hub_id.split("/", 1)
        return reverse("calculator:model", kwargs={"org": org, "name": name})

    @property
    def url(self) -> str:
        return self.get_absolute_url()


class ModelFact(models.Model):
    """One figure for one fact of a model, from one source (several rows per fact when sources disagree)."""

    class Kind(models.TextChoices):
        PARAMS_TOTAL = "params_total", _("Total parameters")
        PARAMS_ACTIVE = "params_active", _("Active parameters per token")
        MAX_CONTEXT = "max_context", _("Maximum context")
        LICENCE = "licence", _("Licence")
        RELEASE_DATE = "release_date", _("Release date")
        DOWNLOADS = "downloads", _("Downloads")
        LIKES = "likes", _("Likes")
        MODALITY = "modality", _("Modality")
        NATIVE_DTYPE = "native_dtype", _("Released precision")

    model = models.ForeignKey(Model, on_delete=models.CASCADE, related_name="facts")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    value_int = models.BigIntegerField(null=True, blank=True)
    value_text = models.CharField(max_length=200, blank=True)
    source = models.CharField(max_length=16, choices=Source.choices)
    source_detail = models.TextField(blank=True, help_text="citation: document, URL or commit")
    is_primary = models.BooleanField(default=False, help_text="the figure the catalog uses")
    captured_at = models.DateTimeField()

    class Meta:
        ordering = ["kind", "-is_primary", "source", "id"]
        constraints = [
            models.UniqueConstraint(fields=["model", "kind", "source", "source_detail"], name="model_fact_unique")
        ]

    def __str__(self) -> str:
        return f"{self.model_id} {self.kind}={self.value_int or self.value_text} ({self.source})"


class ModelRevision(models.Model):
    """History: the previous config and figures, kept whenever an import changes them."""

    model = models.ForeignKey(Model, on_delete=models.CASCADE, related_name="revisions")
    config = models.JSONField(null=True, blank=True)
    config_sha256 = models.CharField(max_length=64, blank=True)
    params_total = models.BigIntegerField(null=True, blank=True)
    params_active = models.BigIntegerField(null=True, blank=True)
    hub_sha = models.CharField(max_length=64, blank=True)
    replaced_at = models.DateTimeField()
    reason = models.CharField(max_length=200)

    class Meta:
        ordering = ["-replaced_at", "-id"]

    def __str__(self) -> str:
        return f"{self.model_id} before {self.replaced_at:%Y-%m-%d}: {self.reason}"


class QuantizedBuild(models.Model):
    class Format(models.TextChoices):
        GGUF = "GGUF"
        MLX = "MLX"
        AWQ = "AWQ"
        GPTQ = "GPTQ"
        W8A8 = "W8A8"
        FP8 = "FP8"
        NVFP4 = "NVFP4"
        NF4 = "NF4"
        EXL2 = "EXL2"
        BF16 = "BF16"
        OTHER = "other"

    model = models.ForeignKey(Model, on_delete=models.CASCADE, related_name="builds")
    format = models.CharField(max_length=8, choices=Format.choices)
    label = models.CharField(max_length=64, help_text="Q4_K_M, 4-bit, 2bit-lite, …")
    bits_per_weight = models.DecimalField(max_digits=5, decimal_places=2, null=True, blank=True)
    bits_source = models.CharField(max_length=100, blank=True)
    repo_id = models.CharField(max_length=193)
    file_size_bytes = models.BigIntegerField(null=True, blank=True)
    size_source = models.CharField(max_length=200, blank=True)
    size_is_approximate = models.BooleanField(default=False)
    min_ram_bytes = models.BigIntegerField(null=True, blank=True, help_text="as published, when known")
    quality_note = models.CharField(max_length=200, blank=True)
    quality_source = models.CharField(max_length=200, blank=True)
    source = models.CharField(max_length=300, blank=True, help_text="where this build's facts come from")
    sort_order = models.PositiveIntegerField(default=0)
    fetched_at = models.DateTimeField()

    class Meta:
        ordering = ["model", "sort_order", "-bits_per_weight", "label"]
        constraints = [models.UniqueConstraint(fields=["model", "repo_id", "label"], name="quantized_build_unique")]

    def __str__(self) -> str:
        return f"{self.repo_id} {self.label}"


class ImportRequest(models.Model):
    """A reader asked for a Hub id that is not in the catalog; a task imports it. One row per lower-cased id."""

    class State(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    PENDING_STATES = (State.QUEUED, State.RUNNING)
    # Failures recorded by the import itself (hub.HubError.state: gated, not_found, not_sizable, unavailable,
    # rate_limited), and these three recorded around it.
    TIMED_OUT = "timed_out"  # still pending after CATALOG_IMPORT_TIME_LIMIT_S (a killed worker, a lost message)
    TIMED_OUT_REASON = "the import did not finish in time; try again"
    PAUSED = "paused"  # the task could not be queued (Redis down or hung)
    WORKER_LOST = "worker_lost"  # its worker died on every delivery
    # Failures that another try may cure: the page offers one.
    RETRYABLE = frozenset({"unavailable", "rate_limited", TIMED_OUT, PAUSED, WORKER_LOST, "error"})

    hub_id = models.CharField(max_length=193)
    state = models.CharField(max_length=8, choices=State.choices, default=State.QUEUED)
    failure = models.CharField(max_length=16, blank=True)  # gated / not_found / not_sizable / unavailable / …
    reason = models.TextField(blank=True)
    attempts = models.PositiveIntegerField(default=0)
    model = models.ForeignKey(Model, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    queued_at = models.DateTimeField(default=timezone.now, help_text="when the current import was queued")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(Lower("hub_id"), name="import_request_hub_id_ci_unique")]
        # The reaper's query: pending requests queued before a cutoff.
        indexes = [models.Index(fields=["state", "queued_at"], name="import_request_by_state")]

    def __str__(self) -> str:
        return f"{self.hub_id} ({self.state})"

    @staticmethod
    def stale_before(now: datetime) -> datetime:
        """Requests queued before this and still pending have outlived every attempt their task could make."""
        return now - timedelta(seconds=settings.CATALOG_IMPORT_TIME_LIMIT_S)

    @property
    def is_pending(self) -> bool:
        return self.state in self.PENDING_STATES

    def is_stale(self, now: datetime) -> bool:
        return self.is_pending and self.queued_at < self.stale_before(now)

    @property
    def can_retry(self) -> bool:
        return self.state == self.State.FAILED and self.failure in self.RETRYABLE


class DiscoveryRun(models.Model):
    """One run of one discovery step on the beat schedule: what it imported, skipped, found and refreshed."""

    class Step(models.TextChoices):
        MODELS = "models", _("New models")
        BUILDS = "builds", _("New builds")
        FACTS = "facts", _("Hub facts")

    class Outcome(models.TextChoices):
        RUNNING = "running", _("running")
        DONE = "done", _("done")
        PARTIAL = "partial", _("stopped early")
        FAILED = "failed", _("failed")
        LOCKED = "locked", _("another run was under way")

    step = models.CharField(max_length=8, choices=Step.choices)
    outcome = models.CharField(max_length=8, choices=Outcome.choices, default=Outcome.RUNNING)
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    # {"imported": [ids], "skipped": {id: reason}, "builds": [{model, repo_id, format, label, size_bytes}],
    #  "changed": {id: [fields]}, "failures": {id: reason}, "stopped": reason}
    report = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-started_at", "-id"]
        indexes = [models.Index(fields=["step", "-started_at"], name="discovery_run_by_step")]

    def __str__(self) -> str:
        return f"{self.step} {self.started_at:%Y-%m-%d %H:%M} ({self.outcome})"


class HubSkip(models.Model):
    """A Hub model discovery found and did not import, with the reason; looked at again after a while."""

    hub_id = models.CharField(max_length=193)
    failure = models.CharField(max_length=16)  # hub.HubError.state: not_sizable, gated, not_found, …
    reason = models.TextField()
    first_seen_at = models.DateTimeField()
    checked_at = models.DateTimeField()

    class Meta:
        ordering = ["-checked_at", "hub_id"]
        constraints = [models.UniqueConstraint(Lower("hub_id"), name="hub_skip_hub_id_ci_unique")]

    def __str__(self) -> str:
        return f"{self.hub_id}: {self.failure}"
