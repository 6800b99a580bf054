"""HTML templates load without their indentation (config/compact_html.py); pages read the same."""

from __future__ import annotations

from config.compact_html import CompactHtml, compact


def test_html_templates_load_without_indentation_but_keep_pre_blocks_and_markdown():
    source = "<ul>\n    <li>one\n        two</li>\n\n\n</ul>\n<pre>\n    kept\n</pre>\n  <p>x</p>"
    assert compact(source) == "<ul>\n<li>one\ntwo</li>\n</ul>\n<pre>\n    kept\n</pre>\n<p>x</p>"
    extension = CompactHtml.__new__(CompactHtml)
    assert extension.preprocess("  - item\n    - nested", "calculator/md/_breakdown.md") == "  - item\n    - nested"
