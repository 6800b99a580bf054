"""The form factors of one chip and memory become GPU types of their own (pricing/gpus.py SHORT_NAMES): the stored
rows take their new short names and families at once rather than at the next ``gpus_sync``."""

from django.db import migrations

# slug: (short name before, short name now); the family is the short name as a slug
RENAMED = {
    "h100-sxm": ("H100 80GB", "H100 SXM 80GB"),
    "h100-pcie": ("H100 80GB", "H100 PCIe 80GB"),
    "h200-sxm": ("H200 141GB", "H200 SXM 141GB"),
    "h200-nvl": ("H200 141GB", "H200 NVL 141GB"),
    "a100-40gb-sxm": ("A100 40GB", "A100 SXM 40GB"),
    "a100-40gb-pcie": ("A100 40GB", "A100 PCIe 40GB"),
    "a100-80gb-sxm": ("A100 80GB", "A100 SXM 80GB"),
    "a100-80gb-pcie": ("A100 80GB", "A100 PCIe 80GB"),
    "v100-sxm2-16gb": ("V100 16GB", "V100 SXM2 16GB"),
    "v100-pcie-16gb": ("V100 16GB", "V100 PCIe 16GB"),
    "v100-sxm2-32gb": ("V100 32GB", "V100 SXM2 32GB"),
}


def _family(short_name: str) -> str:
    return "-".join(short_name.lower().split())


def _rename(apps, schema_editor, index: int) -> None:
    gpu = apps.get_model("pricing", "Gpu")
    for slug, names in RENAMED.items():
        gpu.objects.filter(slug=slug).update(short_name=names[index], family=_family(names[index]))


def forwards(apps, schema_editor):
    _rename(apps, schema_editor, 1)


def backwards(apps, schema_editor):
    _rename(apps, schema_editor, 0)


class Migration(migrations.Migration):
    dependencies = [
        ("pricing", "0004_price_history_retention_indexes"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
