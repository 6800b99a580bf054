"""The one Jinja2 environment of the site's pages."""

from __future__ import annotations

from django.templatetags.static import static
from django.urls import reverse, translate_url
from django.utils import translation
from django_htmx.jinja import htmx_script
from jinja2 import Environment, select_autoescape

from config.formatting import format_day, format_gb, format_money, format_number


def url(name: str, *args, **kwargs) -> str:
    return reverse(name, args=args or None, kwargs=kwargs or None)


def language_url(path: str, language: str) -> str:
    """The same page in another language (falls back to that language's home)."""
    translated = translate_url(path, language)
    if translated == path and not path.startswith(f"/{language}/"):
        with translation.override(language):
            return reverse("home")
    return translated


def environment(**options) -> Environment:
    options.setdefault("autoescape", select_autoescape(default=True, default_for_string=True))
    extensions = [*options.pop("extensions", []), "jinja2.ext.i18n"]
    env = Environment(extensions=extensions, **options)
    # jinja2.ext.i18n adds this method at runtime (Environment.extend), so Jinja2's types do not know it
    env.install_gettext_callables(  # type: ignore[attr-defined]
        translation.gettext, translation.ngettext, newstyle=True
    )
    env.globals.update(
        {
            "static": static,
            "url": url,
            "language_url": language_url,
            "htmx_script": htmx_script,
            "get_current_language": translation.get_language,
        }
    )
    env.filters.update(
        {
            "number": format_number,
            "money": format_money,
            "gb": format_gb,
            "day": format_day,
        }
    )
    return env
