"""Which deployment modes apply at which weight precision: one rule for the pages, the API and the CLI.

LoRA trains adapters on a frozen 16-bit base (Hu et al., arXiv:2106.09685); on a 4-bit base the same recipe is
QLoRA (Dettmers et al., arXiv:2305.14314), which quantizes the frozen base to NF4 — so QLoRA at 16 bits is not
QLoRA. Full fine-tuning updates every weight in mixed precision (16-bit weights, fp32 master copy and moments,
docs/methodology.md §6.1), so it does not run on an 8- or 4-bit base. Inference runs at every precision.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..precision import get_precision
from ..workload import Mode

SIXTEEN_BIT_FAMILIES = frozenset({"float"})
FOUR_BIT_KEYS = frozenset({"int4", "nf4"})


@dataclass(frozen=True, slots=True)
class ModeChoice:
    """The mode and precision an estimate should use for a requested pair, and why it differs if it does."""

    mode: Mode
    precision: str
    applies: bool  # False: the requested pair does not exist as asked
    reason: str = ""  # "lora_on_4bit_is_qlora" | "qlora_needs_4bit_base" | "full_needs_16bit" | "lora_needs_16bit"


def _is_16_bit(precision: str) -> bool:
    found = get_precision(precision)
    return found is not None and found.family in SIXTEEN_BIT_FAMILIES and found.nominal_bits >= 16


def _is_4_bit(precision: str) -> bool:
    return precision.strip().lower() in FOUR_BIT_KEYS


def choose_mode(mode: Mode | str, precision: str) -> ModeChoice:
    """What to compute when a reader asks for ``mode`` at ``precision``."""
    mode = Mode(mode)
    if mode is Mode.INFERENCE:
        return ModeChoice(mode, precision, True)
    if mode is Mode.LORA:
        if _is_16_bit(precision):
            return ModeChoice(mode, precision, True)
        if _is_4_bit(precision):
            return ModeChoice(Mode.QLORA, "int4", False, "lora_on_4bit_is_qlora")
        return ModeChoice(mode, "fp16", False, "lora_needs_16bit")
    if mode is Mode.QLORA:
        if _is_4_bit(precision):
            return ModeChoice(mode, precision, True)
        return ModeChoice(mode, "int4", False, "qlora_needs_4bit_base")
    if _is_16_bit(precision):
        return ModeChoice(mode, precision, True)
    return ModeChoice(mode, "fp16", False, "full_needs_16bit")
