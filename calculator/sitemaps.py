"""sitemap.xml: an index with one paginated section per page type, generated from the database.

Django's sitemap framework pages each section at ``limit`` URLs (``?p=2`` …), so the index holds at 100,000+
models; every URL is listed in each language with its hreflang alternates.
"""

from __future__ import annotations

from typing import Any

from django.contrib.sitemaps import Sitemap
from django.db.models import QuerySet
from django.urls import reverse

from calculator.hardware import popular_hardware
from models_catalog.models import Model
from pricing.gpus import load_gpus
from pricing.models import Provider

URLS_PER_PAGE = 5000  # well below the protocol's 50,000 so each page renders quickly


class _Localized(Sitemap):
    i18n = True
    alternates = True
    x_default = True
    limit = URLS_PER_PAGE


class StaticSitemap(_Localized):
    changefreq = "weekly"
    priority = 0.6

    def items(self) -> list[str]:
        return ["home", "models_catalog:list", "methodology", "validation", "calculator:compare"]

    def location(self, item: str) -> str:
        return reverse(item)


class ModelSitemap(_Localized):
    changefreq = "daily"
    priority = 0.9

    def items(self) -> QuerySet[Model]:
        return Model.objects.only("hub_id", "updated_at").order_by("id")

    def lastmod(self, item: Model) -> Any:
        return item.updated_at


class ModelFaqSitemap(ModelSitemap):
    priority = 0.7

    def location(self, item: Model) -> str:
        return item.get_absolute_url() + "faq/"


SITEMAPS: dict[str, type[Sitemap]] = {
    "pages": StaticSitemap,
    "models": ModelSitemap,
    "faq": ModelFaqSitemap,
}


class GpuSitemap(_Localized):
    changefreq = "daily"
    priority = 0.6

    def items(self) -> list[str]:
        return ["", *(gpu.slug for gpu in load_gpus() if gpu.segment != "apple")]

    def location(self, item: str) -> str:
        return reverse("calculator:gpu", kwargs={"slug": item}) if item else reverse("calculator:gpus")


class ProviderSitemap(_Localized):
    changefreq = "daily"
    priority = 0.4

    def items(self) -> list[str]:
        return ["", *Provider.objects.order_by("slug").values_list("slug", flat=True)]

    def location(self, item: str) -> str:
        return reverse("calculator:provider", kwargs={"slug": item}) if item else reverse("calculator:providers")


class RunsOnSitemap(_Localized):
    """Every catalog model on every popular machine: paginated like the others, it holds at 100,000 models."""

    changefreq = "weekly"
    priority = 0.5

    def items(self) -> list[tuple[str, str]]:
        keys = [hw.key for hw in popular_hardware(load_gpus())]
        hub_ids = Model.objects.order_by("id").values_list("hub_id", flat=True)
        return [(hub_id, key) for hub_id in hub_ids for key in keys]

    def location(self, item: tuple[str, str]) -> str:
        # reversed here, under the language the sitemap is writing, not when the items were listed
        org, name = item[0].split("/", 1)
        return reverse("calculator:runs_on", kwargs={"org": org, "name": name, "hardware": item[1]})


SITEMAPS["gpus"] = GpuSitemap
SITEMAPS["providers"] = ProviderSitemap
SITEMAPS["runs-on"] = RunsOnSitemap
