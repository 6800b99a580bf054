"""Vision tower + projector parameters of vision-language checkpoints, from ``vision_config``.

Layouts follow the transformers modules of each family (Qwen2.5-VL vision transformer and patch merger,
SigLIP as used by Gemma 3, the Llama 4 vision model with its pixel-shuffle adapter, the Mllama tiled vision
encoder with its gated global layers). A tower of another family is estimated as a plain ViT when the
config gives its width and depth; otherwise it cannot be counted and the caller says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from models_catalog.architecture.config import as_int
from models_catalog.architecture.types import VisionEncoder

# The Qwen2/2.5-VL image processor's default largest image: max_pixels 12,845,056 (preprocessor_config.json of
# Qwen/Qwen2.5-VL-7B-Instruct and transformers' Qwen2VLImageProcessor), i.e. 16,384 LM tokens at patch 14, merge 2.
QWEN_VL_MAX_PIXELS = 12_845_056


def _vit_block(width: int, ffn: int, *, attn_bias: bool = True, gated: bool = False, rms: bool = False) -> int:
    attention = 4 * width * width + (4 * width if attn_bias else 0)
    mlp = (3 * width * ffn + 2 * ffn + width) if gated else (2 * width * ffn + ffn + width)
    norms = 2 * width if rms else 4 * width
    return attention + mlp + norms


def vision_params(family: str, vision: Mapping[str, Any], text_hidden: int) -> tuple[int, bool]:
    """(parameters, exact) of the vision tower and its projector; (0, False) when it cannot be counted."""
    width = as_int(vision.get("hidden_size")) or as_int(vision.get("embed_dim"))
    depth = as_int(vision.get("depth")) or as_int(vision.get("num_hidden_layers"))
    ffn = as_int(vision.get("intermediate_size"))
    if not (width and depth and ffn):
        return 0, False
    patch = as_int(vision.get("patch_size")) or as_int(vision.get("spatial_patch_size")) or 14
    channels = as_int(vision.get("in_chans")) or as_int(vision.get("num_channels")) or 3
    image = as_int(vision.get("image_size"))

    if family in ("qwen2_5_vl", "qwen2_vl"):
        temporal = as_int(vision.get("temporal_patch_size")) or 2
        out = as_int(vision.get("out_hidden_size")) or text_hidden
        merge = as_int(vision.get("spatial_merge_size")) or 2
        gated = family == "qwen2_5_vl"
        blocks = depth * _vit_block(width, ffn, gated=gated, rms=gated)
        merged = width * merge * merge
        merger = width * (1 if gated else 2) + merged * merged + merged + merged * out + out
        return channels * temporal * patch * patch * width + blocks + merger, True

    if family == "gemma3":
        positions = (image // patch) ** 2 if image else 0
        tower = channels * patch * patch * width + width + positions * width
        tower += depth * _vit_block(width, ffn) + 2 * width
        projector = width * text_hidden + width
        return tower + projector, bool(image)

    if family == "llama4":
        positions = (image // patch) ** 2 + 1 if image else 0
        tower = channels * patch * patch * width + width + positions * width + 4 * width
        tower += depth * _vit_block(width, ffn)
        projector_in = as_int(vision.get("projector_input_dim")) or width
        projector_out = as_int(vision.get("projector_output_dim")) or projector_in
        output = as_int(vision.get("vision_output_dim")) or projector_out
        adapter = ffn * projector_in + projector_out * projector_out
        return tower + adapter + output * text_hidden, bool(image)

    if family == "mllama":
        tiles = as_int(vision.get("max_num_tiles")) or 4
        ratios = vision.get("supported_aspect_ratios")
        ratio_ids = (len(ratios) if isinstance(ratios, list) else 8) + 1
        global_layers = as_int(vision.get("num_global_layers"), minimum=0) or 0
        positions = (image // patch) ** 2 + 1 if image else 0
        output = as_int(vision.get("vision_output_dim")) or width
        tower = channels * patch * patch * width + width
        tower += positions * width + 1 + ratio_ids * tiles * positions * width  # gated position embeddings
        tower += 2 * (ratio_ids * tiles * width + 1)  # pre/post tile position embeddings with gates
        tower += 4 * width  # layernorm_pre, layernorm_post
        tower += depth * _vit_block(width, ffn, attn_bias=False)
        tower += global_layers * (_vit_block(width, ffn, attn_bias=False) + 2)
        return tower + output * text_hidden + text_hidden, bool(image)

    return depth * _vit_block(width, ffn), False


def vision_encoder(family: str, vision: Mapping[str, Any], outer: Mapping[str, Any]) -> VisionEncoder | None:
    """The tower's shape for the encoder profile, for the families whose preprocessing is known: Qwen2/2.5-VL
    (dynamic resolution up to the processor's max_pixels, videos of 2-frame patches) and Gemma 3's SigLIP (one
    896 px image, pooled to ``mm_tokens_per_image``); None for the rest."""
    width = as_int(vision.get("hidden_size")) or as_int(vision.get("embed_dim"))
    ffn = as_int(vision.get("intermediate_size"))
    patch = as_int(vision.get("patch_size")) or as_int(vision.get("spatial_patch_size")) or 14
    channels = as_int(vision.get("in_chans")) or as_int(vision.get("num_channels")) or 3
    if not (width and ffn):
        return None
    if family in ("qwen2_5_vl", "qwen2_vl"):
        temporal = as_int(vision.get("temporal_patch_size")) or 2
        merge = as_int(vision.get("spatial_merge_size")) or 2
        image_tokens = QWEN_VL_MAX_PIXELS // (patch * merge) ** 2
        return VisionEncoder(
            kind=family,
            width=width,
            ffn=ffn,
            pixels_per_token=channels * temporal * patch * patch,
            merge=merge,
            image_tokens=image_tokens,
            vit_tokens_per_image=image_tokens * merge * merge,
            takes_video=True,
        )
    image = as_int(vision.get("image_size"))
    pooled = as_int(outer.get("mm_tokens_per_image"))
    if family == "gemma3" and image and pooled:
        return VisionEncoder(
            kind="siglip",
            width=width,
            ffn=ffn,
            pixels_per_token=channels * patch * patch,
            merge=1,
            image_tokens=pooled,
            vit_tokens_per_image=(image // patch) ** 2,
            takes_video=False,
        )
    return None
