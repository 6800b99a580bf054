"""One module per provider price API; ``curated`` reads the project's dated offer files.

``API_PROVIDERS`` maps a provider slug to its module (``INFO``, ``fetch``, ``parse``). Providers without an API
are curated: their offers come from dated files (``pricing/data/snapshot/``) in the ``curated`` format.
"""

from __future__ import annotations

from . import aws, azure, gcp, lambda_cloud, runpod, tensordock, vastai, vultr
from .base import PayloadError, ProviderInfo, ProviderModule

_MODULES: tuple[ProviderModule, ...] = (runpod, vastai, lambda_cloud, aws, azure, gcp, vultr, tensordock)
API_PROVIDERS: dict[str, ProviderModule] = {module.INFO.slug: module for module in _MODULES}

__all__ = ["API_PROVIDERS", "PayloadError", "ProviderInfo", "ProviderModule"]
