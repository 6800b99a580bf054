"""One module per price source; ``curated`` reads the project's dated offer files.

``API_PROVIDERS`` maps a provider slug to its source (``INFO``, ``fetch``, ``parse``): our own parsers where they
give more than gpuhunt (RunPod's community and secure clouds, Vast.ai's whole offer book and its median, Vultr and
TensorDock, which gpuhunt's catalogs do not cover without keys), and gpuhunt's published catalogs or keyless online
queries for the rest (``gpuhunt_source``). Providers without either are curated: their offers come from dated files
(``pricing/data/snapshot/``) in the ``curated`` format.
"""

from __future__ import annotations

from . import gpuhunt_source, runpod, tensordock, vastai, vultr
from .base import PayloadError, ProviderInfo, ProviderModule

_MODULES: tuple[ProviderModule, ...] = (runpod, vastai, vultr, tensordock, *gpuhunt_source.SOURCES)
API_PROVIDERS: dict[str, ProviderModule] = {module.INFO.slug: module for module in _MODULES}

__all__ = ["API_PROVIDERS", "PayloadError", "ProviderInfo", "ProviderModule"]
