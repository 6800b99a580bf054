"""vLLM's encoder profile for vision-language models (docs/methodology.md §4.13): the dummy batch its start-up runs
through the vision tower, and what that adds to the profiled peak."""

from __future__ import annotations

from calculator.estimation import GIB, Workload, estimate
from calculator.estimation.engines.releases import vllm_release
from calculator.estimation.memory.encoder_profile import vllm_encoder_profile, with_encoder_profile
from tests.calculator.estimation_specs import hub_spec

QWEN_VL = "Qwen/Qwen2.5-VL-7B-Instruct"
GEMMA = "google/gemma-3-27b-it"


def test_a_qwen_vl_video_dummy_grows_with_max_model_len_from_0_11():
    spec = hub_spec(QWEN_VL)
    current = vllm_release("0.19")
    # 16,384 LM tokens per image (max_pixels 12,845,056 at patch 14, merge 2); the video takes ⌊L ÷ 16,384⌋ of them,
    # at most 7: 114,688 at max_model_len 128,000, one item, 4 ViT tokens per LM token
    long = vllm_encoder_profile(spec, current, 128_000, 8192)
    assert long is not None and (long.modality, long.item_tokens, long.items) == ("video", 114_688, 1)
    assert long.vit_tokens == 458_752
    assert long.pixel_bytes == 458_752 * 1176 * 2  # 3 channels × 2 frames × 14² pixels per ViT token, bf16
    assert long.activation_bytes == 458_752 * (5 * 1280 + 3 * 3420) * 2
    assert round(long.encoder_peak_bytes / GIB, 1) == 15.2
    assert long.cache_bytes == 114_688 * 3584 * 2 and long.pixels_held
    short = vllm_encoder_profile(spec, current, 8192, 8192)
    assert short is not None and (short.item_tokens, short.vit_tokens) == (16_384, 65_536)
    # the 0.9–0.11 line built the dummy from max_num_batched_tokens: one frame, whatever max_model_len says
    older = vllm_encoder_profile(spec, vllm_release("0.10.2"), 128_000, 8192)
    assert older is not None and older.item_tokens == 114_688 and older.vit_tokens == 65_536
    # the 0.34 runner frees the pixel input before the text profile
    newest = vllm_encoder_profile(spec, vllm_release("0.34"), 128_000, 8192)
    assert newest is not None and not newest.pixels_held and newest.held_bytes == newest.cache_bytes


def test_gemma_3_profiles_32_images_and_holds_their_outputs_beside_the_text_peak():
    profile = vllm_encoder_profile(hub_spec(GEMMA), vllm_release("0.19"), 8192, 8192)
    assert profile is not None and (profile.modality, profile.item_tokens, profile.items) == ("image", 256, 32)
    assert profile.vit_tokens == 32 * 4096  # 896 px at patch 14, pooled to 256 LM tokens
    # the text profile (sampler over a 262k vocabulary) is larger than the encoder's step: the held outputs add
    text_peak = 4 * GIB
    assert profile.encoder_peak_bytes < text_peak
    assert with_encoder_profile(text_peak, profile) == text_peak + profile.cache_bytes + profile.pixel_bytes
    assert with_encoder_profile(text_peak, None) == text_peak


def test_the_estimate_of_a_qwen_vl_model_at_long_context_counts_the_encoder_profile():
    spec = hub_spec(QWEN_VL)
    short = estimate(spec, Workload(engine="vllm", context=8192)).term("overhead")
    long = estimate(spec, Workload(engine="vllm", context=131072)).term("overhead")
    assert short is not None and long is not None and long.variant == "vllm_encoder_video"
    assert long.inputs["activation"] - short.inputs["activation"] > 12 * GIB
    text = estimate(hub_spec("Qwen/Qwen2.5-7B-Instruct"), Workload(engine="vllm", context=131072)).term("overhead")
    assert text is not None and text.variant == "vllm"  # a text model has no encoder profile
