"""What an engine release may look like before that engine's lines are asked which one covers it.

The lines' readers (``calculator.estimation.engines.releases``) keep only the digits of each dotted part, so "-1",
"1e9" or markup with a digit in it would read as a release and name a line. A release is first held to its
engine's own form here, one pattern per engine of ``ENGINE_RELEASE_LINES``: the page, the API and the CLI all ask
``covered``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from calculator.estimation.engines.releases import ENGINE_RELEASE_LINES

# A dotted release as the project tags it: "0.19", "v0.19.1", "0.4.10.post2", "0.11.0rc1".
DOTTED_RELEASE = re.compile(r"v?\d{1,4}(?:\.\d{1,4}){1,3}(?:\.?(?:post|rc|dev)\d{1,4})?", re.IGNORECASE | re.ASCII)
# A llama.cpp build: "b7500" or its number.
BUILD_NUMBER = re.compile(r"b?\d{1,6}", re.IGNORECASE | re.ASCII)

RELEASE_FORMS: Mapping[str, re.Pattern[str]] = {
    "vllm": DOTTED_RELEASE,
    "sglang": DOTTED_RELEASE,
    "llama.cpp": BUILD_NUMBER,
    "mlx": DOTTED_RELEASE,
}
MAX_RELEASE_CHARS = 32


def covered(engine: str, raw: str) -> bool:
    """Whether ``raw`` has ``engine``'s release form and one of its lines covers it."""
    text = raw.strip()
    if len(text) > MAX_RELEASE_CHARS or RELEASE_FORMS[engine].fullmatch(text) is None:
        return False
    return ENGINE_RELEASE_LINES[engine].covers(text)
