"""Hand-built ModelSpecs for estimation tests, with the figure each field comes from."""

from __future__ import annotations

from pathlib import Path

from models_catalog.architecture import AttentionKind, LayerGroup, ModelSpec, ParamBreakdown
from models_catalog.specs import spec_from_recorded_folder

GLM_53_FLASH_PARAMS = 321_300_000_000  # seed 000: "321,3 Mrd. Parameter"
GLM_53_FLASH_ACTIVE = 25_400_000_000  # seed 000: "etwa 25,4 Mrd."


def glm_53_flash(layer_groups: tuple[LayerGroup, ...] | None = None) -> ModelSpec:
    """GLM-5.3-Flash as its config.json describes it (11 NoPE-MLA DSA layers, 34 KDA linear layers)."""
    groups = layer_groups or (
        # config: kv_lora_rank 512, qk_rope_head_dim 0, index_head_dim 128, layers 3, 7, …, 43
        LayerGroup(AttentionKind.MLA, 11, latent_dim=512, rope_dim=0, indexer_dim=128),
        # linear_attn_config: 64 heads × head_dim 128, short conv kernel 4
        LayerGroup(AttentionKind.LINEAR, 34, state_elements=64 * 128 * 128, conv_elements=3 * 3 * 64 * 128),
    )
    return ModelSpec(
        model_type="glm5_next",
        family="glm5_next",
        hidden_size=4096,
        num_layers=45,
        num_attention_heads=64,
        num_kv_heads=64,
        head_dim=256,
        vocab_size=154880,
        intermediate_size=12288,
        tie_word_embeddings=False,
        max_context=1048576,
        layer_groups=groups,
        params_total=GLM_53_FLASH_PARAMS,
        params_active=GLM_53_FLASH_ACTIVE,
        params_source="reference",
        params_active_source="reference",
        components=ParamBreakdown(),
        experts_routed=288,
        experts_shared=1,
        experts_per_token=8,
        moe_layers=42,
    )


def glm_53_flash_as_seed_counts() -> ModelSpec:
    """The seed's KV count: all 45 layers as MLA latent layers of 512 (45 × 512 × 8192 × 2 bytes)."""
    return glm_53_flash((LayerGroup(AttentionKind.MLA, 45, latent_dim=512, rope_dim=0),))


def llama_31_8b() -> ModelSpec:
    """Llama-3.1-8B: h 4096, 32 layers, 32 heads, 8 KV heads, head_dim 128, vocab 128256, untied."""
    h, layers, heads, kv, d, inter, vocab = 4096, 32, 32, 8, 128, 14336, 128256
    attention = layers * (h * heads * d + 2 * h * kv * d + heads * d * h)
    mlp = layers * 3 * h * inter
    norms = layers * 2 * h + h
    components = ParamBreakdown(embedding=vocab * h, lm_head=vocab * h, attention=attention, dense_mlp=mlp, norms=norms)
    return ModelSpec(
        model_type="llama",
        family="llama",
        hidden_size=h,
        num_layers=layers,
        num_attention_heads=heads,
        num_kv_heads=kv,
        head_dim=d,
        vocab_size=vocab,
        intermediate_size=inter,
        tie_word_embeddings=False,
        max_context=131072,
        layer_groups=(LayerGroup(AttentionKind.FULL, layers, kv_heads=kv, key_dim=d, value_dim=d),),
        params_total=components.total,
        params_active=components.total,
        params_source="computed",
        params_active_source="computed",
        components=components,
    )


HUB = Path(__file__).resolve().parents[2] / "models_catalog" / "data" / "hub"


def hub_spec(hub_id: str, total: int | None = None, active: int | None = None) -> ModelSpec:
    """A spec from the catalog's recorded folder, with the counts the catalog keeps for it (or the given ones)."""
    return spec_from_recorded_folder(HUB / hub_id, total, active)
