"""Importing one model from the Hugging Face Hub: its info, config.json and quantized sibling repos, then saved.

The Hub is reached through ``models_catalog.hub`` (the one seam); the record is written by
``services.model_record_save`` in one transaction, so nothing is written unless everything was fetched.
"""

from __future__ import annotations

from dataclasses import replace

from django.conf import settings
from django.utils import timezone

from models_catalog import hub
from models_catalog.hub_ids import HubId, parse_hub_id
from models_catalog.models import Model
from models_catalog.records import builds_from_hub, load_reference_facts, record_from_hub, with_reference_facts
from models_catalog.services import model_record_save
from models_catalog.summary import summarise


class NotSizable(hub.HubError):
    """The repo is on the Hub but is not a transformer whose memory we can compute; `missing` says why."""

    state = "not_sizable"

    def __init__(self, hub_id: str, missing: str) -> None:
        super().__init__(hub_id, f"not a transformer we can size: {missing}")


def hub_client() -> hub.HubClient:
    return hub.HubClient(
        hub.HubSettings(
            endpoint=settings.HUB_ENDPOINT,
            token=settings.HUB_TOKEN or None,
            timeout_s=settings.HUB_TIMEOUT_S,
            max_retries=settings.HUB_MAX_RETRIES,
            max_retry_after_s=settings.HUB_MAX_RETRY_AFTER_S,
        )
    )


def model_import(hub_id: str | HubId, client: hub.HubClient | None = None) -> Model:
    """Fetch one model from the Hub (info, config.json, quantized sibling repos) and save it.

    Raises InvalidHubId before any request, hub.HubError subclasses for Hub failures, among them NotSizable
    when the config is not one we can compute memory for. Nothing is written unless everything was fetched.
    """
    parsed = hub_id if isinstance(hub_id, HubId) else parse_hub_id(hub_id)
    client = client or hub_client()
    endpoint = client.settings.endpoint
    info = client.model_info(parsed.value)
    if info.gated:
        try:
            config = client.config(parsed.value, revision=info.sha)
        except hub.HubGated as exc:
            raise hub.HubGated(
                parsed.value,
                f"the repo is gated ({info.gated} approval): config.json needs an accepted licence",
            ) from exc
    else:
        config = client.config(parsed.value, revision=info.sha)
    record = record_from_hub(info, config, (), timezone.now(), endpoint)
    summary = summarise(record)
    if summary.missing:
        raise NotSizable(parsed.value, summary.missing)
    builds = []
    total = record.params_total or summary.params_computed
    for repo_id in client.quantized_repo_ids(parsed.value, limit=settings.HUB_QUANT_REPOS_MAX):
        try:
            repo = client.model_info(repo_id)
        except (hub.HubGated, hub.HubNotFound):
            continue
        builds.extend(builds_from_hub(repo, total, endpoint))
    for order, build in enumerate(builds):
        builds[order] = replace(build, sort_order=order)
    record = with_reference_facts(replace(record, builds=tuple(builds)), load_reference_facts())
    model, _ = model_record_save(record, summary=None)
    return model
