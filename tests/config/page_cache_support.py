"""What the page cache tests share: the shipped catalog they import, the model page they read, the pattern of a
reader's CSRF token in a page, and whether a response came from the cache."""

from __future__ import annotations

import re
from pathlib import Path

from models_catalog import services

SHIPPED = Path(services.__file__).resolve().parent / "data" / "hub"
GLM_ID = "zai-org/GLM-5.3-Flash"
GLM = f"/en/models/{GLM_ID}/"
TOKEN = re.compile(rb'name="csrfmiddlewaretoken" value="([A-Za-z0-9]{64})"')


def cache_state(response) -> str | None:
    """The page cache's ``X-Cache`` answer: "HIT", "MISS", or None when the page cache left the response alone."""
    return response.get("X-Cache")
