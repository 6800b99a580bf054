"""sitemap.xml: an index with one paginated section per page type, generated from the database.

Django's sitemap framework pages each section at ``limit`` URLs (``?p=2`` …), so the index holds at 100,000+
models; every URL is listed in each language with its hreflang alternates.
"""

from __future__ import annotations

from typing import Any

from django.contrib.sitemaps import Sitemap
from django.db.models import QuerySet
from django.urls import reverse

from models_catalog.models import Model

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
        return ["home", "models_catalog:list", "methodology"]

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
