"""Every value the pages keep is keyed by the language where its text or links depend on it: each page type is
rendered in both languages with every kept value not declared per language computed again in the other language
and compared (``web.kept.checking_language``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import call_command

from calculator import home
from models_catalog import services
from web.kept import LanguageDependentValue, checking_language

SHIPPED = Path(services.__file__).resolve().parent / "data" / "hub"
GLM = "models/zai-org/GLM-5.3-Flash"
PAGES = (
    "",
    f"{GLM}/",
    f"{GLM}/?precision=int4&context=32768",
    f"{GLM}.md",
    f"{GLM}/faq/",
    f"{GLM}/og.png",
    f"{GLM}/runs-on/rtx-4090/",
    "gpus/",
    "gpus/h100-sxm/",
    "providers/",
    "compare/?models=zai-org/GLM-5.3-Flash,meta-llama/Llama-3.1-8B-Instruct",
    "models/",
    "validation/",
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def seed_site(settings):
    settings.PAGE_CACHE_SECONDS = 0  # every request computes what it keeps, not a page stored before
    services.model_import_offline(SHIPPED, only=["zai-org/GLM-5.3-Flash", "meta-llama/Llama-3.1-8B-Instruct"])
    call_command("loaddata", "seed_offers_2026-11-13", verbosity=0)


@pytest.mark.parametrize("lang", ["en", "de"])
def test_no_kept_value_leaves_out_a_language_it_depends_on(client, seed_site, lang):
    with checking_language():
        for path in PAGES:
            response = client.get(f"/{lang}/{path}")
            assert response.status_code == 200, path
        assert client.get("/api/v1/estimate?model=zai-org/GLM-5.3-Flash").status_code == 200


def test_the_check_finds_the_home_answers_keyed_without_the_language(client, seed_site, monkeypatch):
    """The German home page once linked to English model pages: its answers were kept without the language."""
    monkeypatch.setattr(home.HOME_ANSWERS, "per_language", False)
    with checking_language(), pytest.raises(LanguageDependentValue, match="home-answers"):
        client.get("/de/")
