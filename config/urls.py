from django.conf import settings
from django.conf.urls.i18n import i18n_patterns
from django.contrib import admin
from django.contrib.sitemaps import views as sitemap_views
from django.urls import include, path

from calculator.sitemaps import SITEMAPS
from calculator.views_validation import validation_page
from config import views

urlpatterns = [
    path("healthz", views.healthz, name="healthz"),
    path("robots.txt", views.robots_txt, name="robots_txt"),
    path("favicon.ico", views.favicon_ico, name="favicon_ico"),
    path("llms.txt", views.llms_txt, name="llms_txt"),
    # kept by the page cache (config/page_cache.py) per catalog generation
    path(
        "sitemap.xml",
        sitemap_views.index,
        {"sitemaps": SITEMAPS, "sitemap_url_name": "sitemap_section"},
        name="sitemap",
    ),
    path(
        "sitemap-<section>.xml",
        sitemap_views.sitemap,
        {"sitemaps": SITEMAPS},
        name="sitemap_section",
    ),
    path(settings.ADMIN_PATH, admin.site.urls),
    # the JSON API answers the same in every language, so it sits outside the language prefix
    path("api/v1/", include("calculator.api.urls")),
]

urlpatterns += i18n_patterns(
    path("", views.home, name="home"),
    path("methodology/", views.methodology, name="methodology"),
    path("validation/", validation_page, name="validation"),
    path("validation/<slug:kind>/", validation_page, name="validation_kind"),
    path("", include("models_catalog.urls")),
    path("", include("calculator.urls")),
    prefix_default_language=True,
)

handler404 = "config.views.page_not_found"
handler500 = "config.views.server_error"
