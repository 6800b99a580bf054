"""The reader's notes on a model: which caveat applies (a key) and its figures, kept as data.

Pages say a note in the reader's language from its key and format its numbers in the reader's locale
(``calculator.labels.spec_note``); ``SpecNote.text`` says it in English for everything else (the catalog's
stored notes, ``ModelSpec.summary``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum

NoteValue = str | int | float


class NoteKey(StrEnum):
    """Every note the reader writes; the parameters each one carries are named in ``_ENGLISH`` below."""

    ACTIVE_MOE = "active_moe"
    ACTIVE_MOE_TIED = "active_moe_tied"
    ACTIVE_DENSE = "active_dense"
    ACTIVE_DENSE_TIED = "active_dense_tied"
    MTP_STORED = "mtp_stored"  # parameters
    MTP_NOT_STORED = "mtp_not_stored"
    HUB_ELEMENTS = "hub_elements"  # elements, method, parameters
    TIED_HEAD_STORED = "tied_head_stored"
    VISION_ESTIMATED = "vision_estimated"
    VISION_NOT_COUNTED = "vision_not_counted"
    MHC_NOT_COUNTED = "mhc_not_counted"
    CROSS_ATTENTION = "cross_attention"
    CHUNKED_ATTENTION = "chunked_attention"  # tokens
    WINDOW_NOT_SHORTER = "window_not_shorter"  # tokens
    WINDOW_MISSING = "window_missing"
    UNKNOWN_ARCHITECTURE = "unknown_architecture"  # model_type
    CONFIG_UNREADABLE = "config_unreadable"  # error


@dataclass(frozen=True, slots=True)
class SpecNote:
    """One note: its key and its parameters as (name, value) pairs, sorted by name so equal notes hash equal."""

    key: str
    params: tuple[tuple[str, NoteValue], ...] = ()

    @classmethod
    def of(cls, key: str, **params: NoteValue) -> SpecNote:
        return cls(key, tuple(sorted(params.items())))

    @property
    def values(self) -> dict[str, NoteValue]:
        return dict(self.params)

    @property
    def text(self) -> str:
        """The note in English."""
        english = _ENGLISH.get(self.key)
        if english is None:
            return " ".join([self.key, *(f"{name}={value}" for name, value in self.params)])
        return english(self.values)


def _billions(value: NoteValue) -> str:
    return f"{float(value) / 1e9:.2f}"


def _active(experts: bool, tied: bool) -> str:
    return (
        "Computed active parameters count what one token multiplies: attention, norms, "
        + ("the router, shared experts and the routed experts it is sent to, " if experts else "the MLP, ")
        + (
            "and the tied embedding, read in full as the output head."
            if tied
            else "and the output head; the input embedding table is excluded (one row is read per token), "
            "the convention OpenAI uses for gpt-oss."
        )
    )


def stored_as(method: str) -> str:
    """What a quantized release stores besides its parameters, by quantization method."""
    return {
        "fp8": "FP8 block-scale tensors",
        "mxfp4": "MXFP4 packing and E8M0 scales",
        "nvfp4": "NVFP4 packing and FP8 scales",
    }.get(method, f"{method} packing and scale/zero tensors")


_ENGLISH: dict[str, Callable[[Mapping[str, NoteValue]], str]] = {
    NoteKey.ACTIVE_MOE: lambda _: _active(experts=True, tied=False),
    NoteKey.ACTIVE_MOE_TIED: lambda _: _active(experts=True, tied=True),
    NoteKey.ACTIVE_DENSE: lambda _: _active(experts=False, tied=False),
    NoteKey.ACTIVE_DENSE_TIED: lambda _: _active(experts=False, tied=True),
    NoteKey.MTP_STORED: lambda p: (
        f"The checkpoint stores {_billions(p['parameters'])} B parameters of multi-token-prediction layers; "
        "engines skip them unless MTP speculative decoding is on."
    ),
    NoteKey.MTP_NOT_STORED: lambda _: (
        "MiniMax declares multi-token-prediction modules that its Hub checkpoint does not store."
    ),
    NoteKey.HUB_ELEMENTS: lambda p: (
        f"The Hub counts {_billions(p['elements'])} B stored elements; that includes {stored_as(str(p['method']))}, "
        f"so the checkpoint holds {_billions(p['parameters'])} B parameters."
    ),
    NoteKey.TIED_HEAD_STORED: lambda _: (
        "The checkpoint stores lm_head.weight separately although tie_word_embeddings is true."
    ),
    NoteKey.VISION_ESTIMATED: lambda _: (
        "The vision tower is not fully described by this config.json; its parameters are a plain-ViT estimate."
    ),
    NoteKey.VISION_NOT_COUNTED: lambda _: (
        "The vision tower is not fully described by this config.json; its parameters are not counted."
    ),
    NoteKey.MHC_NOT_COUNTED: lambda _: (
        "The hyper-connection (mHC) mixing parameters are not counted (the config does not size them)."
    ),
    NoteKey.CROSS_ATTENTION: lambda _: (
        "Cross-attention layers cache the image tokens' keys and values (per image, not per text "
        "token); they are listed with no per-token cache."
    ),
    NoteKey.CHUNKED_ATTENTION: lambda p: (
        f"Chunked local attention layers keep at most one chunk ({int(p['tokens']):,} tokens), "
        "shown as a sliding window."
    ),
    NoteKey.WINDOW_NOT_SHORTER: lambda p: (
        f"The sliding window ({int(p['tokens']):,} tokens) is not shorter than the context; layers cache every token."
    ),
    NoteKey.WINDOW_MISSING: lambda _: (
        "Sliding-window layers without a sliding_window size are treated as full attention."
    ),
    NoteKey.UNKNOWN_ARCHITECTURE: lambda p: (
        f"Unknown architecture {str(p['model_type'])!r}: read as a standard decoder-only transformer."
    ),
    NoteKey.CONFIG_UNREADABLE: lambda p: (
        f"This config.json could not be read ({p['error']}); all figures are estimates."
    ),
}


def active_note(experts: bool, tied: bool) -> SpecNote:
    """What the computed active count covers (docs/methodology.md §1.4)."""
    if experts:
        return SpecNote.of(NoteKey.ACTIVE_MOE_TIED if tied else NoteKey.ACTIVE_MOE)
    return SpecNote.of(NoteKey.ACTIVE_DENSE_TIED if tied else NoteKey.ACTIVE_DENSE)
