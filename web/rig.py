"""The reader's remembered machine: GPU type, how many, system RAM and the Mac's macOS version, kept in a cookie
(no account).

The model page sets it ("Remember this machine on every page"); the model page, its companions and the catalog
list read it. A permalink that names a machine wins over the cookie. The cookie is written only with checked values,
but a reader can edit cookies, so reading it checks the shape again and ignores anything else.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.http import HttpRequest

RIG_COOKIE = "gpufit_rig"
RIG_FIELDS = ("rig", "rig_gpus", "ram")  # the calculator's query parameters the cookie stands in for
MACOS_FIELD = "macos"  # remembered beside the machine; a permalink that names it wins on its own
MACOS_VERSIONS = ("15", "26")  # calculator.estimation.memory.fit.MACOS_VERSIONS (web sits below the calculator)
RIG_COOKIE_SECONDS = 365 * 24 * 60 * 60
MAX_GPUS = 8
MAX_RAM_GIB = 4096


@dataclass(frozen=True, slots=True)
class RememberedRig:
    gpu: str  # a GPU slug
    gpus: int
    ram_gib: int
    macos: str = "15"

    @property
    def cookie_value(self) -> str:
        return f"{self.gpu},{self.gpus},{self.ram_gib},{self.macos}"


def parse_rig(value: str) -> RememberedRig | None:
    """``"rtx-4090,1,64,26"`` → the machine (a cookie written before the macOS version, ``"rtx-4090,1,64"``, reads
    as macOS 15); None for anything else."""
    parts = [p.strip() for p in value[:64].split(",")]
    if len(parts) == len(RIG_FIELDS):
        parts.append("15")
    if len(parts) != len(RIG_FIELDS) + 1:
        return None
    slug, gpus, ram, macos = parts
    macos = macos or "15"
    if macos not in MACOS_VERSIONS:
        return None
    if not slug or len(slug) > 24 or not all(c.isalnum() or c == "-" for c in slug):
        return None
    if not (gpus.isdigit() and ram.isdigit()):
        return None
    count, ram_gib = int(gpus), int(ram)
    if not (1 <= count <= MAX_GPUS and 0 <= ram_gib <= MAX_RAM_GIB):
        return None
    return RememberedRig(slug, count, ram_gib, macos)


def remembered_rig(request: HttpRequest) -> RememberedRig | None:
    return parse_rig(request.COOKIES.get(RIG_COOKIE, ""))
