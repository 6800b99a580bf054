"""The API reference at /api/v1/docs as a page of the site: the site's header, language switch and footer in the
reader's language, the reference itself in English, the schema's Markdown rendered with raw HTML off, and an example
request for every operation."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.utils import translation

from calculator.api.docs import EXAMPLES, markdown_block, markdown_inline

pytestmark = pytest.mark.django_db

DOCS = "/api/v1/docs"


def _page(client, language: str = "en") -> str:
    response = client.get(DOCS, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return response.content.decode()


def _operations(html: str) -> list[tuple[str, str]]:
    """Each operation section's data-operation and its HTML."""
    return re.findall(r'<section class="api-operation" id="[^"]*" data-operation="([^"]+)">(.*?)</section>', html, re.S)


def test_the_docs_page_has_the_site_header_nav_language_switch_and_footer(client):
    html = _page(client)

    header = re.search(r'<header class="site-header">(.*?)</header>', html, re.S)
    assert header is not None
    assert '<nav class="site-nav"' in header.group(1) and 'href="/en/models/"' in header.group(1)
    assert '<nav class="language-switch"' in header.group(1) and 'hreflang="de"' in header.group(1)
    assert '<footer class="site-footer">' in html
    assert html.count("<html") == 1 and html.count("<body") == 1  # one document: base.html's
    assert 'href="/static/css/api-docs.css"' in html.split("</head>")[0]
    assert '<html lang="en">' in html and 'id="api-docs">' in html  # English page: no lang of its own needed


@pytest.mark.parametrize("language", ["en", "de"])
def test_every_language_link_of_the_docs_page_leads_to_the_docs_in_that_language(client, language):
    """The docs URL has no language prefix; the switch keeps the reader on the docs (?lang=) with the chrome in the
    language picked, whatever the browser asks for, and the alternates name both."""
    html = _page(client, language)
    links = re.findall(r'<a class="language" href="([^"]+)" hreflang="([a-z]+)"', html)
    assert links and {code for _, code in links} == {"en", "de"} - {language}
    for href, code in links:
        assert unescape(href) == f"{DOCS}?lang={code}"
        response = client.get(unescape(href), HTTP_ACCEPT_LANGUAGE=f"{language};q=1.0")
        assert response.status_code == 200, href
        assert f'<html lang="{code}">' in response.content.decode() and response["Content-Language"] == code
        assert 'id="api-docs"' in response.content.decode()
    alternates = re.findall(r'<link rel="alternate" hreflang="([a-z]+)" href="([^"]+)"', html)
    assert {(code, unescape(href).split("testserver")[-1]) for code, href in alternates} == {
        ("en", f"{DOCS}?lang=en"),
        ("de", f"{DOCS}?lang=de"),
    }


def test_a_german_reader_gets_german_chrome_around_the_english_reference(client):
    """Accept-Language picks the language of an unprefixed URL (Django's LocaleMiddleware); the API itself answers in
    English, the page's chrome follows the reader."""
    response = client.get(DOCS, HTTP_ACCEPT_LANGUAGE="de-DE,de;q=0.9,en;q=0.5")
    html = response.content.decode()

    with translation.override("de"):
        main, models, footer = (
            translation.gettext("Main"),
            translation.gettext("Models"),
            translation.gettext("How we calculate"),
        )
    assert (main, models, footer) != ("Main", "Models", "How we calculate")  # the catalog translates them
    assert '<html lang="de">' in html and response["Content-Language"] == "de"
    assert f'<nav class="site-nav" aria-label="{main}">' in html
    assert f'<a href="/de/models/">{models}</a>' in html and footer in html
    assert '<div class="api-docs" id="api-docs" lang="en">' in html
    assert "Example request" in html and "Parameters of GET /api/v1/estimate" in html  # the reference: English
    assert "Accept-Language" in response["Vary"]  # a shared cache keeps one page per language


def test_descriptions_render_backticks_as_code_and_no_markup_of_their_own(client):
    html = _page(client)

    # queries.py: the `gpu` parameter's description
    assert "a GPU slug (<code>GET /gpus</code>) or <code>mac-&lt;GB&gt;</code> (default <code>h200-sxm</code>)" in html
    # routes.py: the operation's description, a paragraph
    assert "<p>Everything the model page shows" in html and "(<code>commands</code>:" in html
    assert "`" not in re.sub(r"<pre.*?</pre>", "", html, flags=re.S)  # no backtick left as text

    assert markdown_inline("a `h100-sxm` or <b>bold</b>") == "a <code>h100-sxm</code> or &lt;b&gt;bold&lt;/b&gt;"
    assert markdown_block("<script>alert(1)</script>") == "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>"
    assert markdown_inline("[x](javascript:alert(1))") == "[x](javascript:alert(1))"


def test_every_operation_shows_a_curl_example_on_this_origin(client):
    html = _page(client)
    operations = _operations(html)

    assert {tuple(op.split(" ", 1)) for op, _ in operations} == set(EXAMPLES)
    for operation, section in operations:
        example = re.search(r'<pre class="api-example"><code>(.*?)</code></pre>', section, re.S)
        assert example is not None, operation
        command = unescape(example.group(1))
        method, path = operation.split(" ", 1)
        assert command.count("curl ") == 1 and command.endswith(f"'http://testserver{EXAMPLES[method, path]}'")
        assert ("--data-binary @-" in command) == (method == "POST")
    assert "meta-llama/Llama-3.1-8B-Instruct" in html
    # the answers' shapes are in the OpenAPI document, linked from the page
    assert '<a href="/api/v1/openapi.json">OpenAPI 3.1 document</a>' in html


def test_parameter_tables_scroll_in_a_labelled_region(client):
    html = _page(client)

    tables = re.findall(r'<table class="api-parameters">', html)
    region = r'<div class="table-scroll" role="region" tabindex="0" aria-label="Parameters of [^"]+">'
    regions = re.findall(region, html)
    assert tables and len(regions) == len(tables)
