from django.conf.urls.i18n import i18n_patterns
from django.contrib import admin
from django.urls import include, path

from config import views

urlpatterns = [
    path("healthz", views.healthz, name="healthz"),
    path("robots.txt", views.robots_txt, name="robots_txt"),
    path("admin/", admin.site.urls),
]

urlpatterns += i18n_patterns(
    path("", views.home, name="home"),
    path("methodology/", views.methodology, name="methodology"),
    path("", include("models_catalog.urls")),
    path("", include("calculator.urls")),
    prefix_default_language=True,
)

handler404 = "config.views.page_not_found"
handler500 = "config.views.server_error"
