from __future__ import annotations

import pytest

from models_catalog.hub_ids import InvalidHubId, parse_hub_id


@pytest.mark.parametrize(
    "text",
    [
        "zai-org/GLM-5.3-Flash",
        "Qwen/Qwen3-30B-A3B",
        "mlx-community/Qwen3-30B-A3B-4bit",
        "a/b",
        "x" * 96 + "/" + "y" * 96,
    ],
)
def test_hub_ids_the_hub_allows_are_accepted(text):
    parsed = parse_hub_id(text)
    assert parsed.value == text
    assert "/" not in parsed.slug


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "../../etc",
        "../../etc/passwd",
        "org/..",
        "org/a..b",
        "org/a--b",
        "-org/name",
        "org/name-",
        "org/.name",
        "org/name.",
        "x" * 97 + "/name",
        "org/" + "n" * 97,
        "org/" + "n" * 300,
        "a" * 300,
        "org/näme",
        "оrg/name",  # Cyrillic "о"
        "org/name/extra",
        "orgname",
        "org/na me",
        "org/name?x=1",
        "org/name\x00",
        "org/name%2F..",
    ],
)
def test_bad_hub_ids_are_rejected(text):
    with pytest.raises(InvalidHubId):
        parse_hub_id(text)
