"""The model page as data: one call turns a model, a calculator state, offers and prices into every section.

``model_page(inputs) -> ModelPage`` calls the pure estimation core (estimate, fit, rank, inverse, apple_fit, speed,
break_even) and returns plain dataclasses per section; it takes data, not querysets, so it is tested without a
database. Templates format and print what it returns; they compute nothing.

Modules, by what changes together:
- ``inputs``: what a page computes from (the spec, published builds, state, offers, GPUs, hosted prices);
- ``setting``: the state after the mode rule and the estimates the sections share; ``work``: the parts of one page
  several sections read, each computed once;
- one module per section: ``sizes`` (breakdown, headline, matrix, cards, builds), ``gpus`` (the ranking),
  ``context``, ``inverse``, ``local`` (local GPUs, Macs, the reader's own machine), ``hosted`` (self-host vs API),
  ``faq``; ``commands`` (the launch commands) and ``choices`` (what the form offers);
- ``sections``: one record per section in page order (``SECTIONS``): what it reads, its builder (``builders``), its
  partial, its JSON form (``as_json``), its Markdown partial and whether the page defers it;
- ``compose``: ``ModelPage``, every section of one state, and ``model_page``;
- ``sources`` and ``basis`` read the inputs from the catalog and pricing (Django), kept per model and data state;
- ``view``: what the model page's views render, from one call.
"""

from .choices import page_choices
from .commands import Commands
from .compose import ModelPage, model_page
from .context import ContextSection
from .gpus import OfferRow, capture_day, instance_plan
from .inputs import Build, HostedPrice, PageInputs, build_key, precision_label
from .inverse import UnifiedMemory
from .local import Rig
from .sections import PARTIALS, SECTIONS, Section

__all__ = [
    "PARTIALS",
    "SECTIONS",
    "Build",
    "Commands",
    "ContextSection",
    "HostedPrice",
    "ModelPage",
    "OfferRow",
    "PageInputs",
    "Rig",
    "Section",
    "UnifiedMemory",
    "build_key",
    "capture_day",
    "instance_plan",
    "model_page",
    "page_choices",
    "precision_label",
]
