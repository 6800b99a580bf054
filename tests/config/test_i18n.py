from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_file
from babel.messages.pofile import read_po
from django.utils import translation

from calculator.formatting import format_day, format_gb, format_money, format_number, format_share, format_tokens

ROOT = Path(__file__).resolve().parents[2]
JINJA = {"extensions": "jinja2.ext.i18n"}  # babel.cfg's options for templates
pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("accept", "expected"), [("de-DE,de;q=0.9,en;q=0.5", "/de/"), ("en-US,en;q=0.9", "/en/"), ("fr-FR", "/en/")]
)
def test_root_negotiates_language_from_accept_language(client, accept, expected):
    response = client.get("/", HTTP_ACCEPT_LANGUAGE=accept)
    assert response.status_code == 302
    assert response["Location"] == expected


@pytest.mark.parametrize(
    ("lang", "heading"),
    [
        ("en", "How much memory does an open-weight model need"),
        ("de", "Wie viel Speicher braucht ein offenes Modell"),
    ],
)
def test_home_renders_in_each_language(client, lang, heading):
    response = client.get(f"/{lang}/")
    assert response.status_code == 200
    html = response.content.decode()
    assert f'<html lang="{lang}">' in html
    assert heading in html
    other = "de" if lang == "en" else "en"
    assert f'href="/{other}/" hreflang="{other}"' in html
    assert 'hreflang="en" href="http://testserver/en/"' in html
    assert 'hreflang="de" href="http://testserver/de/"' in html


def test_methodology_page_in_both_languages(client):
    english = client.get("/en/methodology/").content.decode()
    german = client.get("/de/methodology/").content.decode()
    assert "How we calculate" in english
    assert "So rechnen wir" in german
    assert "90 %" in german


def test_every_german_message_is_compiled_and_translated():
    """The committed .mo matches the .po: each translated entry comes back translated at run time."""
    with open(ROOT / "locale/de/LC_MESSAGES/django.po", "rb") as handle:
        catalog = read_po(handle)
    entries = [m for m in catalog if m.id and not m.pluralizable]
    assert len(entries) > 20
    untranslated = [m.id for m in entries if not m.string]
    assert untranslated == []
    fuzzy = [m.id for m in entries if m.fuzzy]
    assert fuzzy == []
    with translation.override("de"):
        stale = [m.id for m in entries if translation.gettext(m.id) != m.string]
    assert stale == [], "run `make messages`: the compiled catalog is older than the .po file"


def test_numbers_and_money_follow_the_locale():
    assert format_number(13958.4, locale="en") == "13,958"
    assert format_number(13958.4, locale="de") == "13.958"
    # token counts: the short form where it is exact, else grouped as the reader writes numbers
    assert format_tokens(131072, locale="de") == "128K" and format_tokens(1048576, locale="en") == "1M"
    assert format_tokens(2031056, locale="de") == "2.031.056" and format_tokens(2031056, locale="en") == "2,031,056"
    assert format_money(19.12, locale="en") == "$19.12"
    assert format_money(19.12, locale="de") == "19,12\xa0$"
    assert format_money(13958.4, digits=0, locale="en") == "$13,958"
    assert format_money(13958.4, digits=0, locale="de") == "13.958\xa0$"
    assert format_gb(377_487_360, locale="de") == "0,38\xa0GB"
    assert format_gb(708_280_000_000, locale="en") == "708\xa0GB"
    assert format_gb(5_661_000_000_000, locale="en") == "5,661\xa0GB"
    # a part's share of the GPU total: whole percent from 10 %, one decimal below, never a bare "0"
    assert (format_share(0.97, "en"), format_share(0.03, "de")) == ("97\xa0%", "3,0\xa0%")
    assert format_share(0.0004, "de") == "< 0,1\xa0%"


def test_dates_follow_the_locale():
    from datetime import date

    assert format_day(date(2026, 11, 13), locale="en") == "Nov 13, 2026"
    assert format_day(date(2026, 11, 13), locale="de") == "13. Nov. 2026"


def test_home_lists_the_largest_models_with_sizes_in_the_reader_locale(client):
    from io import StringIO

    from django.core.management import call_command

    call_command("import_models", offline=str(ROOT / "models_catalog/data/hub"), stdout=StringIO())
    english = client.get("/en/").content.decode()
    german = client.get("/de/").content.decode()
    assert 'Kimi-K2-Instruct</a> <span class="muted">1,026.5B MoE</span>' in english
    assert 'Kimi-K2-Instruct</a> <span class="muted">1.026,5 Mrd. MoE</span>' in german
    assert english.count('class="muted">') >= 12


def test_every_text_we_wrote_in_the_reference_facts_has_a_german_translation():
    """A new quality note or document citation in reference_facts.json fails here until `make messages` has
    extracted it and it is translated."""
    import json

    from django.utils import translation

    from models_catalog.babel_extract import extract_reference_facts
    from models_catalog.records import REFERENCE_FACTS, reference_texts

    texts = reference_texts(json.loads(REFERENCE_FACTS.read_text(encoding="utf-8")))
    assert len(texts) >= 8
    with REFERENCE_FACTS.open("rb") as fileobj:
        assert [message for _, _, message, _ in extract_reference_facts(fileobj, None, None, None)] == texts
    with translation.override("de"):
        untranslated = [text for text in texts if translation.gettext(text) == text]
    assert untranslated == []


HUB_ID_PLACEHOLDERS = {
    "templates/models_catalog/list.html": "/de/models/",
    "templates/models_catalog/_search_form.html": "/de/",
    "templates/calculator/compare.html": "/de/compare/",
}


def test_hub_id_placeholders_are_in_the_message_catalog(client):
    """The search and compare fields' example ("org/model") reads as an example in the reader's language."""
    for template, path in HUB_ID_PLACEHOLDERS.items():
        messages = {m[1] for m in extract_from_file("jinja2.ext:babel_extract", ROOT / template, options=JINJA)}
        assert "org/model" in messages, template
        with translation.override("de"):
            example = translation.gettext("org/model")
        html = client.get(path).content.decode()
        placeholders = re.findall(r'<input id="(?:catalog-q|c-models)"[^>]*placeholder="([^"]*)"', html)
        assert placeholders and all(p.split(", ")[0] == example for p in placeholders), (path, placeholders)
