"""Reader-facing wording the calculator adds to core output: a message for every architecture note, numbers in the
reader's locale, and the source notes we wrote in German."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.utils import translation

from calculator import labels
from calculator.labels import NOTE_MESSAGES, source_detail, spec_note
from models_catalog.architecture import NoteKey, SpecNote
from models_catalog.specs import SpecUnavailable, spec_from_recorded_folder

HUB = Path(__file__).resolve().parents[2] / "models_catalog" / "data" / "hub"

# One note of each key with the figures the core gives it (notes without figures take none), and how English
# writes those figures.
EXAMPLES: dict[NoteKey, tuple[SpecNote, str]] = {key: (SpecNote.of(key), "") for key in NoteKey} | {
    NoteKey.MTP_STORED: (SpecNote.of(NoteKey.MTP_STORED, parameters=7_430_000_000), "stores 7.43 B parameters"),
    NoteKey.HUB_ELEMENTS: (
        SpecNote.of(NoteKey.HUB_ELEMENTS, elements=1_026_470_000_000, method="fp8", parameters=1_000_000_000_000),
        "counts 1,026.47 B stored elements, including FP8 block-scale tensors; the checkpoint holds 1,000.00 B",
    ),
    NoteKey.CHUNKED_ATTENTION: (SpecNote.of(NoteKey.CHUNKED_ATTENTION, tokens=8192), "(8,192 tokens)"),
    NoteKey.WINDOW_NOT_SHORTER: (SpecNote.of(NoteKey.WINDOW_NOT_SHORTER, tokens=262_144), "(262,144 tokens)"),
    NoteKey.UNKNOWN_ARCHITECTURE: (
        SpecNote.of(NoteKey.UNKNOWN_ARCHITECTURE, model_type="newformer"),
        "Unknown architecture 'newformer':",
    ),
    NoteKey.CONFIG_UNREADABLE: (SpecNote.of(NoteKey.CONFIG_UNREADABLE, error="TypeError"), "(TypeError)"),
}


def _catalog_notes() -> list[SpecNote]:
    notes: set[SpecNote] = set()
    for folder in sorted(p for p in HUB.glob("*/*") if p.is_dir()):
        try:
            notes.update(spec_from_recorded_folder(folder).notes)
        except SpecUnavailable:
            continue
    return sorted(notes, key=repr)


def test_every_note_key_the_core_can_write_has_a_message():
    assert [key for key in NoteKey if key not in NOTE_MESSAGES] == []


@pytest.mark.parametrize("key", list(NoteKey))
def test_every_note_key_reads_with_its_figures_filled_in(key):
    example, figures = EXAMPLES[key]
    with translation.override("de"):
        german = spec_note(example)
    with translation.override("en"):
        english = spec_note(example)
    assert "%(" not in german and "%(" not in english
    assert german != english  # every note reads in German on a German page
    assert figures in english


@pytest.mark.parametrize("note", _catalog_notes(), ids=repr)
def test_every_architecture_note_of_the_catalog_reads_in_german(note):
    with translation.override("de"):
        german = spec_note(note)
    with translation.override("en"):
        english = spec_note(note)
    assert german != english and german != note.text
    assert "%(" not in german and "%(" not in english


@pytest.mark.parametrize(
    ("note", "english", "german"),
    [
        (SpecNote.of(NoteKey.MTP_STORED, parameters=7_430_000_000), "7.43 B", "7,43 Mrd."),
        (SpecNote.of(NoteKey.CHUNKED_ATTENTION, tokens=8192), "8,192 tokens", "8.192 Tokens"),
        (
            SpecNote.of(NoteKey.HUB_ELEMENTS, elements=1_026_470_000_000, method="fp8", parameters=999_994_000_000),
            "1,026.47 B stored elements, including FP8 block-scale tensors; the checkpoint holds 999.99 B",
            "1.026,47 Mrd.",
        ),
    ],
)
def test_numbers_in_notes_follow_the_readers_locale(note, english, german):
    with translation.override("en"):
        assert english in spec_note(note)
    with translation.override("de"):
        assert german in spec_note(note)


def test_a_note_without_a_message_reads_as_the_core_writes_it_in_english(monkeypatch):
    note = SpecNote.of(NoteKey.MTP_STORED, parameters=7_430_000_000)
    monkeypatch.delitem(labels.NOTE_MESSAGES, NoteKey.MTP_STORED)

    with translation.override("de"):
        assert spec_note(note) == note.text
        assert spec_note(SpecNote.of("a_key_from_elsewhere", tokens=3)) == "a_key_from_elsewhere tokens=3"
        assert spec_note("A note kept as text.") == "A note kept as text."


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


def test_family_options_read_in_name_order_with_other_architectures_last():
    keys = ["qwen3", "generic", "mllama", "mixtral", "llama4", "gpt_oss", "llama", "GLM_custom"]
    with translation.override("de"):
        names = [name for _key, name in labels.family_options(keys)]
    assert names == [
        "GLM Custom",
        "gpt-oss",
        "Llama",
        "Llama 3.2 Vision",
        "Llama 4",
        "Mixtral",
        "Qwen3",
        "andere Architektur",
    ]
