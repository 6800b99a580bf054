"""The one Jinja2 environment of the site's pages."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from django.core.signals import setting_changed
from django.dispatch import receiver
from django.templatetags.static import static
from django.urls import get_script_prefix, get_urlconf, reverse, translate_url
from django.utils import translation
from django_htmx.jinja import htmx_script
from jinja2 import Environment, pass_context, select_autoescape
from jinja2.runtime import Context
from markupsafe import Markup, escape

from calculator import labels
from calculator.estimation import ENGINES, KV_DTYPES
from calculator.estimation.engines.releases import ENGINE_RELEASE_LINES, release_label
from calculator.formatting import format_day, format_gb, format_money, format_number, format_share, format_tokens
from calculator.state import Choice, release_field, tokens_label
from calculator.term_text import term_formula, term_label
from models_catalog.reader_names import licence_name, recorded_text, task_name


def url(name: str, *args, **kwargs) -> str:
    if not args and not kwargs:
        return _path_of(name, translation.get_language(), get_script_prefix(), get_urlconf())
    return reverse(name, args=args or None, kwargs=kwargs or None)


@lru_cache(maxsize=1024)
def _path_of(name: str, language: str | None, prefix: str, urlconf: str | None) -> str:
    """The path of a URL name without arguments: the same for every request in one language (a page reverses
    a dozen, ~20 µs each)."""
    return reverse(name)


def language_url(path: str, language: str) -> str:
    """The same page in another language (falls back to that language's home); the query string is kept."""
    path, mark, query = path.partition("?")
    translated, same_page = _language_path(path, language, get_script_prefix(), get_urlconf())
    return translated + mark + query if same_page else translated


@lru_cache(maxsize=4096)
def _language_path(path: str, language: str, prefix: str, urlconf: str | None) -> tuple[str, bool]:
    """The path in ``language`` and True, or that language's home and False (one path of a page per language,
    the same for every request: resolving and reversing it costs ~40 µs)."""
    translated = translate_url(path, language)
    if translated == path and not path.startswith(f"/{language}/"):
        with translation.override(language):
            return reverse("home"), False
    return translated, True


@lru_cache(maxsize=256)
def static_url(path: str) -> str:
    """``static()``, once per path in each process: the storage's answer does not change while it runs (a page asks
    for five, ~15 µs each with a manifest). Forgotten when a test changes the static settings."""
    return static(path)


@lru_cache(maxsize=1)
def htmx_script_tag() -> str:
    """django-htmx's ``<script>`` tag for htmx, once per process (forgotten with ``static_url``)."""
    return htmx_script()


@receiver(setting_changed)
def _forget_static(*, setting: str, **kwargs: object) -> None:
    if setting in ("STORAGES", "STATIC_URL", "STATIC_ROOT", "DEBUG"):
        static_url.cache_clear()
        htmx_script_tag.cache_clear()


def select_options(choices: Iterable[Choice], selected: object) -> Markup:
    """The ``<option>`` elements of ``choices``, the one whose value is ``selected`` marked: one Python loop where a
    template loop spends ~4 µs an option (a model page's GPU selects list ~60 each)."""
    return Markup(
        "".join(
            f'<option value="{escape(c.value)}"{" selected" if c.value == selected else ""}>{escape(c.label)}</option>'
            for c in choices
        )
    )


@pass_context
def kept_part(context: Context, template: str) -> Markup:
    """A section or part of the model page: the HTML the view kept for it (``section_html``, per the inputs it
    reads: calculator/page/view.py), else the template rendered here in the page's context."""
    kept = context.get("section_html")
    if kept and template in kept:
        return Markup(kept[template])
    return Markup(context.environment.get_template(template).render(context.get_all()))


def faq_entities(items: list[tuple[str, str, str]]) -> list[dict[str, object]]:
    """schema.org Question entries (name and accepted answer as plain text) for FAQPage JSON-LD."""
    return [
        {
            "@type": "Question",
            "name": Markup(question).striptags(),
            "acceptedAnswer": {"@type": "Answer", "text": Markup(answer).striptags()},
        }
        for _key, question, answer in items
    ]


def _formatted(context: Context, text: str, variables: dict[str, object]) -> str:
    """What jinja2.ext.i18n's new-style gettext returns: escaped where the template autoescapes, and always read as
    a format string (``%%`` is a literal percent sign), formatting skipped only where it would change nothing."""
    if context.eval_ctx.autoescape:
        text = Markup(text)
    return text % variables if variables or "%" in text else text


# The context variable that holds the active language's message catalog for one rendering
# (config/context_processors.py): Django's gettext finds it anew for every string through two context-local
# lookups, ~3 µs of the ~5 µs a string costs; a page translates a hundred or more.
MESSAGE_CATALOG = "message_catalog_"


@pass_context
def gettext(context: Context, message: str, /, **variables: object) -> str:
    """``_()`` and ``{% trans %}``: the same result as the new-style callables ``install_gettext_callables``
    builds, called directly (without its alias, context call and ``Markup % {}`` on every string, ~5 µs each;
    a model page translates ~500 strings). Positional-only, so a template variable may be called ``context``."""
    return _formatted(context, _messages(context, message).gettext(message), variables)


@pass_context
def ngettext(context: Context, singular: str, plural: str, num: int, /, **variables: object) -> str:
    variables.setdefault("num", num)
    return _formatted(context, _messages(context, singular).ngettext(singular, plural, num), variables)


class Messages:
    """A language's message catalog whose translations are each looked up once: Django's catalog searches its
    chain of catalogs for every call (~2 µs), a page translates hundreds of the same few hundred messages."""

    __slots__ = ("catalog", "translated")
    MAX_MESSAGES = 8192  # messages come from templates and label tables; past this, looked up each time

    def __init__(self, catalog: Any) -> None:
        self.catalog = catalog
        self.translated: dict[str, str] = {}

    def gettext(self, message: str) -> str:
        found = self.translated.get(message)
        if found is None:
            found = self.catalog.gettext(message)
            if len(self.translated) < self.MAX_MESSAGES:
                self.translated[message] = found
        return found

    def ngettext(self, singular: str, plural: str, num: int) -> str:
        return self.catalog.ngettext(singular, plural, num)


_MESSAGES: dict[int, Messages] = {}


def messages_of(catalog: Any) -> Messages:
    """The ``Messages`` of Django's catalog object (one per language, made anew when Django reloads them)."""
    found = _MESSAGES.get(id(catalog))
    if found is None or found.catalog is not catalog:
        if len(_MESSAGES) >= 16:
            _MESSAGES.clear()
        found = _MESSAGES[id(catalog)] = Messages(catalog)
    return found


def _messages(context: Context, message: str) -> Any:
    """The rendering's message catalog, or Django's translation functions where there is none (a template rendered
    outside a request) or the message is empty (a catalog would answer its header)."""
    catalog = context.get(MESSAGE_CATALOG)
    return catalog if catalog is not None and message else translation


def _vocabulary() -> dict[str, Any]:
    """The calculator's vocabulary for templates (labels live in the message catalog, not in the estimation core)."""
    return {
        "term_label": term_label,
        "term_formula": term_formula,
        "field_label": labels.field_label,
        "mode_label": labels.mode_label,
        "accuracy_label": labels.accuracy_label,
        "plan_limit_label": labels.plan_limit_label,
        "plan_kind_label": labels.plan_kind_label,
        "plan_kind_legend": labels.plan_kind_legend,
        "requests_phrase": labels.requests_phrase,
        "source_detail": labels.source_detail,
        "data_text": labels.data_text,
        "spec_note": labels.spec_note,
        "limit_label": labels.limit_label,
        "pricing_kind_label": labels.pricing_kind_label,
        "refresh_outcome_label": labels.refresh_outcome_label,
        "faq_entities": faq_entities,
        "engine_name": labels.engine_name,
        "weights_source_text": labels.weights_source_text,
        "stale_text": labels.stale_text,
        "self_host_text": labels.self_host_text,
        "replica_text": labels.replica_text,
        "break_even_text": labels.break_even_text,
        "hosted_provider": labels.hosted_provider,
        "offer_text": labels.offer_text,
        "attention_name": labels.attention_name,
        "family_name": labels.family_name,
        "family_options": labels.family_options,
        "licence_name": licence_name,
        "task_name": task_name,
        "recorded_text": recorded_text,
        "precision_name": labels.precision_name,
        "precision_note": lambda key: str(labels.PRECISION_NOTES.get(key, "")),
        "mode_change": lambda key: str(labels.MODE_CHANGES.get(key, "")),
        "verdict_label": lambda key: labels.in_words(labels.VERDICTS, key),
        "mode_labels": labels.MODE_LABELS,
        "optimizer_labels": labels.OPTIMIZER_LABELS,
        "framework_labels": labels.FRAMEWORK_LABELS,
        "framework_select_labels": labels.FRAMEWORK_SELECT_LABELS,
        "macos_labels": labels.MACOS_LABELS,
        "engines": ENGINES,
        "kv_dtypes": KV_DTYPES,
        "engine_lines": ENGINE_RELEASE_LINES,
        "release_field": release_field,
        "release_label": lambda engine, key: labels.release_line_label(release_label(engine, key)),
        "line_label": labels.release_line_label,
        "tokens_label": format_tokens,  # a token count in the reader's words
        "tokens_value": tokens_label,  # as a form field holds it ("8K", "3000")
    }


def environment(**options) -> Environment:
    # Escape HTML everywhere but in the Markdown and plain-text twins of the pages (Django's backend passes
    # autoescape=True, so this replaces it rather than defaulting it)
    options["autoescape"] = select_autoescape(disabled_extensions=("md", "txt"), default=True, default_for_string=True)
    extensions = [*options.pop("extensions", []), "jinja2.ext.i18n", "config.compact_html.CompactHtml"]
    env = Environment(extensions=extensions, **options)
    # jinja2.ext.i18n adds this method at runtime (Environment.extend), so Jinja2's types do not know it
    env.install_gettext_callables(  # type: ignore[attr-defined]
        translation.gettext, translation.ngettext, newstyle=True
    )
    env.globals.update({"gettext": gettext, "ngettext": ngettext, "_": gettext})
    env.globals.update(
        {
            "static": static_url,
            "url": url,
            "select_options": select_options,
            "kept_part": kept_part,
            "language_url": language_url,
            "htmx_script": htmx_script_tag,
            "get_current_language": translation.get_language,
            **_vocabulary(),
        }
    )
    env.filters.update(
        {
            "number": format_number,
            "money": format_money,
            "gb": format_gb,
            "day": format_day,
            "share": format_share,
        }
    )
    return env
