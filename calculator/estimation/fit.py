"""How many GPUs a memory need takes, and whether it fits on one node.

The seed page's rule: fill each GPU to 90 % of its memory (the rest absorbs peaks), put at most 8 GPUs in one
node; a need beyond that takes several nodes. Memory sizes are decimal bytes (GB = 10^9) as GPUs are marketed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

FILL_FRACTION = 0.9
MAX_GPUS_PER_NODE = 8

# FILL_FRACTION as an exact ratio, so the GPU count never depends on float rounding at the boundary.
_FILL_NUMERATOR = 9
_FILL_DENOMINATOR = 10


class GpuLike(Protocol):
    """What the fit needs from a GPU record (``pricing.gpus.GpuSpec`` or any object with these attributes)."""

    @property
    def slug(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def memory_bytes(self) -> int: ...


def usable_bytes(gpu_memory_bytes: int) -> int:
    """Memory of one GPU that the fit may fill: 90 % of it, rounded down to whole bytes."""
    return gpu_memory_bytes * _FILL_NUMERATOR // _FILL_DENOMINATOR


def gpus_needed(total_bytes: int, gpu_memory_bytes: int) -> int:
    """GPUs needed when each is filled to 90 %: ceil(total / (0.9 × memory)); at least 1."""
    if gpu_memory_bytes <= 0:
        raise ValueError("gpu_memory_bytes must be positive")
    if total_bytes <= 0:
        return 1
    # ceil(total / (0.9 × memory)) = ceil(10 × total / (9 × memory)), in integers.
    return max(1, -(-(total_bytes * _FILL_DENOMINATOR) // (gpu_memory_bytes * _FILL_NUMERATOR)))


def nodes_needed(gpu_count: int) -> int:
    """Nodes of at most 8 GPUs that hold ``gpu_count`` GPUs."""
    return max(1, -(-gpu_count // MAX_GPUS_PER_NODE))


@dataclass(frozen=True, slots=True)
class Fit:
    """The answer to "how many of this GPU does this need"."""

    gpu_slug: str
    gpu_name: str
    memory_bytes: int  # one GPU
    total_bytes: int  # the need that was fitted
    count: int  # GPUs needed at 90 % fill
    nodes: int  # nodes of at most 8 GPUs
    fits_one_gpu: bool
    fits_one_node: bool
    headroom_bytes: int  # usable memory left over on `count` GPUs (0.9 × memory × count − total)


def fit(total_bytes: int, gpu: GpuLike) -> Fit:
    """GPUs of type ``gpu`` needed for ``total_bytes`` at 90 % fill, and the nodes they take."""
    memory = int(gpu.memory_bytes)
    count = gpus_needed(total_bytes, memory)
    nodes = nodes_needed(count)
    return Fit(
        gpu_slug=gpu.slug,
        gpu_name=gpu.name,
        memory_bytes=memory,
        total_bytes=total_bytes,
        count=count,
        nodes=nodes,
        fits_one_gpu=count == 1,
        fits_one_node=count <= MAX_GPUS_PER_NODE,
        headroom_bytes=usable_bytes(memory) * count - total_bytes,
    )
