"""Catalog pages: list, facts page, unknown model, judged on the HTML (the on-demand import: test_import_views.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.cache import cache

from models_catalog import naming, services
from models_catalog.models import Model
from tests.models_catalog.html import parse
from tests.support import module_rows

SHIPPED = Path(services.__file__).resolve().parent / "data" / "hub"
QWEN = "Qwen/Qwen3-30B-A3B"

pytestmark = [pytest.mark.django_db, pytest.mark.xdist_group("catalog-views")]


def _write_catalog() -> None:
    services.model_import_offline(SHIPPED)


_catalog_rows = module_rows(_write_catalog)


@pytest.fixture
def catalog(_catalog_rows, db):
    """The shipped catalog: written once for the module, rolled back to after each test."""


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()


def test_list_shows_every_shipped_model(client, catalog):
    response = client.get("/en/models/")

    assert response.status_code == 200
    page = parse(response.content)
    assert len(page.select("tr", data_hub_id=True)) == 56
    assert page.one(data_count="56")


@pytest.mark.parametrize(
    ("lang", "moe_sizes", "dense_sizes"),
    # Qwen3-30B-A3B's active count is ours from the config (3.0 B; its model card says 3.3 B with the embedding)
    [("en", ["30.5 B", "3.0 B"], ["8.0 B", "–"]), ("de", ["30,5 Mrd.", "3,0 Mrd."], ["8,0 Mrd.", "–"])],
)
def test_list_shows_sizes_in_billions_and_active_parameters_of_a_mixture_of_experts_only(
    client, catalog, lang, moe_sizes, dense_sizes
):
    page = parse(client.get(f"/{lang}/models/").content)

    def sizes(hub_id: str) -> list[str]:
        return [td.text for td in page.one("tr", data_hub_id=hub_id).select("td")[3:5]]

    assert sizes(QWEN) == moe_sizes
    dense = Model.objects.get(hub_id="meta-llama/Llama-3.1-8B-Instruct")
    assert dense.params_active and not dense.is_moe  # a dense model's active count is its total: not shown
    assert sizes(dense.hub_id) == dense_sizes


def test_list_search_filter_and_sort(client, catalog):
    glm = parse(client.get("/en/models/?q=glm").content)
    assert {r.attrs["data-hub-id"] for r in glm.select("tr", data_hub_id=True)} >= {
        "zai-org/GLM-5.3-Flash",
        "zai-org/GLM-5",
    }
    assert all("glm" in r.attrs["data-hub-id"].lower() for r in glm.select("tr", data_hub_id=True))

    largest = parse(client.get("/en/models/?sort=size").content).select("tr", data_hub_id=True)
    assert largest[0].attrs["data-hub-id"] == "moonshotai/Kimi-K2-Instruct"

    vision = parse(client.get("/en/models/?modality=vision").content).select("tr", data_hub_id=True)
    assert "zai-org/GLM-5.3-Flash" in {r.attrs["data-hub-id"] for r in vision}
    assert "Qwen/Qwen3-8B" not in {r.attrs["data-hub-id"] for r in vision}

    linear = parse(client.get("/en/models/?attention=linear-hybrid").content).select("tr", data_hub_id=True)
    assert {r.attrs["data-hub-id"] for r in linear} >= {"Qwen/Qwen3-Next-80B-A3B-Instruct", "zai-org/GLM-5.3-Flash"}


def test_htmx_list_request_gets_the_fragment_and_vary(client, catalog):
    response = client.get("/en/models/?q=qwen3", headers={"HX-Request": "true"})

    assert b"<html" not in response.content
    assert parse(response.content).one("div", id="model-rows")
    assert "HX-Request" in response["Vary"]


def test_invalid_sort_falls_back_and_is_reported(client, catalog):
    page = parse(client.get("/en/models/?sort=sideways").content)

    assert len(page.select("tr", data_hub_id=True)) == 56
    assert "sort" in page.one("p", **{"class": "notice"}).text


def test_rounded_published_figure_is_not_a_conflict(client, catalog):
    page = parse(client.get("/en/models/Qwen/Qwen3-30B-A3B/?show=param-table").content)

    # 30,532,122,624 (safetensors) and "30.5B" (published) agree at the published precision.
    totals = page.one("details", id="fact-sources").select("tr", data_kind="params_total")
    assert totals and not [r for r in totals if "data-conflict" in r.attrs]


def test_model_page_in_german_formats_numbers_for_german_readers(client, catalog):
    page = parse(client.get("/de/models/zai-org/GLM-5.3-Flash/").content)

    assert page.one(data_fact="max_context").text.startswith("1.048.576")


def test_differently_cased_id_redirects_to_the_catalog_spelling(client, catalog):
    response = client.get("/en/models/zai-org/glm-5.3-flash/")

    assert response.status_code == 301
    assert response["Location"] == "/en/models/zai-org/GLM-5.3-Flash/"


def test_unknown_model_is_a_404_that_offers_search_matches_and_import(client, catalog, hub_mock):
    response = client.get("/en/models/zai-org/GLM-5.3-Flesh/")

    assert response.status_code == 404
    page = parse(response.content)
    assert page.one("form", role="search")
    assert "zai-org/GLM-5.3-Flash" in [a.text for a in page.one("ul", **{"class": "close-matches"}).select("a")]
    assert page.one("input", name="hub_id").attrs["value"] == "zai-org/GLM-5.3-Flesh"
    assert hub_mock.calls.call_count == 0


def _ids(content):
    return [r.attrs["data-hub-id"] for r in parse(content).select("tr", data_hub_id=True)]


def test_list_filters_by_size_experts_licence_and_weights_that_fit(client, catalog):
    small = Model.objects.filter(params_total__lt=10e9).count()
    assert small and len(_ids(client.get("/en/models/?size=under-10").content)) == small
    mid = Model.objects.filter(params_total__gte=10e9, params_total__lt=40e9)
    assert set(_ids(client.get("/en/models/?size=10-40").content)) == {m.hub_id for m in mid}
    assert "moonshotai/Kimi-K2-Instruct" in _ids(client.get("/en/models/?size=over-150").content)

    moe = set(_ids(client.get("/en/models/?moe=moe").content))
    dense = set(_ids(client.get("/en/models/?moe=dense").content))
    assert QWEN in moe and "Qwen/Qwen3-8B" in dense and not moe & dense

    licence = Model.objects.exclude(licence="").values_list("licence", flat=True).first()
    licensed = _ids(client.get("/en/models/", {"licence": licence}).content)
    assert licensed and set(licensed) == set(Model.objects.filter(licence=licence).values_list("hub_id", flat=True))

    # Weights alone: params × 4.2 bits ≤ 24 GB (≤ 45.7 B parameters), params × 2 bytes ≤ 80 GB (≤ 40 B).
    int4 = set(_ids(client.get("/en/models/?fits=24gb-int4").content))
    fp16 = set(_ids(client.get("/en/models/?fits=80gb-fp16").content))
    assert QWEN in int4 and QWEN in fp16  # 30.5 B
    assert "moonshotai/Kimi-K2-Instruct" not in int4
    for m in Model.objects.exclude(params_total=None):
        assert (m.hub_id in int4) == (m.params_total * 4.2 / 8 <= 24e9), m.hub_id
        assert (m.hub_id in fp16) == (m.params_total * 2 <= 80e9), m.hub_id
    page = parse(client.get("/en/models/?fits=24gb-int4").content)
    assert "weights fit in 24 GB at INT4" in page.one("select", name="fits").text
    assert "model page adds the KV cache" in page.one("p", id="fits-hint").text


def test_bad_filter_values_fall_back_with_a_notice(client, catalog):
    page = parse(client.get("/en/models/?size=huge&fits=everything&moe=maybe&page=0").content)

    assert len(page.select("tr", data_hub_id=True)) == 56
    notice = page.one("p", **{"class": "notice"}).text
    assert all(name in notice for name in ("size", "fits", "moe", "page"))


def test_pages_of_the_list_hold_without_counting_the_whole_table(client, catalog, monkeypatch):
    from models_catalog import selectors

    monkeypatch.setattr(selectors, "PER_PAGE", 20)
    everything = [m.hub_id for m in selectors.catalog_models(sort="size")]

    first = client.get("/en/models/?sort=size")
    page = parse(first.content)
    assert _ids(first.content) == everything[:20]
    assert page.one(data_count="56")
    nav = page.one("nav", **{"class": "pagination"})
    assert [a.attrs["rel"] for a in nav.select("a")] == ["next"]
    assert nav.one("a").attrs["href"] == "/en/models/?sort=size&page=2"

    third = client.get("/en/models/?sort=size&page=3")
    assert _ids(third.content) == everything[40:]
    links = {a.attrs["rel"]: a.attrs["href"] for a in parse(third.content).select("a", rel=True)}
    assert links == {"first": "/en/models/?sort=size", "prev": "/en/models/?sort=size&page=2"}

    fragment = client.get("/en/models/?sort=size&page=2", headers={"HX-Request": "true"})
    assert b"<html" not in fragment.content and _ids(fragment.content) == everything[20:40]

    past = parse(client.get("/en/models/?sort=size&page=9").content)
    assert not past.select("tr", data_hub_id=True)
    assert past.select("a", href="/en/models/?sort=size") and not past.select("a", rel="prev")


def test_page_count_stops_at_the_cap(client, catalog, monkeypatch):
    from models_catalog import selectors
    from models_catalog.selectors import listing

    monkeypatch.setattr(listing, "COUNT_CAP", 30)
    monkeypatch.setattr(selectors, "PER_PAGE", 20)
    page = parse(client.get("/en/models/?page=2").content)

    assert len(page.select("tr", data_hub_id=True)) == 20
    assert not page.select("p", data_count=True)
    assert "More than" in page.select("div", id="model-rows")[0].select("p")[0].text


def test_suggestions_rank_name_prefix_then_organisation_and_family(client, catalog):
    def suggested(text):
        response = client.get("/en/models/suggest/", {"q": text}, headers={"HX-Request": "true"})
        assert response.status_code == 200 and b"<html" not in response.content
        assert "HX-Request" in response["Vary"]
        return [a.attrs["data-hub-id"] for a in parse(response.content).select("a", data_hub_id=True)]

    qwen = suggested("qwen3")
    assert 0 < len(qwen) <= 8 and all(h.split("/")[1].lower().startswith("qwen3") for h in qwen)
    # "glm" starts GLM model names; zai-org's other models, if any, come after them.
    glm = suggested("GLM")
    assert glm and glm[0].split("/")[1].lower().startswith("glm")
    # An organisation that starts no model name: its models come from the second tier.
    by_org = suggested("meta-ll")
    assert by_org and all(h.startswith("meta-llama/") for h in by_org)
    # A word inside a name, found by the third tier.
    assert "Qwen/Qwen3-30B-A3B" in suggested("30B-A3B")
    assert suggested("") == [] and suggested("   ") == []
    assert suggested("no-such-model-anywhere") == []
    assert (
        "No model suggestion"
        in client.get("/en/models/suggest/?q=zzzz", headers={"HX-Request": "true"}).content.decode()
    )
    assert client.get("/en/models/suggest/?q=", headers={"HX-Request": "true"}).content.strip() == b""


def test_suggestions_without_htmx_go_to_the_list_search(client, catalog):
    response = client.get("/en/models/suggest/?q=qwen3")

    assert response.status_code == 302 and response["Location"] == "/en/models/?q=qwen3"


def test_search_boxes_ask_for_suggestions_and_name_their_list(client, catalog):
    for path, status in (("/en/", 200), ("/en/models/", 200), ("/en/models/acme-labs/Imaginary-7B/", 404)):
        response = client.get(path)
        assert response.status_code == status
        page = parse(response.content)
        box = page.one("input", id="catalog-q")
        assert box.attrs["hx-get"] == "/en/models/suggest/"
        assert box.attrs["hx-trigger"] == "input changed delay:200ms"
        assert box.attrs["hx-push-url"] == "false"
        assert box.attrs["aria-controls"] == "catalog-suggestions"
        assert page.one("div", id="catalog-suggestions").attrs["aria-live"] == "polite"


def test_runs_on_my_machine_filter_reads_the_remembered_machine(client, catalog):
    # nothing remembered: no "My machine" filter, and a link that asks for one says why the list is unfiltered
    page = parse(client.get("/en/models/").content)
    assert not page.select("select", name="machine")
    page = parse(client.get("/en/models/?machine=ram").content)
    assert len(page.select("tr", data_hub_id=True)) == 56
    assert "remembers no machine" in page.one("p", **{"class": "notice"}).text

    # 2 × RTX 4090 (24 GB each, as marketed) and 64 GiB of RAM, the cookie the model page's "Remember" button sets
    client.cookies["gpufit_rig"] = "rtx-4090,2,64"
    page = parse(client.get("/en/models/?machine=gpu").content)
    assert page.one("select", name="machine").one("option", selected=True).attrs["value"] == "gpu"
    hint = page.one("p", id="machine-hint").text
    assert "2 × RTX 4090 24GB (48 GB) and 64 GB of RAM" in hint
    on_gpus = set(_ids(client.get("/en/models/?machine=gpu").content))
    with_ram = set(_ids(client.get("/en/models/?machine=ram").content))
    gpu_bytes, ram_bytes = 2 * 24e9, 64 * 1024**3
    for m in Model.objects.exclude(params_total=None):
        weights = m.params_total * 4.2 / 8
        assert (m.hub_id in on_gpus) == (weights <= gpu_bytes), m.hub_id
        assert (m.hub_id in with_ram) == (weights <= gpu_bytes + ram_bytes), m.hub_id
    assert on_gpus < with_ram  # RAM widens the list: e.g. a ~120 B MoE fits only with RAM
    assert "openai/gpt-oss-120b" in with_ram - on_gpus

    # a cookie a reader edited into nonsense is ignored, never an error
    client.cookies["gpufit_rig"] = "warp-core,99,-1"
    response = client.get("/en/models/?machine=gpu")
    assert response.status_code == 200 and len(_ids(response.content)) == 56


def test_name_order_ignores_case_and_reads_numbers_by_value(client, catalog):
    """'name' sorted MiniMax-M2 before Olmo, phi-4 beside Phi-3.5, and Qwen3-4B before Qwen3-14B."""
    rows = [r.attrs["data-hub-id"] for r in parse(client.get("/en/models/").content).select("tr", data_hub_id=True)]
    assert (
        rows.index("MiniMaxAI/MiniMax-M2") < rows.index("allenai/Olmo-3.1-32B-Instruct") < rows.index("Qwen/Qwen3-4B")
    )
    assert rows.index("microsoft/Phi-3.5-mini-instruct") + 1 == rows.index("microsoft/phi-4")
    assert rows.index("Qwen/Qwen3-4B") < rows.index("Qwen/Qwen3-8B") < rows.index("Qwen/Qwen3-14B")
    assert rows.index("meta-llama/Llama-3.1-8B-Instruct") < rows.index("meta-llama/Llama-3.1-70B-Instruct")
    assert rows.index("zai-org/GLM-4.5") < rows.index("zai-org/GLM-4.5-Air") < rows.index("zai-org/GLM-4.5V")


def test_name_order_is_by_the_models_name_not_its_organisation(client, catalog):
    """google's gemma, zai-org's GLM, openai's gpt-oss, moonshotai's Kimi, meta-llama's Llama: the names' order."""
    page = parse(client.get("/en/models/?sort=name").content)
    names = [r.select("td")[0].select("a")[0].text for r in page.select("tr", data_hub_id=True)]
    assert names == sorted(names, key=lambda name: naming.natural_key(name))
    assert (
        names.index("gemma-3-27b-it")
        < names.index("GLM-5")
        < names.index("gpt-oss-20b")
        < names.index("Kimi-K2-Instruct")
    )
    assert names.index("Kimi-K2-Instruct") < names.index("Llama-3.1-8B-Instruct")


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("gptoss", {"openai/gpt-oss-20b", "openai/gpt-oss-120b"}),
        ("llama 3.1 8b", {"meta-llama/Llama-3.1-8B-Instruct"}),
        ("qwen3 30b", {"Qwen/Qwen3-30B-A3B"}),
        ("GLM 5.3", {"zai-org/GLM-5.3-Flash"}),
    ],
)
def test_search_ignores_hyphens_dots_and_case(client, catalog, query, expected):
    page = parse(client.get("/en/models/", {"q": query}).content)
    assert {r.attrs["data-hub-id"] for r in page.select("tr", data_hub_id=True)} == expected


@pytest.mark.parametrize(
    ("query", "expected"),
    [("deepsek", "deepseek-ai/DeepSeek-V3"), ("qwne3-8b", "Qwen/Qwen3-8B"), ("gema-2-9b", "google/gemma-2-9b-it")],
)
def test_a_search_with_a_typo_offers_the_models_it_looks_like(client, catalog, query, expected):
    page = parse(client.get("/en/models/", {"q": query}).content)
    assert page.select("tr", data_hub_id=True) == []  # no word of the catalog holds the typo
    assert query in page.one("p", id="close-matches-note").text
    links = [a.attrs["href"] for a in page.one("ul", **{"class": "close-matches"}).select("a")]
    assert f"/en/models/{expected}/" in links


def test_a_page_reads_its_model_row_once_per_state_of_the_catalog(catalog, django_assert_num_queries):
    """Model pages take their row from the process (parsing its config.json is a millisecond of every page) until
    the catalog changes: an import, the bundled load or an admin edit bumps its generation and the next page reads
    the row afresh."""
    from models_catalog.hub_ids import parse_hub_id
    from models_catalog.selectors import served_model
    from web.generations import CATALOG_GENERATION

    hub_id = parse_hub_id(QWEN.lower())
    with django_assert_num_queries(1):
        first = served_model(hub_id)
        assert served_model(parse_hub_id(QWEN)) is first
    assert first is not None and first.hub_id == QWEN
    Model.objects.filter(hub_id=QWEN).update(display_name="Qwen3 30B A3B (edited)")
    assert served_model(hub_id).display_name != "Qwen3 30B A3B (edited)"  # the catalog did not say it changed
    CATALOG_GENERATION.bump()
    with django_assert_num_queries(1):
        assert served_model(hub_id).display_name == "Qwen3 30B A3B (edited)"


@pytest.mark.parametrize("lang", ["en", "de"])
def test_family_filter_lists_families_by_the_name_the_reader_sees(client, catalog, lang):
    page = parse(client.get(f"/{lang}/models/").content)
    select = page.one("select", name="family")
    names = [option.text for option in select.select("option") if option.attrs["value"]]
    assert "Llama 3.2 Vision" in names and "Mixtral" in names
    assert names == sorted(names, key=naming.natural_key)  # "Llama 3.2 Vision" beside "Llama", not after "Mixtral"


def test_quick_filter_chips_turn_a_filter_on_and_off_and_keep_the_others(client, catalog):
    page = parse(client.get("/en/models/?size=over-150&page=2").content)
    chips = {a.text: a for a in page.one("nav", **{"class": "chips"}).select("a")}
    moe = chips["Mixture of experts"]
    assert "aria-current" not in moe.attrs
    assert moe.attrs["href"] == "/en/models/?size=over-150&moe=moe"  # from the first page, the size filter kept

    on = parse(client.get("/en/models/?size=over-150&moe=moe").content)
    chip = next(a for a in on.one("nav", **{"class": "chips"}).select("a") if a.text == "Mixture of experts")
    assert chip.attrs["aria-current"] == "true" and chip.attrs["href"] == "/en/models/?size=over-150"
    # two filters on: "All filters" opens and says so
    details = on.one("details", **{"class": "all-filters"})
    assert "open" in details.attrs and details.one("summary").text == "All filters (2 on)"
    assert "open" not in parse(client.get("/en/models/").content).one("details", **{"class": "all-filters"}).attrs
