"""Vast.ai fetch pages through the whole offer book: replayed at the HTTP layer from the recorded offers.

The book is the 4 real offers of ``vastai-recorded-offers-2026-08-08.json`` plus copies of its H100 SXM
on-demand offer with other ids and prices (derived here, in code), served the way the search serves them: filtered
on ``dph_total``, cheapest first, at most ``limit`` per call.
"""

import copy
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
import respx

from pricing.bundled import gpus_sync
from pricing.models import PriceSnapshot
from pricing.providers import vastai
from pricing.selectors import current_offers
from pricing.services import offers_refresh

RECORDED_FILE = (
    Path(__file__).resolve().parent.parent / "data" / "provider-apis" / "vastai-recorded-offers-2026-08-08.json"
)
RECORDED = json.loads(RECORDED_FILE.read_text())["offers"]
H100_ON_DEMAND = RECORDED[0]  # 1.7356 USD/h, the real H100 SXM on-demand offer
B200_ID = RECORDED[3]["id"]  # 5.0021 USD/h, the most expensive offer
AT = datetime(2026, 8, 8, 15, 32, tzinfo=UTC)
T0 = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
PAGE = 4


def book(*extra_h100_prices: float) -> list[dict]:
    """The recorded offers plus H100 SXM on-demand copies at 1.10, 2.60, 3.20 and 3.80 USD/h (and any extra)."""
    derived = [
        dict(copy.deepcopy(H100_ON_DEMAND), id=900_000 + i, dph_total=price)
        for i, price in enumerate((1.10, 2.60, 3.20, 3.80, *extra_h100_prices))
    ]
    return copy.deepcopy(RECORDED) + derived


def _matches(price: float, condition: dict) -> bool:
    checks = {"gte": price.__ge__, "gt": price.__gt__, "lte": price.__le__, "lt": price.__lt__}
    return all(checks[op](value) for op, value in condition.items())


class Clock:
    def __init__(self) -> None:
        self.now = 0.0
        self.pauses: list[float] = []

    def __call__(self) -> float:
        return self.now

    def pause(self, seconds: float) -> None:
        self.pauses.append(seconds)
        self.now += seconds


class OfferSearch:
    """The offer search over ``offers``; ``failures`` maps a request number (1-based) to what that call gives."""

    def __init__(self, offers, *, failures=None, clock: Clock | None = None, seconds_per_request: float = 0.0):
        self.offers = offers
        self.failures = failures or {}
        self.clock = clock
        self.seconds_per_request = seconds_per_request
        self.queries: list[dict] = []
        self.pages: list[list[dict]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        query = json.loads(request.content)
        self.queries.append(query)
        if self.clock is not None:
            self.clock.now += self.seconds_per_request
        failure = self.failures.get(len(self.queries))
        if isinstance(failure, Exception):
            raise failure
        if failure is not None:
            return failure
        rows = [row for row in self.offers if _matches(row["dph_total"], query.get("dph_total", {}))]
        page = sorted(rows, key=lambda row: row["dph_total"])[: query["limit"]]  # ties keep the book's order
        self.pages.append(page)
        return httpx.Response(200, json={"offers": page})


def serve(search: OfferSearch) -> OfferSearch:
    respx.post(vastai.INFO.endpoint).mock(side_effect=search)
    return search


def fetch(**options) -> dict:
    with httpx.Client() as client:
        return json.loads(vastai.fetch(client, None, **options))


def by_key(offers):
    return {(o.gpu_slug, o.pricing_kind): o for o in offers}


@respx.mock
def test_all_offers_across_three_pages_are_parsed_and_the_median_is_over_all_of_them():
    search = serve(OfferSearch(book()))

    payload = fetch(max_pages=20, page_size=PAGE, clock=Clock(), pause=Clock().pause)

    assert len(search.queries) == 3
    first = search.queries[0]
    assert "dph_total" not in first
    assert first["limit"] == PAGE and first["order"] == [["dph_total", "asc"]]
    assert first["verified"] == {"eq": True} and first["rentable"] == {"eq": True} and first["type"] == "ondemand"
    assert [q["dph_total"] for q in search.queries[1:]] == [{"gte": H100_ON_DEMAND["dph_total"]}, {"gte": 3.80}]
    assert sorted(row["id"] for row in payload["offers"]) == sorted(row["id"] for row in book())
    assert [row["dph_total"] for row in payload["offers"]] == sorted(row["dph_total"] for row in book())

    found = by_key(vastai.parse(payload, AT))
    h100 = found[("h100-sxm", "on-demand")]
    assert h100.price_per_gpu_hour_usd == 2.6  # median of 1.10, 1.7356, 2.60, 3.20, 3.80
    assert h100.notes.startswith("5 offers")
    assert set(found) == {
        ("h100-sxm", "on-demand"),
        ("h100-sxm", "spot"),
        ("rtx-4090", "on-demand"),
        ("b200", "on-demand"),
    }
    # The first page alone (what one call gave) has the two cheapest H100s: a median biased low.
    first_page_only = by_key(vastai.parse({"offers": search.pages[0]}, AT))
    assert first_page_only[("h100-sxm", "on-demand")].price_per_gpu_hour_usd == pytest.approx(1.4178, abs=1e-4)


@respx.mock
def test_offers_tied_at_a_page_boundary_are_each_read_once():
    offers = book(H100_ON_DEMAND["dph_total"])  # a second machine at the boundary price, the 5th offer
    search = serve(OfferSearch(offers))

    payload = fetch(page_size=PAGE, clock=Clock(), pause=Clock().pause)

    ids = [row["id"] for row in payload["offers"]]
    assert len(ids) == len(set(ids)) == len(offers)  # a strict "above the last price" would lose the tie
    assert search.queries[1]["dph_total"] == {"gte": H100_ON_DEMAND["dph_total"]}


@respx.mock
def test_a_full_page_at_one_price_steps_past_that_price_instead_of_repeating_it():
    offers = book(*[1.10] * PAGE)  # five offers at 1.10: more than a page
    search = serve(OfferSearch(offers))

    payload = fetch(page_size=PAGE, clock=Clock(), pause=Clock().pause)

    assert {"gt": 1.10} in [q.get("dph_total") for q in search.queries]
    assert B200_ID in {row["id"] for row in payload["offers"]}
    assert len(search.queries) < 10


@respx.mock
def test_page_limit_stops_the_loop(caplog):
    search = serve(OfferSearch(book()))

    payload = fetch(max_pages=2, page_size=PAGE, clock=Clock(), pause=Clock().pause)

    assert len(search.queries) == 2
    assert B200_ID not in {row["id"] for row in payload["offers"]}  # only on the third page
    assert len(payload["offers"]) == 7
    assert "stopped after 2 pages" in caplog.text


@respx.mock
def test_page_requests_start_six_seconds_apart_for_the_rate_limit():
    clock = Clock()
    serve(OfferSearch(book(), clock=clock, seconds_per_request=2.0))

    fetch(page_size=PAGE, clock=clock, pause=clock.pause)

    assert clock.pauses == [4.0, 4.0]


@respx.mock
def test_a_read_past_the_time_budget_fails_instead_of_returning_the_cheapest_pages():
    clock = Clock()
    search = serve(OfferSearch(book(), clock=clock, seconds_per_request=100.0))

    with pytest.raises(httpx.TimeoutException, match="2 pages read"):
        fetch(page_size=PAGE, clock=clock, pause=clock.pause)
    assert len(search.queries) == 2


@respx.mock
def test_a_book_within_one_page_is_one_request_and_parses_as_the_recorded_response():
    search = serve(OfferSearch(copy.deepcopy(RECORDED)))

    payload = fetch()

    assert len(search.queries) == 1 and search.queries[0]["limit"] == 64
    assert vastai.parse(payload, AT) == vastai.parse(json.loads(RECORDED_FILE.read_text()), AT)


# --- through offers_refresh -----------------------------------------------------------------------------------


@pytest.fixture
def refresh_setup(db, monkeypatch):
    from django.core.cache import cache

    cache.clear()
    gpus_sync()
    monkeypatch.setattr(vastai, "PAGE_SIZE", PAGE)
    monkeypatch.setattr(vastai, "PAGE_INTERVAL_SECONDS", 0.0)


def _bad_price_page() -> httpx.Response:
    rows = copy.deepcopy(book()[4:8])
    rows[1]["dph_total"] = "2.60"
    return httpx.Response(200, json={"offers": rows})


SECOND_PAGE_FAILURES = [
    pytest.param(httpx.Response(503), True, id="http-503"),
    pytest.param(httpx.ReadTimeout("slow"), True, id="timeout"),
    pytest.param(httpx.Response(200, content=b'{"offers": [{"id": 1, '), False, id="malformed-json"),
    pytest.param(_bad_price_page(), False, id="price-as-string"),
]


@respx.mock
@pytest.mark.parametrize(("failure", "retryable"), SECOND_PAGE_FAILURES)
def test_a_failing_second_page_keeps_the_last_good_offers(refresh_setup, failure, retryable):
    serve(OfferSearch(book()))
    assert offers_refresh("vastai", now=T0).outcome == "success"
    before = {o.natural_key: o.price_per_gpu_hour_usd for o in current_offers(now=T0)}
    assert len(before) == 4
    respx.reset()
    search = serve(OfferSearch(book(9.99), failures={2: failure}))  # the book changed; page 2 fails

    result = offers_refresh("vastai", now=T0 + timedelta(hours=1))

    assert len(search.queries) == 2
    assert result.outcome == "failed" and result.retryable is retryable
    assert PriceSnapshot.objects.order_by("-id").first().outcome == "failed"
    after = current_offers(now=T0 + timedelta(hours=1))
    assert {o.natural_key: o.price_per_gpu_hour_usd for o in after} == before
    assert all(o.stale and o.captured_at == T0 for o in after)


@respx.mock
def test_refresh_reads_at_most_the_pages_the_setting_allows(refresh_setup, settings, caplog):
    settings.PRICING_VASTAI_MAX_PAGES = 2
    search = serve(OfferSearch(book()))

    assert offers_refresh("vastai", now=T0).outcome == "success"

    assert len(search.queries) == 2
    assert "stopped after 2 pages" in caplog.text


@respx.mock
def test_an_unchanged_book_served_with_ties_in_another_order_is_an_unchanged_snapshot(refresh_setup):
    offers = book(H100_ON_DEMAND["dph_total"], 2.60)
    serve(OfferSearch(offers))
    assert offers_refresh("vastai", now=T0).outcome == "success"
    respx.reset()
    serve(OfferSearch(list(reversed(offers))))

    assert offers_refresh("vastai", now=T0 + timedelta(hours=1)).outcome == "unchanged"
