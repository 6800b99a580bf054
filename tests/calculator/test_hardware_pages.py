"""GPU, provider, "can it run" and comparison pages: rendered from the catalog, the GPU data and current offers."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from django.core.management import call_command

from models_catalog import services
from pricing.price_index import price_index_compute
from tests.models_catalog.html import parse
from tests.support import module_rows

SHIPPED = Path(services.__file__).resolve().parent / "data" / "hub"
GLM = "/en/models/zai-org/GLM-5.3-Flash/"
LLAMA = "/en/models/meta-llama/Llama-3.1-8B-Instruct/"

pytestmark = [pytest.mark.django_db, pytest.mark.xdist_group("hardware-pages")]


def _write_site() -> None:
    services.model_import_offline(SHIPPED)
    call_command("loaddata", "seed_offers_2026-11-13", verbosity=0)


_site_rows = module_rows(_write_site)


@pytest.fixture
def site(_site_rows, db):
    """The shipped catalog and the seed offers: written once for the module, rolled back to after each test."""


def _page(client, path, status=200):
    response = client.get(path)
    assert response.status_code == status, path
    return parse(response.content)


@pytest.mark.parametrize("lang", ["en", "de"])
def test_gpu_index_groups_gpus_and_shows_the_cheapest_current_price(client, site, lang):
    page = _page(client, f"/{lang}/gpus/")
    mi300x = page.one("tr", data_gpu="mi300x")
    assert "2.39" in mi300x.text or "2,39" in mi300x.text
    assert page.one("tr", data_gpu="rtx-4090")


def test_gpu_page_lists_offers_with_dates_and_which_models_fit(client, site):
    page = _page(client, "/en/gpus/mi300x/")
    capacity = page.one("dd", data_spec="capacity")
    assert capacity.attrs["data-bytes"] == "206141652992"  # ROCm's VRAM total, linked to the log it was read from
    assert capacity.one("a").attrs["href"].startswith("https://github.com/ROCm/")
    assert "estimated" not in capacity.text
    assert "estimated from the size on the box" in _page(client, "/en/gpus/b300/").one("dd", data_spec="capacity").text

    offers = page.one("table", id="gpu-offers").select("tr", data_provider=True)
    assert [o.attrs["data-provider"] for o in offers][:2] == ["runpod", "runpod"]
    assert "Nov 13, 2026" in offers[0].text
    fits = {r.attrs["data-model"]: r for r in page.one("table", id="models-on-gpu").select("tr", data_model=True)}
    # GLM-5.3-Flash's sparse attention has no vLLM kernels for an MI300X (docs/methodology.md §4.14): listed last,
    # "cannot start" in every column
    glm = fits["GLM-5.3-Flash"]
    assert glm.attrs["data-starts"] == "false"
    starts = [row.attrs.get("data-starts") != "false" for row in fits.values()]
    assert starts == sorted(starts, reverse=True)  # every model that cannot start after those that can
    assert {c.text.split(" ")[0] for c in glm.select("td")} == {"cannot"}
    # Kimi-K2 (MLA without an indexer) starts: as released (INT4 experts) and at W8A8 and AWQ over the 185.5 GB vLLM
    # fills of the 206.1 GB ROCm reports for an MI300X
    kimi = {c.attrs["data-precision"]: int(c.attrs["data-count"]) for c in fits["Kimi-K2-Instruct"].select("td")}
    assert "data-starts" not in fits["Kimi-K2-Instruct"].attrs and min(kimi.values()) >= 2
    assert [th.attrs["data-format"] for th in page.one("table", id="models-on-gpu").select("th", data_format=True)] == [
        "w8a8",
        "awq",
    ]
    assert fits["GLM-5.3-Flash"].one("td", data_precision="fp8").select("span")[-1].text == "FP8"
    gpt_oss = {c.attrs["data-precision"]: int(c.attrs["data-count"]) for c in fits["gpt-oss-120b"].select("td")}
    assert next(iter(gpt_oss)) == "mxfp4" and gpt_oss["mxfp4"] == 1  # MXFP4 experts, as released: one card
    assert fits["GLM-5.3-Flash"].one("a").attrs["href"] == GLM + "runs-on/mi300x/"


def test_gpu_page_links_the_sources_that_are_addresses_and_counts_offers_it_does_not_list(client, site):
    from pricing.gpus import gpu_by_slug
    from pricing.models import Offer

    spot = Offer.objects.filter(gpu__slug="h200-sxm").first()
    spot.pk, spot.pricing_kind, spot.instance_name = None, "spot", "spot " + spot.instance_name
    spot.save()
    page = _page(client, "/en/gpus/h200-sxm/")

    items = page.one("ul", **{"class": "source-list"}).select("li")
    shown = [(li.text, [a.attrs["href"] for a in li.select("a")]) for li in items]
    sources = gpu_by_slug("h200-sxm").sources
    assert any(s.startswith("http") for s in sources) and not all(s.startswith("http") for s in sources)
    assert shown == [(s, [s] if s.startswith("http") else []) for s in sources]
    listed = page.one("table", id="gpu-offers").select("tr", data_provider=True)
    assert not any("spot" in row.text for row in listed)
    assert any(p.text.startswith("1 more offer is spot, community or reserved") for p in page.select("p"))


def test_gpu_page_price_history_comes_from_the_folded_daily_history(client, site):
    before = _page(client, "/en/gpus/h200-sxm/")
    # raw offers, no day folded yet: no history section, and no "no history yet" placeholder either
    assert before.select("section", id="history") == []
    assert not [p for p in before.select("p") if "history" in p.text.lower()]
    price_index_compute(date(2026, 11, 13))  # a new price-data generation: the page is rendered anew
    page = _page(client, "/en/gpus/h200-sxm/")
    (day,) = page.one("table", id="price-history").select("tr", data_day=True)
    # Nebius $5.40, CoreWeave $6.305 and AWS $7.912 per GPU-hour on Nov 13: median 6.305, cheapest at Nebius.
    assert day.attrs["data-day"] == "2026-11-13"
    median, cheapest, offers, cheapest_at = (cell.text for cell in day.select("td"))
    assert "6.3" in median and "5.40" in cheapest and offers == "3"
    assert cheapest_at == "Nebius"


def test_unknown_gpu_and_provider_are_404(client, site):
    _page(client, "/en/gpus/warp-core/", 404)
    _page(client, "/en/providers/acme-cloud/", 404)


@pytest.mark.parametrize(
    ("former", "now"),
    [
        ("h100-80gb", "h100-sxm"),
        ("h200-141gb", "h200-sxm"),
        ("a100-40gb", "a100-40gb-sxm"),
        ("v100-16gb", "v100-sxm2-16gb"),
    ],
)
def test_a_family_of_form_factors_before_they_were_priced_apart_moves_to_its_sxm_part(client, site, former, now):
    """One name once covered SXM and PCIe ("H100 80GB", pricing/gpus.py FORMER_FAMILIES): its address, shared or
    bookmarked, is answered with a permanent move to the part it now stands for, never a 404."""
    for lang in ("en", "de"):
        response = client.get(f"/{lang}/gpus/{former}/")
        assert response.status_code == 301
        assert response["Location"] == f"/{lang}/gpus/{now}/"
        assert client.get(response["Location"]).status_code == 200
    moved = client.get(GLM + f"runs-on/{former}/")
    assert moved.status_code == 301 and moved["Location"] == GLM + f"runs-on/{now}/"
    assert client.get(moved["Location"]).status_code == 200


def test_a_gpu_page_says_whose_log_its_runtime_total_was_read_from_and_which_offers_do_not_name_the_part(client, site):
    pcie = _page(client, "/en/gpus/h100-pcie/").one("dd", data_spec="capacity")
    assert "read on the H100 SXM 80GB" in pcie.one("small", data_capacity_read_on=True).text
    assert (
        not _page(client, "/en/gpus/h100-sxm/")
        .one("dd", data_spec="capacity")
        .select("small", data_capacity_read_on=True)
    )
    offers = {
        row.attrs["data-provider"]: row
        for row in _page(client, "/en/gpus/h200-sxm/").one("table", id="gpu-offers").select("tr", data_provider=True)
    }
    assert offers["nebius"].select("span", data_form_factor_unstated=True)  # "8x H200 141GB"
    assert not offers["coreweave"].select("span", data_form_factor_unstated=True)  # "HGX H200": an SXM board


def test_provider_pages_show_offers_and_refresh_status(client, site):
    index = _page(client, "/de/providers/")
    assert index.one("tr", data_provider="runpod")
    page = _page(client, "/en/providers/runpod/")
    rows = page.one("table", id="provider-offers").select("tr", data_gpu=True)
    assert {r.attrs["data-gpu"] for r in rows} >= {"mi300x", "a40"}


def test_german_provider_page_names_how_offers_are_sold_and_the_last_refresh_in_german(client, site):
    from pricing.models import PriceSnapshot

    PriceSnapshot.objects.filter(provider__slug="runpod").update(outcome="success")
    page = _page(client, "/de/providers/runpod/")
    kinds = {row.select("td")[2].text for row in page.one("table", id="provider-offers").select("tr", data_gpu=True)}
    assert kinds and kinds <= {"auf Abruf", "Spot (unterbrechbar)", "Community-Cloud", "reserviert"}
    assert ("neue Preise" in page.text or "keine aktuellen Preise" in page.text) and "success" not in page.text


def test_provider_page_shows_its_website_without_scheme_and_closing_slash(client, site):
    from pricing.models import Provider

    Provider.objects.filter(slug="runpod").update(website="https://www.runpod.io/pricing/")
    link = _page(client, "/en/providers/runpod/").one("a", href="https://www.runpod.io/pricing/")
    assert link.text == "www.runpod.io/pricing"


def test_can_it_run_answers_with_the_widest_option_that_fits(client, site):
    mac = _page(client, GLM + "runs-on/mac-128/")
    assert mac.one(id="verdict").attrs["data-fits"] == "true"
    assert "2bit-lite" in mac.one(id="verdict").text
    assert int(mac.one(data_card="max-context").text.replace(",", "")) > 8192

    card = _page(client, GLM + "runs-on/rtx-4090/")
    assert card.one(id="verdict").attrs["data-fits"] == "false"
    assert all(r.attrs["data-fits"] == "false" for r in card.select("tr", data_option=True))
    # nothing fits one card: the verdict names the option that needs least and how many cards it takes
    smallest = card.select("tr", data_option=True)[-1]
    cards = smallest.select("td")[-1].text.removeprefix("needs ")
    assert f"At {smallest.one('th').text} it takes {cards} of them." in card.one(id="verdict").text

    llama = _page(client, LLAMA + "runs-on/h100-sxm/")
    assert llama.one(id="verdict").attrs["data-fits"] == "true"
    assert llama.one("tr", data_option="fp16").attrs["data-fits"] == "true"


def test_a_card_people_own_is_sized_for_the_gguf_files_llama_cpp_loads_not_generic_int4(client, site):
    """On an RTX 4090 (llama.cpp) the 8- and 4-bit options are Q8_0 and Q4_K_M, whose output head stays in Q6_K and
    some layers wider: the generic INT4's 4.2 bits on every tensor sized them 13–16 % short."""
    from calculator.estimation import Workload, estimate
    from tests.calculator.estimation_specs import hub_spec

    card = _page(client, LLAMA + "runs-on/rtx-4090/")
    keys = [r.attrs["data-option"] for r in card.select("tr", data_option=True)]
    assert "q8_0" in keys and "q4_k_m" in keys and "int4" not in keys and "int8" not in keys
    spec = hub_spec("meta-llama/Llama-3.1-8B-Instruct")
    need = estimate(spec, Workload(precision="q4_k_m", engine="llama.cpp")).total_bytes
    generic = estimate(spec, Workload(precision="int4", engine="llama.cpp")).total_bytes
    row = card.one("tr", data_option="q4_k_m")
    assert row.one("th").text == "GGUF Q4_K_M" and need > 1.1 * generic
    # a datacenter GPU under vLLM: 8- and 4-bit as the W8A8 and AWQ checkpoints vLLM loads; W8A8 keeps embeddings and
    # head in 16 bit, 8.46 GiB of weights where vLLM logs 8.49 GiB (RedHatAI's build), the generic INT8 7.85 GiB
    h100 = _page(client, LLAMA + "runs-on/h100-sxm/")
    assert (
        h100.one("tr", data_option="awq")
        and h100.one("tr", data_option="w8a8")
        and not h100.select("tr", data_option="int4")
        and not h100.select("tr", data_option="int8")
    )
    w8a8 = estimate(spec, Workload(precision="w8a8", engine="vllm")).weights_bytes
    assert w8a8 / 2**30 == pytest.approx(8.49, rel=0.01)
    assert estimate(spec, Workload(precision="int8", engine="vllm")).weights_bytes < 0.95 * w8a8


def test_can_it_run_refuses_hardware_we_do_not_know(client, site):
    _page(client, GLM + "runs-on/mac-7/", 404)
    _page(client, GLM + "runs-on/warp-core/", 404)
    assert client.get("/en/models/zai-org/glm-5.3-flash/runs-on/mac-128/")["Location"] == GLM + "runs-on/mac-128/"


def test_model_page_links_to_its_can_it_run_pages_and_a_comparison(client, site):
    page = _page(client, GLM + "?show=local-macs-body")
    links = [a.attrs["href"] for a in page.one(id="runs-on-links").select("a")]
    assert GLM + "runs-on/h100-sxm/" in links and GLM + "runs-on/mac-128/" in links
    assert page.one("a", id="compare-link").attrs["href"].startswith("/en/compare/?models=zai-org/GLM-5.3-Flash%2C")
    similar = [a.attrs["href"] for a in page.one("section", id="similar").one("ul").select("a")]
    compared = page.one("a", id="compare-link").attrs["href"].split("?models=")[1].split("%2C")
    assert len(similar) > 3 and len(compared) == 4  # this model and the three most similar: the compare page's four
    assert [f"/en/models/{hub_id}/" for hub_id in compared[1:]] == similar[:3]


def test_compare_shows_models_side_by_side_at_the_same_settings(client, site):
    page = _page(client, "/en/compare/?models=zai-org/GLM-5.3-Flash,meta-llama/Llama-3.1-8B-Instruct&precision=int4")

    need = page.one("tr", data_row="need").select("td")
    assert [c.attrs["data-bytes"] for c in need] and need[0].text.replace("\xa0", " ") == "170 GB"
    headers = [th.attrs.get("data-model") for th in page.one("table", id="comparison").select("th", data_model=True)]
    assert headers == ["zai-org/GLM-5.3-Flash", "meta-llama/Llama-3.1-8B-Instruct"]


def test_compare_more_than_four_is_a_notice_not_an_error(client, site):
    ids = ",".join(
        [
            "zai-org/GLM-5.3-Flash",
            "meta-llama/Llama-3.1-8B-Instruct",
            "Qwen/Qwen3-8B",
            "Qwen/Qwen3-32B",
            "Qwen/Qwen3-30B-A3B",
            "acme/none",
        ]
    )
    page = _page(client, f"/en/compare/?models={ids}&context=-5")
    assert len(page.one("table", id="comparison").select("th", data_model=True)) == 4
    notice = page.one(id="compare-notice").text
    assert "At most 4 models" in notice
    assert page.one(data_ignored="context")


def test_sitemap_lists_gpu_provider_and_can_it_run_pages(client, site):
    runs_on = client.get("/sitemap-runs-on.xml").content.decode()
    assert "/en/models/zai-org/GLM-5.3-Flash/runs-on/mac-128/" in runs_on
    assert "/de/models/zai-org/GLM-5.3-Flash/runs-on/h100-sxm/" in runs_on
    assert "/en/gpus/mi300x/" in client.get("/sitemap-gpus.xml").content.decode()
    assert "/de/providers/runpod/" in client.get("/sitemap-providers.xml").content.decode()


def test_prices_confirmed_is_the_newest_offer_capture_and_stale_prices_are_said_once_per_table(client, site):
    """A refresh today that stored prices a page saw on Nov 13 (curated, not live) confirms nothing newer: the
    provider's "prices confirmed" is Nov 13, stale, and each offer table says so once, with the dates."""
    from datetime import UTC, datetime

    from pricing.models import PriceSnapshot
    from web.generations import PRICES_GENERATION

    PriceSnapshot.objects.filter(provider__slug="runpod").update(captured_at=datetime.now(UTC))
    PRICES_GENERATION.bump()
    page = _page(client, "/en/providers/runpod/")

    confirmed = next(div for div in page.select("div") if div.select("dt") and div.one("dt").text == "Prices confirmed")
    assert confirmed.one("dd").text.startswith("Nov 13, 2026") and "stale" in confirmed.one("dd").text
    rows = page.one("table", id="provider-offers").select("tr", data_gpu=True)
    assert rows and all(row.attrs.get("data-stale") == "true" and "stale" not in row.text for row in rows)
    note = page.one("p", data_stale_count=True)
    assert note.attrs["data-stale-count"] == str(len(rows))
    assert f"{len(rows)} of these {len(rows)} prices are stale: seen Nov 13, 2026, longer ago" in note.text
    gpu = _page(client, "/en/gpus/mi300x/")
    assert gpu.one("p", data_stale_count=True) and "stale" not in gpu.one("table", id="gpu-offers").text
    index = _page(client, "/en/providers/").one("tr", data_provider="runpod").text
    assert "Nov 13, 2026" in index and "stale" in index


def test_compare_precision_box_says_as_released_until_one_is_chosen_and_offers_the_page_formats(client, site):
    models = "zai-org/GLM-5.3-Flash,meta-llama/Llama-3.1-8B-Instruct"
    select = parse(client.get(f"/en/compare/?models={models}").content).one("select", name="precision")
    assert [o.attrs["value"] for o in select.select("option", selected=True)] == [""]  # not FP16, as it once showed
    assert {"gptq", "q6_k", "mlx-8bit"} <= {o.attrs["value"] for o in select.select("option")}
    chosen = parse(client.get(f"/en/compare/?models={models}&precision=int8").content).one("select", name="precision")
    assert [o.attrs["value"] for o in chosen.select("option", selected=True)] == ["int8"]


@pytest.mark.parametrize("lang", ["en", "de"])
def test_methodology_reproduces_the_reference_figures_beside_ours(client, site, lang):
    """The reference page's own rule on GLM-5.3-Flash's config gives its 708 / 372 / 187 GB and, on its offers of
    2026-11-13, 5 × MI300X → the 8-GPU instance at $19.12 an hour ($13,958 a month); beside it what vLLM allocates
    (633 / 335 / 170 GB) on a GPU its sparse attention starts on (docs/methodology.md §4.14)."""
    table = _page(client, f"/{lang}/methodology/").one("table", id="reference-figures-table")
    rows = {r.attrs["data-precision"]: r for r in table.select("tr", data_precision=True)}
    totals = {
        p: round(int(r.one(data_reference_total=True).attrs["data-reference-total"]) / 1e9) for p, r in rows.items()
    }
    assert totals == {"fp16": 708, "int8": 372, "int4": 187}
    fp16 = rows["fp16"].one(data_reference_cost=True).text.replace("\xa0", " ")
    money = ("$19.12", "$13,958") if lang == "en" else ("19,12 $", "13.958 $")
    assert "8 × MI300X 192GB" in fp16 and "(5 " in fp16 and all(m in fp16 for m in money), fp16
    ours = rows["fp16"].one(data_ours_cost=True).text
    assert "633" in rows["fp16"].text and "H200" in ours and "MI300X" not in ours
    assert ("a month" in ours) if lang == "en" else ("pro Monat" in ours)
