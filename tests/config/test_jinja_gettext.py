"""The site's Jinja2 gettext callables give exactly what jinja2.ext.i18n's new-style callables give (they only skip
its per-call indirection), in both languages, for every form the templates use."""

from __future__ import annotations

import pytest
from django.test import override_settings
from django.utils import translation
from django.utils.translation import trans_real
from jinja2 import ext

from config.jinja2 import MESSAGE_CATALOG, environment, messages_of

CASES = [
    "{{ _('Memory') }}",
    "{{ gettext('Memory') }}",
    "{{ _('50%% off <b>') }}",
    "{{ _('%(n)s x', n='<i>') }}",
    "{{ _('At %(context)s and %(message)s', context='4K', message='m') }}",
    "{{ ngettext('%(singular)s %(num)s in %(context)s', '%(plural)s', 1, singular='s', plural='p', context='c') }}",
    "{% trans n=3 %}{{ n }} models %%{% endtrans %}",
    "{% trans %}100% sure{% endtrans %}",
    "{{ ngettext('%(num)s model', '%(num)s models', 1) }}",
    "{{ ngettext('%(num)s model', '%(num)s models', 2) }}",
    "{{ ngettext('%(tokens)s token of context', '%(tokens)s tokens of context', 2, tokens='<2K>') }}",
    "{% trans count=1 %}{{ count }} model{% pluralize %}{{ count }} models{% endtrans %}",
    "{% trans count=5 %}{{ count }} model{% pluralize %}{{ count }} models{% endtrans %}",
]


def _jinja_own():
    env = environment()
    env.install_gettext_callables(translation.gettext, translation.ngettext, newstyle=True)
    env.globals["_"] = ext._gettext_alias
    return env


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("source", CASES)
def test_same_text_as_jinjas_new_style_gettext(language, source):
    ours, theirs = environment(), _jinja_own()
    with translation.override(language):
        assert ours.from_string(source).render() == theirs.from_string(source).render()
    with translation.override(language):  # and in a template that does not escape (the Markdown twins)
        ours.autoescape = theirs.autoescape = False
        assert ours.from_string(source).render() == theirs.from_string(source).render()


def test_german_is_translated():
    with translation.override("de"):
        assert environment().from_string("{{ _('Memory') }}").render() == "Speicher"


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("source", CASES)
def test_same_text_through_the_renderings_remembered_catalog(language, source):
    """Pages render with the language's catalog in their context (config/context_processors.py), whose
    translations are remembered: the first and the remembered rendering say what Jinja's own callables say."""
    ours, theirs = environment(), _jinja_own()
    with translation.override(language):
        context = {MESSAGE_CATALOG: messages_of(trans_real.catalog())}
        expected = theirs.from_string(source).render()
        assert ours.from_string(source).render(context) == expected
        assert ours.from_string(source).render(context) == expected
        assert messages_of(trans_real.catalog()) is context[MESSAGE_CATALOG]


def test_static_urls_are_remembered_until_the_static_settings_change():
    env = environment()
    before = env.from_string("{{ static('css/site.css') }}").render()
    with override_settings(STATIC_URL="/elsewhere/"):
        assert env.from_string("{{ static('css/site.css') }}").render().startswith("/elsewhere/")
        assert "/elsewhere/" in env.from_string("{{ htmx_script() }}").render()
    assert env.from_string("{{ static('css/site.css') }}").render() == before
