from django.apps import AppConfig


class CalculatorConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "calculator"
    verbose_name = "Calculator"

    def ready(self) -> None:
        # the catalog list shows each model's headline, which the calculator computes (models_catalog.list_figures)
        from calculator.headline import catalog_list_figures
        from models_catalog.list_figures import provide

        provide(catalog_list_figures)
