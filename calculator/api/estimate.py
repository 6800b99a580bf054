"""The estimate as JSON: the model page's own sections (``calculator.page.model_page``), each in its JSON form.

The numbers are the page's numbers because they come from the same call with the same inputs. The estimate names
the model, the parameters it was asked with and the setting the page computed for, then every section's members in
page order, as its record says (``calculator.page.sections.SECTIONS``, ``Section.json``).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from calculator.estimation.engines.releases import release_label, vllm_release
from calculator.page import ModelPage
from calculator.state import CalculatorState


def _setting(page: ModelPage, state: CalculatorState) -> dict[str, Any]:
    setting = page.setting
    return {
        **asdict(setting),
        "mode": setting.mode.value,
        "vllm_version": vllm_release(state.release).label if setting.engine == "vllm" else None,
        "engine_version": release_label(setting.engine, state.release_for(setting.engine)) or None,
    }


def estimate_json(page: ModelPage, state: CalculatorState, model_id: str | None) -> dict[str, Any]:
    found: dict[str, Any] = {"model": model_id, "parameters": asdict(state), "setting": _setting(page, state)}
    for section, value in page.sections():
        found |= section.json(value, page.work)
    return found
