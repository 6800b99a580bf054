"""The model page as data: every section (``sections.SECTIONS``) for one calculator state, from one object."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from calculator.page.inputs import PageInputs

from .sections import BY_NAME, SECTIONS, Section
from .work import PageWork, cache_layout


class ModelPage:
    """One calculator state's page: the setting it computed for, then one attribute per section, named as its
    record is, built the first time something reads it. The HTML page reads only the sections whose HTML is not
    kept (``Section.reads``) and whose deferred blocks it renders; ``model_page`` builds every one."""

    def __init__(self, inputs: PageInputs) -> None:
        self.work = PageWork(inputs)
        self._built: dict[str, object] = {}
        self.cache_layout = cache_layout(inputs.spec)
        self.setting = self.work.setting
        self.workload = self.work.workload  # the core's workload (fine-tuning's tokens per sample, batch, rank, …)
        self.breakdown = self.work.breakdown

    def __getattr__(self, name: str) -> Any:
        section = BY_NAME.get(name)
        if section is None:
            raise AttributeError(name)
        return self.section(section)

    def section(self, section: Section[Any]) -> Any:
        """The section's value, built once."""
        if section.name not in self._built:
            self._built[section.name] = section.build(self.work)
        return self._built[section.name]

    def sections(self) -> Iterator[tuple[Section[Any], Any]]:
        """Every section with its value, in page order."""
        for section in SECTIONS:
            yield section, self.section(section)

    @property
    def built(self) -> frozenset[str]:
        """The sections built so far (tests: what a page with kept sections computed)."""
        return frozenset(self._built)


def model_page(inputs: PageInputs) -> ModelPage:
    """Every section of the model page for one calculator state, built."""
    page = ModelPage(inputs)
    for section in SECTIONS:
        page.section(section)
    return page
