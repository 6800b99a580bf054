"""Reader-facing wording the calculator adds to core output: every architecture note and source note in German."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.utils import translation

from calculator.labels import source_detail, spec_note
from models_catalog.specs import SpecUnavailable, spec_from_recorded_folder

HUB = Path(__file__).resolve().parents[2] / "models_catalog" / "data" / "hub"


def _notes() -> list[str]:
    notes: set[str] = set()
    for folder in sorted(p for p in HUB.glob("*/*") if p.is_dir()):
        try:
            notes.update(spec_from_recorded_folder(folder).notes)
        except SpecUnavailable:
            continue
    return sorted(notes)


@pytest.mark.parametrize("note", _notes())
def test_every_architecture_note_of_the_catalog_reads_in_german(note):
    with translation.override("de"):
        german = spec_note(note)
    with translation.override("en"):
        english = spec_note(note)
    assert german != note and german != english
    assert "%(" not in german and "%(" not in english


def test_source_notes_we_wrote_read_in_german_and_titles_stay_as_published():
    with translation.override("de"):
        hub = source_detail("Hugging Face Hub facts for Qwen/Qwen3-8B, recorded 2026-11-29 from its listed sources")
        title = source_detail("ReviewRamble, 'GLM-5.3-Flash GPU-Anforderungen' (German model page)")
    assert hub.startswith("Hugging-Face-Hub-Seite von Qwen/Qwen3-8B") and "29. Nov. 2026" in hub
    assert title == "ReviewRamble, 'GLM-5.3-Flash GPU-Anforderungen' (German model page)"


def test_family_names_read_as_architectures_not_config_keys():
    from calculator.labels import family_name

    assert family_name("qwen3_moe") == "Qwen3 MoE"
    assert family_name("gpt_oss") == "gpt-oss"
    assert family_name("glm5_next") == "GLM-5 Next"
    assert family_name("falcon_h1") == "Falcon H1"  # unlisted: the rule
    assert family_name("") == ""
    with translation.override("de"):
        assert family_name("generic") == "andere Architektur"


@pytest.mark.parametrize(
    ("note", "english", "german"),
    [
        (
            "The checkpoint stores 7.43 B parameters of multi-token-prediction layers; engines load them only for MTP.",
            "7.43 B",
            "7,43 Mrd.",
        ),
        (
            "Chunked local attention layers keep at most one chunk (8,192 tokens), so they are counted as windows.",
            "8,192 tokens",
            "8.192 Tokens",
        ),
    ],
)
def test_numbers_in_notes_follow_the_readers_locale(note, english, german):
    with translation.override("en"):
        assert english in spec_note(note)
    with translation.override("de"):
        assert german in spec_note(note)
