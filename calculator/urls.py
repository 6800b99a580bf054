from django.urls import path, re_path

from calculator import views

app_name = "calculator"

urlpatterns = [
    re_path(r"^models/(?P<org>[^/]+)/(?P<name>[^/]+)\.md$", views.model_markdown, name="model_markdown"),
    path("models/<str:org>/<str:name>/", views.model_detail, name="model"),
    path("models/<str:org>/<str:name>/faq/", views.model_faq, name="model_faq"),
    path("models/<str:org>/<str:name>/og.png", views.model_og_image, name="model_og_image"),
]
