"""Weight memory: parameters × the true bits of a precision or format, cached per spec and precision."""

from __future__ import annotations

from models_catalog.architecture import ModelSpec

from .facts import SpecFacts, spec_facts
from .gguf import gguf_size
from .memo import per_spec
from .precision import (
    NF4_DOUBLE_QUANT_BITS,
    Precision,
    get_precision,
    weight_bits_total,
)


def weight_bytes(facts: SpecFacts, precision: Precision, *, load_mtp: bool, variant: str = "") -> int:
    return weights_detail(facts, precision, load_mtp=load_mtp, variant=variant)[0]


def weights_detail(
    facts: SpecFacts, precision: Precision, *, load_mtp: bool, variant: str = ""
) -> tuple[int, float, int]:
    """(bytes, average bits per parameter, parameters) of the weights, remembered per spec and precision."""
    key = (precision.key, load_mtp, variant)
    return per_spec("weights", facts.spec, key, lambda: _weights_detail(facts, precision, load_mtp, variant))


def _weights_detail(facts: SpecFacts, precision: Precision, load_mtp: bool, variant: str) -> tuple[int, float, int]:
    counts = facts.counts if load_mtp else facts.counts_without_mtp
    if precision.gguf_ftype and variant != "qlora":
        return _gguf_detail(facts, precision.gguf_ftype)
    bits = precision.bits(counts, facts.layer_facts)
    if variant == "qlora":
        # prepare_model_for_kbit_training casts every non-4-bit parameter to fp32 (docs/methodology.md §6.4)
        bits = bits._replace(embedding=32.0, lm_head=32.0, norms=32.0, vision=32.0, router=NF4_DOUBLE_QUANT_BITS)
    params = sum(counts)
    total_bits = weight_bits_total(counts, bits)
    return round(total_bits / 8), total_bits / params if params else 0.0, params


def _gguf_detail(facts: SpecFacts, ftype: str) -> tuple[int, float, int]:
    """A GGUF build, tensor by tensor (gguf.py): the text file plus the separate mmproj file a vision model loads
    with it. Multi-token-prediction layers are not in the file whatever ``load_mtp`` says (the converters drop
    them)."""
    size = gguf_size(facts.spec, ftype)
    total = size.text_bytes + size.mmproj_bytes
    params = sum(facts.counts_without_mtp)
    return total, total * 8 / params if params else 0.0, params


def weights_only_bytes(spec: ModelSpec, precision: str, *, load_mtp_layers: bool = True) -> int:
    """Bytes of the weights alone in ``precision`` (the quantized-build ladder); 0 for an unknown name."""
    found = get_precision(precision)
    if found is None:
        return 0
    return weights_detail(spec_facts(spec), found, load_mtp=load_mtp_layers)[0]
