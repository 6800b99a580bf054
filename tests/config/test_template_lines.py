"""Every template line is at most 200 characters (CONTRIBUTING.md "Templates"): a long line is where markup and
logic pile up unread. Long prose is a translatable string split into adjacent literals, which Jinja joins, so the
msgid stays whole; a line break that would change the output is taken back with whitespace control."""

from __future__ import annotations

from pathlib import Path

import pytest
from jinja2 import nodes

from config.jinja2 import environment
from tests.support import ROOT

LIMIT = 200
TEMPLATES = ROOT / "templates"
SUFFIXES = (".html", ".md", ".txt", ".xml")


def template_files() -> list[Path]:
    return sorted(p for p in TEMPLATES.rglob("*") if p.suffix in SUFFIXES)


def long_lines(path: Path) -> list[tuple[int, int]]:
    """(line number, length) of each line of ``path`` over the limit."""
    return [
        (number, len(line)) for number, line in enumerate(path.read_text().splitlines(), start=1) if len(line) > LIMIT
    ]


def test_no_template_line_is_over_the_limit():
    assert template_files(), "no templates found"
    offenders = [
        f"{path.relative_to(ROOT)}:{number} ({length} characters)"
        for path in template_files()
        for number, length in long_lines(path)
    ]
    assert offenders == []


def test_the_check_sees_a_long_line(tmp_path):
    path = tmp_path / "long.html"
    path.write_text("<p>short</p>\n<p>" + "x" * LIMIT + "</p>\n" + "y" * LIMIT + "\n")
    assert long_lines(path) == [(2, LIMIT + 7)]


@pytest.mark.parametrize(
    "source",
    [
        "{{ _('Every figure on a model page is computed, '\n  'with the formula printed next to it.') }}",
        "{{ _('Every figure on a model page is computed, with the formula printed next to it.') }}",
    ],
)
def test_a_message_split_into_adjacent_literals_keeps_its_msgid(source):
    env = environment(extensions=[])
    calls = list(env.parse(source).find_all(nodes.Call))
    assert [call.args[0].value for call in calls] == [
        "Every figure on a model page is computed, with the formula printed next to it."
    ]
