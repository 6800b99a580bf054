from django.db import migrations

from models_catalog import naming


def fill_name_keys(apps, schema_editor):
    """The catalog's name order by the model's name, not its Hub id (which began with the organisation)."""
    Model = apps.get_model("models_catalog", "Model")
    rows = list(Model.objects.only("id", "hub_id", "display_name"))
    for row in rows:
        row.name_key = naming.name_key(row.hub_id, row.display_name)
    Model.objects.bulk_update(rows, ["name_key"], batch_size=500)


class Migration(migrations.Migration):

    dependencies = [
        ("models_catalog", "0009_build_format_nvfp4"),
    ]

    operations = [
        migrations.RunPython(fill_name_keys, migrations.RunPython.noop),
    ]
