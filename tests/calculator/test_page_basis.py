"""What a model page reads about the model and the market is kept per process under the catalog and price
generations and the day: reused while they hold, read afresh when an import, a price store or an admin edit bumps
them, never kept while the cache cannot name them, and bounded."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.forms.models import model_to_dict

from calculator.page import basis as basis_module
from calculator.page.basis import page_basis
from models_catalog import services
from models_catalog.models import Model, QuantizedBuild
from tests.models_catalog.html import parse
from tests.support import module_rows
from web.generations import CATALOG_GENERATION, PRICES_GENERATION

SHIPPED = Path(services.__file__).resolve().parent / "data" / "hub"
DAY = date(2026, 11, 30)

pytestmark = [pytest.mark.django_db, pytest.mark.xdist_group("page-basis")]


def _write_catalog() -> None:
    services.model_import_offline(SHIPPED)
    call_command("loaddata", "seed_offers_2026-11-13", verbosity=0)


_catalog_rows = module_rows(_write_catalog)


@pytest.fixture
def catalog(_catalog_rows, db):
    """The shipped catalog and the seed offers (written once for the module), nothing of the basis kept."""
    basis_module.forget()
    yield
    basis_module.forget()


def _glm() -> Model:
    return Model.objects.get(hub_id="zai-org/GLM-5.3-Flash")


def test_kept_while_the_generations_and_the_day_hold(catalog, django_assert_num_queries):
    model = _glm()
    first = page_basis(model, DAY)
    with django_assert_num_queries(0):
        assert page_basis(model, DAY) is first
    assert first.sources is not None and first.facts.model.hub_id == model.hub_id
    assert first.similar and all(s.hub_id != model.hub_id for s in first.similar)


@pytest.mark.parametrize("bump", [CATALOG_GENERATION.bump, PRICES_GENERATION.bump])
def test_read_afresh_after_an_import_or_a_price_store(catalog, bump):
    model = _glm()
    before = page_basis(model, DAY)
    bump()
    after = page_basis(model, DAY)
    assert after is not before and after == before  # the same data, read again
    assert page_basis(model, DAY) is after


def test_read_afresh_on_a_new_day(catalog):
    model = _glm()
    assert page_basis(model, DAY) is not page_basis(model, date(2026, 12, 1))
    assert page_basis(model, DAY).sources.today == DAY


def test_nothing_kept_while_the_cache_cannot_name_the_generations(catalog, monkeypatch):
    from django.core.cache import cache

    monkeypatch.setattr(cache, "get_many", lambda keys: {})  # a cache that is down answers nothing
    model = _glm()
    assert page_basis(model, DAY) is not page_basis(model, DAY)
    assert len(basis_module.BASES._entries) == 0


def test_bounded_least_recently_used_out_first(catalog, monkeypatch):
    monkeypatch.setattr(basis_module.BASES, "max_entries", 2)
    glm, llama, qwen = (
        Model.objects.get(hub_id=h)
        for h in ("zai-org/GLM-5.3-Flash", "meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3-30B-A3B")
    )
    page_basis(glm, DAY)
    kept_glm = page_basis(glm, DAY)
    page_basis(llama, DAY)
    assert page_basis(glm, DAY) is kept_glm  # used last: Llama is now the oldest
    page_basis(qwen, DAY)
    assert len(basis_module.BASES._entries) == 2
    assert page_basis(glm, DAY) is kept_glm
    assert {_inputs(key)[0] for key in basis_module.BASES._entries} == {"zai-org/GLM-5.3-Flash", "Qwen/Qwen3-30B-A3B"}


def _inputs(key: tuple) -> tuple:
    """The inputs part of a kept value's key: (name, tokens, language, inputs)."""
    return key[3]


def test_an_admin_edit_shows_on_the_next_page_view(catalog, client, settings, django_capture_on_commit_callbacks):
    """An edited build note reaches the page at once: the admin bumps the catalog generation, so neither the page
    cache nor the kept basis serves the old note."""
    page = "/en/models/zai-org/GLM-5.3-Flash/?show=builds"
    assert "near-lossless" in parse(client.get(page).content).one(id="builds").text
    build = QuantizedBuild.objects.get(model__hub_id="zai-org/GLM-5.3-Flash", label="6-bit")

    User.objects.create_superuser("editor", "editor@example.org", "a long test password")
    admin = client.__class__()
    admin.force_login(User.objects.get(username="editor"))
    url = f"/{settings.ADMIN_PATH}models_catalog/quantizedbuild/{build.pk}/change/"
    data = {name: "" if value is None else value for name, value in model_to_dict(build).items()}
    data["quality_note"] = "perplexity +0.24 % vs FP8; checked again"
    with django_capture_on_commit_callbacks(execute=True):
        response = admin.post(url, data)
    assert response.status_code == 302, response.content[:2000]

    builds = parse(client.get(page).content).one(id="builds").text
    assert "checked again" in builds and "near-lossless" not in builds


def test_one_basis_per_language_so_labels_are_said_in_the_readers(catalog, client):
    """The facts' labels are read in the active language: an English basis is never served to a German reader."""
    english = parse(client.get("/en/models/zai-org/GLM-5.3-Flash/?show=param-table").content).one(id="model-facts").text
    german = parse(client.get("/de/models/zai-org/GLM-5.3-Flash/?show=param-table").content).one(id="model-facts").text
    assert "Total parameters" in english and "Published model page or article" in english
    assert "Total parameters" not in german and "Published model page or article" not in german
    assert "Gesamtparameter" in german or "Parameter insgesamt" in german
    assert {key[2] for key in basis_module.BASES._entries} == {"en", "de"}


@pytest.mark.parametrize("path", ["/en/models/zai-org/GLM-5.3-Flash/", "/de/models/meta-llama/Llama-3.1-8B-Instruct/"])
def test_kept_sections_are_the_html_the_page_renders_itself(catalog, client, monkeypatch, path):
    """The facts and similar-models sections rendered once per basis are byte for byte what the page's own
    includes give."""
    from calculator.page import view

    def article(response) -> str:
        text = response.content.decode()
        text = re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", text)  # each response its own token
        return text[text.index("<article") : text.index("</article>")]

    kept_first, kept_again = article(client.get(path + "?context=9000")), article(client.get(path + "?context=9001"))
    assert 'id="similar"' in kept_first and "data-fact=" in kept_first
    monkeypatch.setattr(view, "kept_section", lambda model, today, name, render: render())
    basis_module.forget()
    own = article(client.get(path + "?context=9000"))
    assert own == kept_first
    assert kept_again.count('id="similar"') == 1
