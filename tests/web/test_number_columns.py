"""Number columns read as one: a column of figures is right-aligned (class "num", static/css/site.css) from its header
down, so the header stands over the figures, not over empty space at the column's left edge."""

from __future__ import annotations

import re

import pytest

from tests.calculator.model_page_site import get_page, write_seed_site
from tests.models_catalog.html import Element
from tests.support import module_rows

pytestmark = [pytest.mark.django_db, pytest.mark.xdist_group("number-columns")]

_site_rows = module_rows(write_seed_site)

PAGES = [
    "/en/",
    "/en/models/",
    "/en/models/zai-org/GLM-5.3-Flash/",
    "/en/models/meta-llama/Llama-3.1-8B-Instruct/",
    "/en/compare/?models=zai-org/GLM-5.3-Flash,meta-llama/Llama-3.1-8B-Instruct",
    "/en/gpus/",
    "/en/gpus/h200-sxm/",
    "/en/providers/",
]
# a figure alone, with its unit at most: "30.5 B", "131,072", "$0.70", "104 GB"
FIGURE = re.compile(r"^[$€]?[\d.,]+(?:\s?(?:B|GB|K|M|GB/s|TFLOPS))?$")


@pytest.fixture
def seed_site(_site_rows, db):
    """The shipped catalog, the seed offers and the API prices, written once for the module."""


def _is_num(cell: Element) -> bool:
    return "num" in cell.attrs.get("class", "").split()


def _cells(row: Element) -> list[Element]:
    """The row's cells by column, a cell spanning columns once per column."""
    cells = [c for c in row.children if c.tag in ("th", "td")]
    return [c for c in cells for _ in range(int(c.attrs.get("colspan") or 1))]


def _columns(table: Element) -> list[tuple[Element, list[Element]]]:
    """Each column's header (the last header row) and its data cells (row headers left out)."""
    heads = table.select("thead")
    if not heads:
        return []
    header = _cells(heads[0].select("tr")[-1])
    rows = [_cells(tr) for body in table.select("tbody") for tr in body.select("tr")]
    return [(head, [r[i] for r in rows if i < len(r) and r[i].tag == "td"]) for i, head in enumerate(header)]


def _misaligned(page: Element) -> list[str]:
    wrong = []
    for table in page.select("table"):
        for head, cells in _columns(table):
            figures = [c for c in cells if c.text not in ("", "–")]
            all_figures = bool(figures) and all(FIGURE.match(c.text) for c in figures)
            if any(_is_num(c) for c in cells) and not _is_num(head):
                wrong.append(f"header {head.text!r} over right-aligned figures")
            elif any(_is_num(c) for c in cells) and not all(_is_num(c) for c in cells):
                wrong.append(f"column {head.text!r} aligned two ways")
            elif all_figures and not _is_num(head):
                wrong.append(f"column {head.text!r} of figures, left-aligned ({figures[0].text!r})")
    return wrong


@pytest.mark.parametrize("path", PAGES)
def test_headers_of_number_columns_are_right_aligned_with_their_figures(client, seed_site, path):
    _, page = get_page(client, path)
    assert _misaligned(page) == []
