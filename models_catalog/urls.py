from django.urls import path

from models_catalog import views

app_name = "models_catalog"

urlpatterns = [
    path("models/", views.model_list, name="list"),
    path("models/suggest/", views.model_suggestions, name="suggest"),
    path("models/import/", views.import_start, name="import_start"),
    path("models/import/<str:org>/<str:name>/", views.import_status, name="import_status"),
]
