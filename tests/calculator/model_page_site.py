"""The model-page tests' site: the shipped catalog, the seed offers and the API prices, and the page fetcher they share.

The seed state (GLM-5.3-Flash, 8K context, one request, vLLM, FP16 KV) and its offers come from ReviewRamble's German
page "GLM-5.3-Flash GPU-Anforderungen: VRAM und günstigste GPU", prices captured 2026-11-13
(`pricing/fixtures/seed_offers_2026-11-13.json`). The page's need is what vLLM allocates, not the reference page's rule
(its 708 / 372 / 187 GB are reproduced in test_estimation_seed.py): at FP16 the 313,867,932,384 parameters vLLM loads
(the MTP layer left out) × 2 B = 627.7 GB, the 11 MLA layers' latent and indexer keys and the 34 linear-attention states
(0.25 GB) and vLLM 0.34's start-up budget (5.32 GB: profiled peak 3.28, CUDA graphs 1.12, non-torch 0.27, CUDA context
0.66) = 633 GB; at FP8 (8.036 bits) 321 GB, INT8 335 GB, INT4 170 GB.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management import call_command

from models_catalog import services
from pricing.api_price_services import api_prices_load
from tests.models_catalog.html import Element, parse

SHIPPED = Path(services.__file__).resolve().parent / "data" / "hub"
GLM = "/en/models/zai-org/GLM-5.3-Flash/"
GLM_DE = "/de/models/zai-org/GLM-5.3-Flash/"
# The reference page's figures are GLM-5.3-Flash's BF16 ones; the page's default is the FP8 it is released in.
GLM_FP16 = GLM + "?precision=fp16"
GLM_DE_FP16 = GLM_DE + "?precision=fp16"


def write_seed_site() -> None:
    """The shipped catalog, the seed offers and the API prices (a module writes them once: tests.support)."""
    services.model_import_offline(SHIPPED)
    call_command("loaddata", "seed_offers_2026-11-13", verbosity=0)
    api_prices_load()


def get_page(client: Any, path: str, **headers: str) -> tuple[Any, Element]:
    """The response to ``path`` (200 asserted) and its parsed HTML."""
    response = client.get(path, headers=headers)
    assert response.status_code == 200, response.content[:500]
    return response, parse(response.content)


def cells(row: Element) -> list[str]:
    return [c.text for c in row.select("td")]
