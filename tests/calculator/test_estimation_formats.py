"""Weight bytes of real quantization formats (docs/methodology.md §2)."""

from __future__ import annotations

import pytest

from calculator.estimation import GIB, PRECISIONS, get_precision, weights_only_bytes
from calculator.estimation.precision import GGUF_TYPE_BITS, more_bits_layers
from tests.calculator.estimation_specs import hub_spec, llama_31_8b


@pytest.mark.parametrize(
    ("ftype", "gib"),
    [
        # llama.cpp's own size table for Llama-3-8B in tools/quantize/quantize.cpp, as §2.6 quotes it ("G" = GiB)
        ("Q2_K", 2.96),
        ("Q3_K_M", 3.74),
        ("Q4_0", 4.34),
        ("Q4_K_S", 4.37),
        ("Q4_K_M", 4.58),
        ("Q5_K_S", 5.21),
        ("Q5_K_M", 5.33),
        ("Q6_K", 6.14),
        ("Q8_0", 7.96),
    ],
)
def test_gguf_mixture_rules_reproduce_llama_cpp_size_table_for_llama_3_8b(ftype, gib):
    size = weights_only_bytes(llama_31_8b(), ftype) / GIB
    assert abs(size - gib) <= 0.015


def test_gguf_names_are_case_insensitive():
    assert get_precision("Q4_K_M") is get_precision("q4_k_m") is PRECISIONS["q4_k_m"]
    assert get_precision("IQ4_XS") is PRECISIONS["iq4_xs"]


def test_gguf_block_sizes_are_ggml_common_h():
    assert GGUF_TYPE_BITS["Q8_0"] == 8.5
    assert GGUF_TYPE_BITS["Q4_K"] == 4.5
    assert GGUF_TYPE_BITS["Q6_K"] == 6.5625
    assert GGUF_TYPE_BITS["IQ2_XXS"] == 2.0625


def test_use_more_bits_picks_about_half_of_llama_3_8b_layers():
    # i < n/8 or i >= 7n/8 or (i − n/8) % 3 == 2, n = 32: layers 0–3, 28–31 and every third in between
    assert more_bits_layers(32) == 8 + len([i for i in range(4, 28) if (i - 4) % 3 == 2])


@pytest.mark.parametrize(("hub_id", "gib"), [("openai/gpt-oss-20b", 12.82), ("openai/gpt-oss-120b", 60.77)])
def test_mxfp4_quantizes_only_expert_weights(hub_id, gib):
    # §2.8: experts at 4.25 bits, every other tensor BF16 → 12.82 GiB / 60.77 GiB; expert biases (BF16 in the
    # checkpoint) are counted with the experts here, hence the 0.5 % tolerance
    size = weights_only_bytes(hub_spec(hub_id), "mxfp4") / GIB
    assert abs(size - gib) / gib < 0.005


def test_generic_int8_and_int4_add_five_percent_to_every_parameter():
    spec = llama_31_8b()
    assert weights_only_bytes(spec, "int8") == round(spec.params_total * 1.05)
    assert weights_only_bytes(spec, "int4") == round(spec.params_total * 0.5 * 1.05)


def test_awq_keeps_embeddings_and_head_in_16_bit():
    spec = llama_31_8b()
    wide = spec.components.embedding + spec.components.lm_head + spec.components.norms
    body = spec.params_total - wide
    assert weights_only_bytes(spec, "awq") == round(wide * 2 + body * (4 + 16 / 128 + 4 / 128) / 8)


def test_nf4_double_quant_is_4127_bits_on_linear_weights():
    spec = llama_31_8b()
    wide = spec.components.embedding + spec.components.lm_head + spec.components.norms
    body = spec.params_total - wide
    nf4 = weights_only_bytes(spec, "nf4")
    assert nf4 == round(wide * 2 + body * (4 + 8 / 64 + 32 / (64 * 256)) / 8)


def test_mlx_4bit_group_64_is_4_5_bits_including_embeddings():
    spec = llama_31_8b()
    norms = spec.components.norms
    assert weights_only_bytes(spec, "mlx-4bit") == round(norms * 2 + (spec.params_total - norms) * 4.5 / 8)


def test_fp8_block_scales_add_a_float32_per_128_by_128_block():
    spec = llama_31_8b()
    wide = spec.components.embedding + spec.components.lm_head + spec.components.norms
    body = spec.params_total - wide
    assert weights_only_bytes(spec, "fp8") == round(wide * 2 + body * (8 + 32 / 16384) / 8)


def test_unknown_precision_has_no_weight_bytes():
    assert weights_only_bytes(llama_31_8b(), "fp3") == 0


def test_vllm_holds_mxfp4_expert_scales_twice_from_the_swizzled_releases():
    """vLLM's Triton MoE layout on Hopper (docs/methodology.md §2.8): per layer and expert the swizzled scale copies
    (gate-up 5,888 × 90 and down 3,072 × 90 bytes, rows padded to 256) beside the originals, and the biases in
    fp32 (2 × 2,880 + 2,880 values × 2 bytes more). gpt-oss-120b loads 64.25 GiB where its checkpoint holds 60.71
    (vLLM 0.14.1 logged 64.38 GiB on an H100); the 0.9–0.11 line ran PyTorch 2.8, on which vLLM keeps the strided
    layout."""
    from calculator.estimation import Workload, estimate
    from calculator.estimation.facts import spec_facts
    from calculator.estimation.memory.weights import vllm_mxfp4_layout_bytes

    spec = hub_spec("openai/gpt-oss-120b")
    per_layer_expert = (5888 * 90 + 3072 * 90) + (2 * 2880 + 2880) * 2
    layout, inputs = vllm_mxfp4_layout_bytes(spec_facts(spec), 1)
    assert layout == 36 * 128 * per_layer_expert == 3_795_517_440
    assert inputs["padding"] == 0 and inputs["width"] == 2880
    # at TP 2 each rank's expert width is padded from 1,440 to 1,472 (a multiple of 64)
    assert vllm_mxfp4_layout_bytes(spec_facts(spec), 2)[1]["width"] == 1472

    current = estimate(spec, Workload(precision="mxfp4", engine="vllm"))
    older = estimate(spec, Workload(precision="mxfp4", engine="vllm", engine_release="0.10.2"))
    llama_cpp = estimate(spec, Workload(precision="mxfp4", engine="llama.cpp"))
    assert current.bytes_of("weights_layout") == layout and older.bytes_of("weights_layout") == 0
    assert llama_cpp.bytes_of("weights_layout") == 0
    assert round(current.weights_bytes / GIB, 2) == 64.25
    # the start-up budget comes beside the re-laid weights, which are a term of their own
    overhead = current.term("overhead")
    assert overhead is not None and overhead.bytes == overhead.inputs["floor"] and overhead.variant == "vllm"
