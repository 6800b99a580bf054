"""What readers see cites its sources as a reader would: no words about how the product was put together."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Words that describe our own build process, not a source a reader could look up.
BUILD_WORDS = re.compile(r"specified from|reference document|seed (0|1)0|code-index|product seed|seed document", re.I)
READER_FACING = [
    *sorted((ROOT / "models_catalog" / "data").rglob("*.json")),
    *sorted((ROOT / "models_catalog" / "data").rglob("*.md")),
    *sorted((ROOT / "pricing" / "data").rglob("*.json")),
    *sorted((ROOT / "pricing" / "data").rglob("*.md")),
    *sorted((ROOT / "pricing" / "fixtures").glob("*")),
    *sorted((ROOT / "templates").rglob("*.html")),
    *sorted((ROOT / "locale").rglob("*.po")),
]


@pytest.mark.parametrize("path", READER_FACING, ids=lambda p: str(p.relative_to(ROOT)))
def test_reader_facing_text_names_sources_not_how_we_built_the_product(path):
    found = [m.group(0) for m in BUILD_WORDS.finditer(path.read_text(encoding="utf-8"))]
    assert found == [], f"{path.relative_to(ROOT)}: {found}"


def test_reference_source_label_says_what_a_reader_can_look_up():
    from django.utils import translation

    from models_catalog.models import Source

    with translation.override("en"):
        assert str(Source.REFERENCE.label) == "Published model page or article"
    with translation.override("de"):
        assert str(Source.REFERENCE.label) == "Veröffentlichte Modellseite oder Artikel"
    assert Source.REFERENCE.value == "reference"


def test_article_citations_fit_the_build_source_columns():
    import json

    from models_catalog.models import QuantizedBuild

    documents = json.loads((ROOT / "models_catalog" / "data" / "reference_facts.json").read_text())["documents"]
    limit = min(QuantizedBuild._meta.get_field(f).max_length for f in ("size_source", "quality_source", "source"))
    assert all(len(citation) <= limit for citation in documents.values()), documents
