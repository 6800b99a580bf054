"""What an engine's kernels need from a GPU: a model whose attention only has kernels for some architectures cannot
start on the others, so it is never ranked, priced, planned or given a command there (docs/methodology.md §4.14).

- DeepSeek sparse attention (DSA: MLA with a lightning indexer; DeepSeek-V3.2, GLM-5-style layers). vLLM runs it on
  Hopper and Blackwell data-centre GPUs only: its indexer and sparse MLA kernels come from DeepGEMM and FlashMLA
  ("We plan to expand the architectures supported beyond Hopper and Blackwell", vLLM blog 2025-09-29,
  "DeepSeek-V3.2-Exp in vLLM"; the vllm-project/recipes DeepSeek-V3.2 page). SGLang runs it on H200/B200 and, with
  its ROCm images, on MI300 and MI350/MI355 (SGLang docs, "DeepSeek V3.2 Usage"). Consumer and workstation Blackwell
  (GB202/GB203, GB10) and every older architecture have no such kernels.

Pure Python: a GPU is named by its ``architecture`` as ``pricing/data/gpus.json`` spells it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol, TypeVar

from models_catalog.architecture import ModelSpec

HOPPER_AND_DATACENTRE_BLACKWELL = frozenset(
    {"Hopper", "Hopper (+Grace CPU)", "Blackwell", "Blackwell Ultra", "Blackwell (+Grace CPU)"}
)
AMD_INSTINCT_CDNA3_ON = frozenset({"CDNA 3", "CDNA 4"})

SPARSE_ATTENTION = "sparse_attention"


@dataclass(frozen=True, slots=True)
class KernelRule:
    """A model feature that runs under ``engine`` only on GPUs of ``architectures``."""

    engine: str
    feature: str
    architectures: frozenset[str]
    source: str


RULES: Mapping[tuple[str, str], KernelRule] = {
    (rule.engine, rule.feature): rule
    for rule in (
        KernelRule(
            "vllm",
            SPARSE_ATTENTION,
            HOPPER_AND_DATACENTRE_BLACKWELL,
            "vLLM blog 2025-09-29 'DeepSeek-V3.2-Exp in vLLM'; vllm-project/recipes DeepSeek-V3.2",
        ),
        KernelRule(
            "sglang",
            SPARSE_ATTENTION,
            HOPPER_AND_DATACENTRE_BLACKWELL | AMD_INSTINCT_CDNA3_ON,
            "SGLang docs 'DeepSeek V3.2 Usage' (H200/B200 images, MI300 and MI350/MI355 ROCm images)",
        ),
    )
}


class HasArchitecture(Protocol):
    @property
    def architecture(self) -> str: ...


G = TypeVar("G", bound=HasArchitecture)


def model_features(spec: ModelSpec) -> frozenset[str]:
    """The features of ``spec`` that some engine has kernels for on some GPUs only."""
    sparse = any(group.indexer_dim for group in spec.layer_groups)
    return frozenset({SPARSE_ATTENTION} if sparse else ())


def blocking_rule(spec: ModelSpec, engine: str, architecture: str) -> KernelRule | None:
    """The rule that keeps ``spec`` from starting under ``engine`` on a GPU of ``architecture``; None: it starts."""
    for feature in sorted(model_features(spec)):
        rule = RULES.get((engine, feature))
        if rule is not None and architecture not in rule.architectures:
            return rule
    return None


def starts_on(spec: ModelSpec, engine: str) -> Callable[[HasArchitecture], bool]:
    """A test for the GPUs ``spec`` starts on under ``engine``."""
    features = model_features(spec)
    rules = [RULES[(engine, f)] for f in sorted(features) if (engine, f) in RULES]
    if not rules:
        return lambda gpu: True
    return lambda gpu: all(gpu.architecture in rule.architectures for rule in rules)


def startable_gpus(spec: ModelSpec, engine: str, gpus: Iterable[G]) -> list[G]:
    """The GPUs of ``gpus`` that ``spec`` starts on under ``engine``: what every ranking, card and count is made of."""
    starts = starts_on(spec, engine)
    return [gpu for gpu in gpus if starts(gpu)]


def kernel_rule_for(spec: ModelSpec, engine: str) -> KernelRule | None:
    """The rule that narrows the GPUs ``spec`` runs on under ``engine`` (the first, if several); None: any GPU."""
    for feature in sorted(model_features(spec)):
        rule = RULES.get((engine, feature))
        if rule is not None:
            return rule
    return None
