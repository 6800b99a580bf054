"""vLLM's start-up profile of a vision-language model's encoder (docs/methodology.md §4.13).

Before it sizes the KV cache, vLLM runs the vision tower on a dummy batch and keeps the outputs as the encoder cache
while the text forward and the sampler run (vllm/v1/worker/gpu_model_runner.py ``profile_run``, 0.9.0–0.19.1; the
0.34 model runner's ``encoder_runner.profile_encoder_cache``). The budget is max_num_batched_tokens, raised to one
whole item (``compute_mm_encoder_budget``, vllm/v1/core/encoder_cache_manager.py); the profiled modality is the one
whose largest item has the most tokens, repeated ⌊budget ÷ its tokens⌋ times, at least once
(``MultiModalBudget.get_max_items``, vllm/multimodal/encoder_budget.py). A Qwen2/2.5-VL video item grows with
max_model_len: T_image × clamp(⌊max_model_len ÷ T_image⌋, 1, 7) LM tokens from 0.11 (qwen2_vl.py
``_get_max_video_frames``, 14 frames at most); the 0.9–0.11 line built the dummy from max_num_batched_tokens (one
frame). The peak of the profile is the larger of the encoder's own step and the text profile with the encoder's
outputs (and, before 0.34, its pixel input) still held."""

from __future__ import annotations

from dataclasses import dataclass

from models_catalog.architecture import ModelSpec

from ..engines.releases import ACTIVATION_BYTES, VllmRelease

VIDEO_MAX_FRAME_GROUPS = 7  # 14 frames ÷ the temporal patch of 2 (qwen2_vl.py _MAX_FRAMES_PER_VIDEO, 0.11 on)
# Live tensors at a ViT block's MLP, the peak of its forward with flash attention (no seq² scores), per ViT token in
# multiples of its width d and its MLP width I: (a, c) in a·d + c·I (counted in each tower's eager forward)
_LIVE = {
    ("qwen2_5_vl", True): (5, 3),  # 0.11 on: fused gate_up, caller input, attention out, norm, residual, act, down
    ("qwen2_5_vl", False): (4, 3),  # before: gate and up apart
    ("qwen2_vl", True): (3, 2),  # fc1 → QuickGELU → fc2
    ("qwen2_vl", False): (3, 2),
    ("siglip", True): (2, 2),  # SiglipEncoderLayer / SiglipMLP
    ("siglip", False): (2, 2),
}


@dataclass(frozen=True, slots=True)
class EncoderProfile:
    modality: str  # "image" | "video"
    item_tokens: int  # LM tokens of the profiled item (the budget's unit)
    items: int  # dummy items encoded in one call
    vit_tokens: int  # tokens the vision transformer runs over, all items
    pixel_bytes: int  # the dummy pixel tensor, in the model's dtype
    activation_bytes: int  # the ViT block's live set at its MLP
    cache_bytes: int  # the encoder outputs kept as the encoder cache
    pixels_held: bool  # the pixel tensor stays alive through the text profile

    @property
    def encoder_peak_bytes(self) -> int:
        return self.pixel_bytes + self.activation_bytes

    @property
    def held_bytes(self) -> int:
        return self.cache_bytes + (self.pixel_bytes if self.pixels_held else 0)


def vllm_encoder_profile(
    spec: ModelSpec, release: VllmRelease, max_model_len: int, batched_tokens: int, tp: int = 1
) -> EncoderProfile | None:
    """What vLLM's profile encodes for ``spec`` on one GPU of ``tp``; None for a text model or a tower whose shape
    is not known."""
    encoder = spec.vision_encoder
    if encoder is None:
        return None
    image = encoder.image_tokens
    modality, tokens, built = "image", image, image
    if encoder.takes_video:
        groups = min(VIDEO_MAX_FRAME_GROUPS, max(1, max_model_len // image))
        video = image * groups
        if video >= image:  # a tie goes to the video (the modalities are compared by name after their size)
            modality, tokens = "video", video
            built = video if release.video_dummy_full else image
    budget = max(batched_tokens, tokens)
    items = max(1, budget // tokens)
    vit_tokens = items * built * encoder.vit_tokens_per_image // encoder.image_tokens  # ViT tokens per LM token
    a, c = _LIVE.get((encoder.kind, release.video_dummy_full), (2, 2))
    per_token = a * encoder.width + c * -(-encoder.ffn // max(1, tp))
    return EncoderProfile(
        modality=modality,
        item_tokens=tokens,
        items=items,
        vit_tokens=vit_tokens,
        pixel_bytes=vit_tokens * encoder.pixels_per_token * ACTIVATION_BYTES,
        activation_bytes=vit_tokens * per_token * ACTIVATION_BYTES,
        cache_bytes=items * built * spec.hidden_size * ACTIVATION_BYTES,
        pixels_held=release.encoder_pixels_held,
    )


def with_encoder_profile(text_peak: int, profile: EncoderProfile | None) -> int:
    """The profile run's peak: the text profile's, or the encoder's step, or the text profile with the encoder's
    outputs held, whichever is largest."""
    if profile is None:
        return text_peak
    return max(profile.encoder_peak_bytes, text_peak + profile.held_bytes)
