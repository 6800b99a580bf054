from django.urls import path, re_path

from calculator import views, views_hardware, views_plan

app_name = "calculator"

urlpatterns = [
    re_path(r"^models/(?P<org>[^/]+)/(?P<name>[^/]+)\.md$", views.model_markdown, name="model_markdown"),
    path("models/<str:org>/<str:name>/", views.model_detail, name="model"),
    path("models/<str:org>/<str:name>/faq/", views.model_faq, name="model_faq"),
    path("models/<str:org>/<str:name>/og.png", views.model_og_image, name="model_og_image"),
    path("models/<str:org>/<str:name>/runs-on/<str:hardware>/", views_hardware.model_runs_on, name="runs_on"),
    path("gpus/", views_hardware.gpu_index, name="gpus"),
    path("gpus/<slug:slug>/", views_hardware.gpu_detail, name="gpu"),
    path("providers/", views_hardware.provider_index, name="providers"),
    path("providers/<slug:slug>/", views_hardware.provider_detail, name="provider"),
    path("compare/", views_hardware.compare, name="compare"),
    path("plan/", views_plan.plan_page, name="plan"),
    path("my-machine/", views.remember_rig, name="remember_rig"),
]
