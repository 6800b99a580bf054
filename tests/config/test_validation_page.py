from __future__ import annotations

import pytest
from django.core.cache import cache

from calculator import validation
from calculator.validation import PREDICTORS, Case, computed
from tests.models_catalog.html import parse

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_cache():
    cache.clear()
    yield
    cache.clear()


def _case_rows(client, lang="en"):
    """Every case row over the kind pages the overview links to, by case id."""
    overview = parse(client.get(f"/{lang}/validation/").content.decode())
    rows = {}
    for link in overview.select("a", data_kind=True):
        page = parse(client.get(link.attrs["href"]).content.decode())
        rows |= {row.attrs["data-case"]: row for row in page.select("tr", data_case=True)}
    return rows


def _kind_page(client, case, lang="en"):
    return parse(client.get(f"/{lang}/validation/{case.kind}/").content.decode())


@pytest.mark.parametrize(("lang", "heading"), [("en", "Validation"), ("de", "Validierung")])
def test_validation_pages_list_every_case_in_each_language(client, lang, heading):
    response = client.get(f"/{lang}/validation/")
    assert response.status_code == 200
    assert response["Cache-Control"] == "public, max-age=3600"
    assert len(response.content) < 120_000  # the rows live on a page per kind
    page = parse(response.content.decode())
    assert page.one("h1").text.startswith(heading)
    assert page.one("article").select("a", href=f"/{lang}/methodology/")
    cases = validation.load_cases()
    assert len(cases) > 50
    assert sorted(_case_rows(client, lang)) == sorted(case.id for case in cases)


def test_an_unknown_kind_is_a_404_that_lists_the_kinds(client):
    response = client.get("/en/validation/no_such_kind/")
    assert response.status_code == 404
    page = parse(response.content.decode())
    assert page.one("p", id="validation-unknown-kind") is not None
    assert page.select("a", href="/en/validation/gguf_size/")


def test_validation_page_numbers_are_those_of_run(client):
    shown = _case_rows(client)
    results = validation.run()
    assert results
    for result in results:
        row = shown[result.case.id]
        assert float(row.attrs["data-measured"]) == result.case.measured
        if result.predicted is None:
            assert row.attrs["data-predicted"] == ""
        else:
            # the kept predictions (calculator/validation/computed.json) hold six significant digits
            assert float(row.attrs["data-predicted"]) == pytest.approx(result.predicted, rel=1e-5)
        assert row.attrs["data-within"] == ("yes" if result.within else "no")
    totals = parse(client.get("/en/validation/").content.decode()).one("p", id="validation-totals").text
    within = sum(r.within for r in results)
    assert f"{within:,} of {len(results):,} published measurements" in totals


def test_validation_page_summarises_by_family_and_engine(client):
    page = parse(client.get("/de/validation/").content.decode())
    family = page.one("caption", id="summary-family-caption")
    engine = page.one("caption", id="summary-engine-caption")
    assert family.text == "Nach Architekturfamilie"
    assert engine.text == "Nach Engine oder Framework"
    groups = validation.summary(validation.run(), by="family")
    tables = page.select("table", **{"class": "validation-summary"})
    assert len(tables[0].select("tr")) == len(groups) + 1


def test_a_failing_predictor_shows_its_reason_and_the_page_still_answers(client, monkeypatch):
    case = validation.load_cases()[0]

    def broken(case: Case) -> float:
        raise ZeroDivisionError("no GPU memory figure")

    validation.check(case)  # the predictor modules register themselves on first use: before the patch, not over it
    monkeypatch.setitem(PREDICTORS, case.kind, broken)
    monkeypatch.setattr(computed, "_kept", lambda: {})  # nothing kept: every case is computed for the page
    response = client.get(f"/en/validation/{case.kind}/")
    assert response.status_code == 200
    row = parse(response.content.decode()).one("tr", data_case=case.id)
    assert row.attrs["data-predicted"] == ""
    assert "ZeroDivisionError: no GPU memory figure" in row.text
    assert "no prediction" in row.text


def test_results_are_cached_for_an_hour(client, monkeypatch):
    client.get("/en/validation/")
    calls = []
    monkeypatch.setattr(validation, "check", lambda case: calls.append(case) or validation.Result(case, None, "x"))
    client.get("/de/validation/")
    assert calls == []


def test_validation_page_is_in_the_sitemap_and_the_footer(client):
    sitemap = client.get("/sitemap-pages.xml").content.decode()
    assert "http://testserver/en/validation/" in sitemap
    assert "http://testserver/de/validation/" in sitemap
    footer = parse(client.get("/de/").content.decode()).one("footer")
    assert footer.select("a", href="/de/validation/")


def test_errors_show_to_the_tenth_with_a_sign_and_a_tiny_miss_as_zero(client, monkeypatch):
    first, second = validation.load_cases()[:2]
    predicted = {first.id: first.measured * (1 - 0.0004), second.id: second.measured * 1.0137}
    monkeypatch.setattr(computed, "_kept", lambda: {})
    monkeypatch.setattr(validation, "check", lambda case: validation.Result(case, predicted.get(case.id)))

    def error_cell(case: Case) -> str:
        return _kind_page(client, case).one("tr", data_case=case.id).select("td", **{"class": "num"})[2].text

    assert error_cell(first) == "0.0 %"  # -0.04 %: neither "-0.0" nor "+0.0"
    assert error_cell(second) == "+1.4 %"


def test_readers_see_families_gpus_and_sources_in_words_and_no_ids_or_commits(client):
    """Case ids and commit hashes belong to the downloadable data; the page names what a reader cites."""
    import re

    cases = list(_case_rows(client).values())
    shown = " ".join(row.text for row in cases)
    assert not any(row.attrs["data-case"] in row.one("th").text for row in cases)  # the id stays an attribute
    assert not re.search(r"\bcommit\s+[0-9a-f]{7,}", shown, re.IGNORECASE)
    assert not re.search(r"@[0-9a-f]{7,}|\b[0-9a-f]{40}\b", shown)  # "planner @d3121e05", a commit in a link's text
    assert "Precision: INT8 W8A8" in shown and "Precision: w8a8" not in shown
    assert "Engine: vLLM" in shown and "Engine: vllm" not in shown
    families = {row.select("td")[1].text for row in cases}
    assert "Dense" in families and "mla-moe" not in families and "dense-tied" not in families
    assert "GPU: H100 SXM 80GB" in shown and "GPU: h100-sxm" not in shown
    german = parse(client.get("/de/validation/").content.decode())
    assert "Dicht, gekoppelte Embeddings" in german.select("table", **{"class": "validation-summary"})[0].text
