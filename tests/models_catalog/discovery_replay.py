"""The replayed Hub that discovery reads (tests/data/hub/discovery/, with the import's Qwen3-30B-A3B recordings), and
the catalog it starts from: four models of the bundled data."""

from __future__ import annotations

import httpx
import respx

from models_catalog import services
from models_catalog.models import Model
from models_catalog.records import DATA_DIR
from tests.models_catalog.hub_replay import ENDPOINT, QWEN_SET, mount, recording

SHIPPED = DATA_DIR / "hub"
NEW_RELEASE = "Qwen/Qwen3-0.6B"
NOT_SIZABLE = "state-spaces/mamba-130m-hf"
GATED = "meta-llama/Llama-3.2-11B-Vision-Instruct"
BELOW_FLOOR = "hf-internal-testing/tiny-random-LlamaForCausalLM"
WITH_BUILDS = "Qwen/Qwen3-30B-A3B"
MOVING = "meta-llama/Llama-3.1-8B-Instruct"  # gated, licence llama3.1: facts the bundled data does not hold
UNCHANGED = "google/gemma-2-9b-it"
DELETED = "mistralai/Mistral-7B-Instruct-v0.3"  # the replay answers 404 RepoNotFound for it
CATALOG = (WITH_BUILDS, MOVING, UNCHANGED, DELETED)

# Specific routes first: a recording without a query (listing_none) answers every other listing.
DISCOVERY_SET = (
    *(f"discovery/{n}" for n in ("listing_text-generation_trending", "listing_text-generation_downloads")),
    "discovery/listing_text-generation_created",
    "discovery/listing_image-text-to-text",
    *QWEN_SET,
    "model_info_Llama-3.1-8B-Instruct_gated",
    *(f"discovery/{n}" for n in ("model_info_Qwen3-0.6B", "config_Qwen3-0.6B")),
    *(f"discovery/{n}" for n in ("model_info_mamba-130m-hf", "config_mamba-130m-hf")),
    "discovery/model_info_Llama-3.2-11B-Vision-Instruct_gated",
    "discovery/config_Llama-3.2-11B-Vision-Instruct_401_gated",
    "discovery/model_info_gemma-2-9b-it",
    "discovery/model_info_Meta-Llama-3.1-70B-Instruct_moved",
    "discovery/model_info_Llama-3.1-70B-Instruct",
    "discovery/listing_none",
)


def catalog_write() -> None:
    """The starting catalog; the unchanged model's Hub facts as the run the day before recorded them."""
    services.model_import_offline(SHIPPED, only=CATALOG)
    body = recording("discovery/model_info_gemma-2-9b-it")["json"]
    Model.objects.filter(hub_id=UNCHANGED).update(
        likes=body["likes"], gated=body["gated"], licence=body["cardData"]["license"], hub_sha=body["sha"]
    )


def mount_all(router: respx.MockRouter, names: tuple[str, ...] = DISCOVERY_SET) -> None:
    for name in names:
        mount(router, name, ENDPOINT)
    # what the replay has no recording for is gone from the Hub, as the local replay server answers it
    router.get(url__regex=rf"^{ENDPOINT}/api/models/.*").mock(return_value=_not_found())


def _not_found() -> httpx.Response:
    return httpx.Response(404, headers={"X-Error-Code": "RepoNotFound"}, json={"error": "Repository not found"})
