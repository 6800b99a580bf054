"""The planner page's figures are computed in calculator/plan_view.py; plan.html only prints them."""

from __future__ import annotations

import re

from django.utils import translation

from calculator.plan_view import close_matches, provider_options, usd
from tests.support import ROOT


def test_plan_html_prints_fields_without_filters_arithmetic_or_comparisons():
    source = (ROOT / "templates" / "plan.html").read_text()
    tags = re.findall(r"\{[{%](.*?)[%}]\}", source, re.S)
    strings = re.compile(r"'(?:[^'\\]|\\.)*'")
    code = [strings.sub("''", tag) for tag in tags]
    assert not [tag for tag in code if "|" in tag], "a filter in plan.html: format in calculator/plan_view.py"
    assert not [tag for tag in code if re.search(r"==|!=|>=|<=| [<>*/+] | - |\[", tag)]


def test_monthly_amounts_drop_the_cents_from_a_hundred_dollars():
    with translation.override("en"):
        assert (usd(99.5), usd(100.4), usd(12345.6)) == ("$99.50", "$100", "$12,346")
    with translation.override("de"):
        assert usd(12345.6) == "12.346\u00a0$"


def test_close_matches_read_as_a_list_and_providers_sort_by_name():
    matches = close_matches(["meta-llama/Llama-3.1-8B-Instruct", "a b/c"])
    assert [(m.before, m.href) for m in matches] == [
        (" ", "?model=meta-llama/Llama-3.1-8B-Instruct"),
        (", ", "?model=a%20b/c"),
    ]
    options = provider_options({"aws": "AWS", "lambda": "Lambda", "azure": "azure"}, ("lambda",))
    assert [(o.slug, o.left_out) for o in options] == [("aws", False), ("azure", False), ("lambda", True)]
