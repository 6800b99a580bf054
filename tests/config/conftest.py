"""Fixtures of the config tests."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from models_catalog import services
from tests.config.page_cache_support import GLM_ID, SHIPPED


@pytest.fixture
def seed_site():
    """GLM-5.3-Flash from the shipped catalog and the seed offers of 2026-11-13: a model page and GPU prices."""
    services.model_import_offline(SHIPPED, only=[GLM_ID])
    call_command("loaddata", "seed_offers_2026-11-13", verbosity=0)
