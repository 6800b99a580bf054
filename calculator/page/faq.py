"""The figures the model's common questions are answered with."""

from __future__ import annotations

from dataclasses import dataclass

from calculator.estimation import GB, Mode, gpus_needed, usable_bytes

from .local import Local, MacVerdict


@dataclass(frozen=True, slots=True)
class Faq:
    """The figures the model's FAQ answers with (the same numbers as the sections above)."""

    qlora_fits_one_80gb: bool
    fp16_fits_one_80gb: bool
    int4_fits_one_80gb: bool
    smallest_mac: MacVerdict | None  # the smallest Mac that holds some precision or build, with which one
    counts_at_fp16: tuple[tuple[int, int], ...]  # (GPU memory in GB, GPUs needed)

    @property
    def smallest_mac_gib(self) -> int | None:
        return self.smallest_mac.ram_gib if self.smallest_mac else None


def faq_section(needs: dict[tuple[Mode, str], int], local: Local) -> Faq:
    usable_80 = usable_bytes(80 * GB)
    fp16 = needs[(Mode.INFERENCE, "fp16")]
    return Faq(
        qlora_fits_one_80gb=needs[(Mode.QLORA, "int4")] <= usable_80,
        fp16_fits_one_80gb=fp16 <= usable_80,
        int4_fits_one_80gb=needs[(Mode.INFERENCE, "int4")] <= usable_80,
        smallest_mac=next((m for m in local.macs if m.verdict != "no"), None),
        counts_at_fp16=tuple((size, gpus_needed(fp16, size * GB)) for size in (80, 48, 24)),
    )
