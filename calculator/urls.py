from django.urls import path

from calculator import views

app_name = "calculator"

urlpatterns = [
    path("models/<str:org>/<str:name>/", views.model_detail, name="model"),
]
