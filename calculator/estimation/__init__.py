"""The estimation core: memory, fit, speed and cost. Pure Python, no Django."""

from .fit import FILL_FRACTION, MAX_GPUS_PER_NODE, Fit, GpuLike, fit, gpus_needed, nodes_needed

__all__ = [
    "FILL_FRACTION",
    "MAX_GPUS_PER_NODE",
    "Fit",
    "GpuLike",
    "fit",
    "gpus_needed",
    "nodes_needed",
]
