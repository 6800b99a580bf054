"""The owned-hardware figures (pricing/data/owned-servers.json): every price and power names its source and how far
to trust it, and the planner's defaults come from the same file."""

from __future__ import annotations

from pricing.gpus import gpu_by_slug
from pricing.owned import owned_data

CONFIDENCES = {"high", "medium", "low"}


def test_every_owned_figure_has_a_source_and_a_confidence():
    data = owned_data()
    assert data.servers and data.machines
    for item in (*data.servers, *data.machines):
        assert item.price_source.startswith(("https://", "http://")) and item.price_confidence in CONFIDENCES
        assert item.power_source.startswith(("https://", "http://")) and item.power_confidence in CONFIDENCES
        assert item.price_usd > 0 and item.power_kw > 0
        assert gpu_by_slug(item.gpu_slug) is not None  # a GPU the speed model knows
    for default in (data.years, data.pue, data.colo_usd_per_kw_month, data.kwh_usd):
        assert default.source.startswith("https://") and default.confidence in CONFIDENCES
    assert len(set(data.slugs)) == len(data.slugs)
