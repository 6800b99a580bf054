from django.urls import path  # noqa: F401

app_name = "models_catalog"

urlpatterns: list = []
