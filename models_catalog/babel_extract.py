"""Message extraction for the texts we wrote in ``data/reference_facts.json`` (how a document is cited, a build's
quality note and descriptive label, as ``records.reference_texts`` lists them): `make messages` reads them with this
Babel extraction method (``babel.cfg``), so the German pages show them in German like any other text of ours."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import IO, Any

from models_catalog.records import reference_texts


def extract_reference_facts(
    fileobj: IO[bytes], keywords: Any, comment_tags: Any, options: Any
) -> Iterator[tuple[int, str, str, list[str]]]:
    """Babel's extraction-method signature: (line, function name, message, translator comments) per text."""
    for text in reference_texts(json.load(fileobj)):
        yield 1, "gettext", text, ["A text of ours about a source or a build (reference_facts.json)"]
