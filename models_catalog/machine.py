"""The catalog list's "runs on my machine" filter: the reader's remembered machine as a weight budget in bytes."""

from __future__ import annotations

from dataclasses import dataclass

from pricing.gpus import BYTES_PER_GB, GpuSpec, gpu_by_slug
from web.rig import RememberedRig

GIB = 1024**3
RIG_SEGMENTS = ("consumer", "workstation", "datacenter")  # the GPUs a machine may name (Macs are one machine each)


@dataclass(frozen=True, slots=True)
class MachineBudget:
    gpu: GpuSpec
    gpus: int
    ram_gib: int

    @property
    def gpu_bytes(self) -> int:
        return self.gpu.memory_bytes * self.gpus

    @property
    def gpu_gb(self) -> int:
        """The GPUs' memory in whole GB (10⁹ bytes), as the list's hint names the machine."""
        return round(self.gpu_bytes / BYTES_PER_GB)

    @property
    def gpu_and_ram_bytes(self) -> int:
        return self.gpu_bytes + self.ram_gib * GIB

    def budget(self, machine: str) -> int | None:
        """The bytes the weights may take for a filter value ("gpu" or "ram"); None for no filter."""
        return {"gpu": self.gpu_bytes, "ram": self.gpu_and_ram_bytes}.get(machine)


def machine_budget(rig: RememberedRig | None) -> MachineBudget | None:
    """The remembered machine, or None when no machine is remembered or it names no GPU we know."""
    if rig is None:
        return None
    gpu = gpu_by_slug(rig.gpu)
    if gpu is None or gpu.segment not in RIG_SEGMENTS:
        return None
    return MachineBudget(gpu, rig.gpus, rig.ram_gib)
