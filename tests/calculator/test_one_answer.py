"""One answer per model and machine, whichever surface asks: the consistency matrix.

Twelve catalog models (dense, tied embeddings, MoE, MLA, hybrid linear attention, sliding window, MXFP4, FP8
releases with and without published builds, vision-language, several-node needs) × the machines readers ask about
(RTX 4090, Macs with 24 / 64 / 128 GB, H100, H200, MI300X, B200). For each pair the "can it run" page, the model
page's local section, its JSON twin, the home page's lists, the GPU page, the model page's ranking and the command
line state the same verdict, precision, need and GPU count (8K tokens, one request, the precision the model ships
in). Each surface once had its own rule: Qwen3-30B-A3B "does not fit" a 24 GB Mac on its page and was recommended
for it on the can-it-run page.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import call_command
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from calculator.formatting import format_gb
from models_catalog import services
from tests.calculator.estimate_cli import run
from tests.calculator.test_sourcing import check_script
from tests.models_catalog.html import parse
from tests.support import module_rows

SHIPPED = Path(services.__file__).resolve().parent / "data" / "hub"
MODELS = (
    "meta-llama/Llama-3.1-8B-Instruct",  # dense
    "meta-llama/Llama-3.2-3B-Instruct",  # tied embeddings
    "Qwen/Qwen3-30B-A3B",  # MoE
    "deepseek-ai/DeepSeek-V2-Lite",  # MLA
    "Qwen/Qwen3-Next-80B-A3B-Instruct",  # hybrid linear attention
    "google/gemma-3-27b-it",  # sliding window, vision
    "openai/gpt-oss-120b",  # MXFP4 release
    "zai-org/GLM-5.3-Flash",  # FP8 release with published MLX builds
    "deepseek-ai/DeepSeek-V3",  # FP8 release, MLA, needs several H100 nodes at FP16
    "Qwen/Qwen2.5-VL-7B-Instruct",  # vision-language
    "mistralai/Mixtral-8x7B-Instruct-v0.1",  # MoE
    "meta-llama/Llama-3.1-405B",  # several nodes of 80 GB cards
)
LOCAL_GPUS = ("rtx-4090",)
MACS = (24, 64, 128)
DATACENTER = ("h100-sxm", "h200-sxm", "mi300x", "b200")

pytestmark = [pytest.mark.django_db, pytest.mark.xdist_group("one-answer"), pytest.mark.slow]


def _write_site() -> None:
    services.model_import_offline(SHIPPED, only=list(MODELS))
    call_command("loaddata", "seed_offers_2026-11-13", verbosity=0)


_site_rows = module_rows(_write_site)


@pytest.fixture
def site(_site_rows, db):
    """The twelve models and the seed offers, written once for the module."""


def _runs_on(client, hub_id: str, machine: str):
    response = client.get(f"/en/models/{hub_id}/runs-on/{machine}/")
    assert response.status_code == 200, (hub_id, machine)
    return parse(response.content)


@pytest.mark.parametrize("hub_id", MODELS)
def test_local_machines_get_one_verdict_on_every_surface(client, site, hub_id):
    page = parse(
        client.get(f"/en/models/{hub_id}/?show=local-cards-body,local-macs-body").content
    )  # the opened chapter
    api = json.loads(client.get("/api/v1/estimate", {"model": hub_id}).content)["local"]
    api_gpus = {v["gpu"]: v for v in api["gpus"]}
    api_macs = {m["ram_gib"]: m for m in api["macs"]}
    for machine in (*LOCAL_GPUS, *(f"mac-{gib}" for gib in MACS)):
        verdict = _runs_on(client, hub_id, machine).one(id="verdict")
        fits, need = verdict.attrs["data-fits"] == "true", verdict.attrs["data-need-bytes"]
        if machine.startswith("mac-"):
            gib = int(machine[4:])
            row = page.one("tr", data_mac_gib=str(gib))
            assert (row.attrs["data-verdict"] != "no") is fits, (hub_id, machine)
            assert row.attrs["data-need-bytes"] == need, (hub_id, machine)
            assert (api_macs[gib]["verdict"] != "no") is fits
            assert str(api_macs[gib]["best_need_bytes"] or "") == need
        else:
            row = page.one("tr", data_local_gpu=machine)
            assert (row.attrs["data-fits"] == "true") is fits, (hub_id, machine)
            assert row.attrs["data-need-bytes"] == need, (hub_id, machine)
            assert str(api_gpus[machine]["best_need_bytes"] or "") == need
        if fits:  # the command line, asked for that precision with the engine sized for the machine
            best = verdict.attrs["data-best"]
            if not best.startswith("build:"):
                cli = run(hub_id, "--gpu", machine, "--engine", "llama.cpp", "--precision", best)
                assert str(cli["total_bytes"]) == need, (hub_id, machine, best)


def test_the_home_lists_name_what_the_can_it_run_pages_answer(client, site):
    home = parse(client.get("/en/").content)
    for list_id, machine in (("on-card", "rtx-4090"), ("on-mac", "mac-64")):
        for item in home.one("ul", id=list_id).select("li"):
            link = item.select("a")[0].attrs["href"]
            assert link.endswith(f"runs-on/{machine}/")
            verdict = parse(client.get(link).content).one(id="verdict")
            assert verdict.attrs["data-fits"] == "true"
            assert item.one("span", data_precision=True).attrs["data-precision"] == verdict.attrs["data-best"]


@pytest.mark.parametrize("gpu", DATACENTER)
def test_datacenter_gpus_get_one_count_on_every_surface(client, site, gpu):
    """The count, and the split an engine runs on it, on the runs-on and GPU pages, the API, the FAQ and the command
    line: a count within a node runs on exactly those GPUs, beyond a node on whole nodes (docs/methodology.md §4.9)."""
    gpu_page = parse(client.get(f"/en/gpus/{gpu}/").content)
    counts = {r.attrs["data-model"]: r for r in gpu_page.one("table", id="models-on-gpu").select("tr", data_model=True)}
    for hub_id in MODELS:
        runs_on = _runs_on(client, hub_id, gpu)
        article = runs_on.one("article")
        assert article.attrs["data-hardware"] == gpu
        cli = run(hub_id, "--gpu", gpu)
        released = cli["workload"]["precision"]
        units = runs_on.one("tr", data_option=released).attrs["data-units"]
        assert str(cli["gpus"][0]["count"]) == units, (hub_id, gpu)
        name = hub_id.split("/")[1]
        row = next((r for key, r in counts.items() if key.endswith(name) or name.startswith(key)), None)
        if row is not None:
            assert row.one("td", data_precision=released).attrs["data-count"] == units, (hub_id, gpu)
        api = json.loads(client.get("/api/v1/estimate", {"model": hub_id}).content)
        layout = (cli["gpus"][0]["tensor_parallel"], cli["gpus"][0]["pipeline_parallel"])
        for offer in api["gpus"]["by_gpu"]:
            if offer["gpu"] == gpu:
                assert str(offer["gpus_needed"]) == str(cli["gpus"][0]["memory_count"]), (hub_id, gpu)
                if offer["instance_gpus"] == int(units):  # an instance of exactly the count runs the same split
                    assert (offer["tensor_parallel"], offer["pipeline_parallel"]) == layout, (hub_id, gpu)
        if gpu == "h100-sxm":  # the FAQ counts H100s at the precision the model ships in
            faq = next(item for item in api["faq"] if item["key"] == "count")
            assert f"{units} × 80 GB" in faq["answer"].replace("\xa0", " "), (hub_id, faq["answer"])
        several = {c["gpu_name"]: c for c in api["gpus"]["several_nodes"]}
        if int(units) > 8:  # the page's several-node list names the GPUs an engine runs
            listed = several[cli["gpus"][0]["name"]]
            assert (listed["gpus_run"], listed["nodes"]) == (int(units), cli["gpus"][0]["nodes"]), (hub_id, gpu)


@pytest.mark.parametrize("hub_id", MODELS)
def test_the_mac_command_starts_what_the_mac_table_says_on_the_mac_it_names(client, site, hub_id):
    """ "Start it" once gave an 8-bit MLX command for a 16 GB Mac the table said needed INT4."""
    data = json.loads(client.get("/api/v1/estimate", {"model": hub_id}).content)
    smallest = next((m for m in data["local"]["macs"] if m["verdict"] != "no"), None)
    commands = data["commands"]
    if smallest is None:
        assert commands["mac_gib"] is None and commands["mac"] is None
        return
    assert commands["mac_gib"] == smallest["ram_gib"], hub_id
    source = commands["mac_source"]
    widths = {"int4": ("mlx-4bit",), "int8": ("mlx-8bit", "mlx-6bit", "mlx-4bit"), "fp16": ("fp16", "mlx-8bit")}
    if commands["mac"] is None:
        assert source["kind"] == "none" and source["missing"], hub_id
    elif smallest["best_key"] in widths:
        assert source["precision"] in widths[smallest["best_key"]], (hub_id, smallest, source)
        if source["precision"].startswith("mlx-"):
            bits = source["precision"][4:-3]
            assert f"--q-bits {bits}" in commands["mac"] or source["kind"] == "published"


# --- one plan per state: random calculator states, every surface of the model page -----------------------------------

STATE_MODELS = ("zai-org/GLM-5.3-Flash", "deepseek-ai/DeepSeek-V3", "openai/gpt-oss-120b", "Qwen/Qwen3-30B-A3B")


@settings(max_examples=24, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    hub_id=st.sampled_from(STATE_MODELS),
    precision=st.sampled_from(("", "fp16", "fp8", "int8", "int4")),
    context=st.sampled_from((2048, 8192, 32768, 131072)),
    concurrency=st.sampled_from((1, 4, 16, 64)),
    engine=st.sampled_from(("vllm", "sglang")),
)
# the latent overflows tensor-parallel ranks: the cheapest instances run data-parallel attention
# (docs/methodology.md §4.11)
@example(hub_id="deepseek-ai/DeepSeek-V3", precision="", context=131072, concurrency=16, engine="vllm")
@example(hub_id="deepseek-ai/DeepSeek-V3", precision="", context=131072, concurrency=16, engine="sglang")
def test_one_plan_per_state_on_the_page_its_json_its_markdown_and_its_command(
    client, site, hub_id, precision, context, concurrency, engine
):
    query = {"context": str(context), "concurrency": str(concurrency), "engine": engine}
    if precision:
        query["precision"] = precision
    response = client.get("/api/v1/estimate", {"model": hub_id, **query})
    if response.status_code == 400:  # a precision this model's form does not offer
        return
    data = json.loads(response.content)
    page = parse(client.get(f"/en/models/{hub_id}/", query).content)
    need = data["summary"]["need_bytes"]
    assert page.one("h2", id="summary-heading").attrs["data-need-bytes"] == str(need)
    assert need == data["breakdown"]["total_bytes"]
    markdown = client.get(f"/en/models/{hub_id}.md", query).content.decode()
    assert format_gb(need).replace("\xa0", " ") in markdown.replace("\xa0", " ")
    commands, ranking = data["commands"], data["gpus"]["by_gpu"]
    if not ranking:
        assert commands["cloud"] is None
        return
    cheapest = ranking[0]
    assert data["summary"]["cheapest"]["per_hour_usd"] == cheapest["per_hour_usd"]
    if commands["cloud"] is not None:
        assert commands["cloud_gpus"] == cheapest["engine_gpus"]
        page_heading = page.one("section", id="commands").select("h3")[0].text
        assert page_heading.startswith(f"On the cheapest configuration ({cheapest['instance_gpus']} × ")
        tp, pp, dp = cheapest["tensor_parallel"], cheapest["pipeline_parallel"], cheapest["attention_data_parallel"]
        if dp > 1:  # data-parallel attention: vLLM one engine per GPU, SGLang TP with as many attention ranks
            spelled = (f"--data-parallel-size {dp} --enable-expert-parallel", f"--tp {tp} --dp-size {dp}")
            assert any(text in commands["cloud"] for text in spelled)
        else:
            assert (f"--tensor-parallel-size {tp}" in commands["cloud"] or f"--tp {tp}" in commands["cloud"]) == (
                tp > 1
            )
        assert (str(pp) in commands["cloud"]) if pp > 1 else ("--pipeline-parallel-size" not in commands["cloud"])
        assert check_script(commands["cloud"], hub_id, set(), commands["cloud_source"]["released"] == "fp16") == []
    else:
        assert commands["cloud_source"]["kind"] == "none"


def test_the_summary_cheapest_is_the_first_ranking_row_with_its_split(client, site):
    data = json.loads(client.get("/api/v1/estimate", {"model": "zai-org/GLM-5.3-Flash"}).content)
    assert data["summary"]["cheapest"] == data["gpus"]["by_gpu"][0]
    assert data["summary"]["cheapest"]["tensor_parallel"] is not None


def test_the_catalog_list_states_each_models_headline_as_its_page_does(client, site):
    """The catalog's "needs as released" and "cheapest per hour" columns are the model page's default answer."""
    page = parse(client.get("/en/models/", {"sort": "size"}).content)
    rows = {row.attrs["data-hub-id"]: row for row in page.select("tr", data_hub_id=True)}
    for hub_id in MODELS:
        data = json.loads(client.get("/api/v1/estimate", {"model": hub_id}).content)
        row = rows[hub_id]
        assert row.one("td", data_need_bytes=True).attrs["data-need-bytes"] == str(data["summary"]["need_bytes"])
        cheapest = data["summary"]["cheapest"]
        per_hour = row.one("td", data_per_hour=True).attrs["data-per-hour"]
        if cheapest is None:
            assert per_hour == ""
        else:
            assert float(per_hour) == pytest.approx(cheapest["per_hour_usd"], abs=0.005)
