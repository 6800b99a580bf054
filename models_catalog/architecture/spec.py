"""``ModelSpec``: what a model is, built from a Hugging Face ``config.json`` by ``build``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from models_catalog.architecture.build import build
from models_catalog.architecture.notes import NoteKey, SpecNote
from models_catalog.architecture.types import AttentionKind, LayerGroup, ParamBreakdown, ParamCounts, VisionEncoder


@dataclass(frozen=True, slots=True)
class ModelSpec:
    model_type: str
    family: str  # normalised architecture family, e.g. "llama", "qwen3_moe", "deepseek_v3", "generic"
    hidden_size: int
    num_layers: int  # decoder layers, excluding MTP layers
    num_attention_heads: int
    num_kv_heads: int
    head_dim: int
    vocab_size: int
    intermediate_size: int
    tie_word_embeddings: bool
    max_context: int | None
    layer_groups: tuple[LayerGroup, ...]
    params_total: int  # every tensor the checkpoint stores, counted as parameters (not packed elements)
    params_active: int  # per token
    params_source: str  # where params_total came from: "safetensors" | "model_card" | "reference" | "computed"
    params_active_source: str
    components: ParamBreakdown  # computed from the config
    params_not_loaded: int = 0  # stored but not loaded by engines (MTP layers), included in params_total
    # stored twice: an lm_head the checkpoint keeps although tie_word_embeddings is true; engines and frameworks
    # hold the tied matrix once (vLLM skips "lm_head." when tied: vllm/model_executor/models/qwen3.py,
    # vllm-project/vllm@002456df36fc; transformers ties the two parameters). Included in params_total.
    params_duplicated: int = 0
    experts_routed: int = 0
    experts_shared: int = 0
    experts_per_token: int = 0
    moe_layers: int = 0
    has_vision: bool = False
    native_dtype: str = "bf16"  # as released: "bf16", "fp16", "fp32", "fp8", "mxfp4", ...
    estimated_fields: tuple[str, ...] = ()  # every field that was guessed rather than read
    notes: tuple[SpecNote, ...] = field(default_factory=tuple)  # caveats for the page: a key and its figures
    # Added fields (defaults keep older constructors valid):
    # active parameters as computed from the config whatever params_active's source: everything one token
    # multiplies, input embedding excluded unless tied (docs/methodology.md §1.4); 0 when not computed
    params_active_computed: int = 0
    # stored elements the Hub's safetensors total would show for this config and release format (packed
    # MXFP4 values, FP8 block scales, GPTQ/AWQ side tensors); equals the computed total for plain dtypes
    params_stored_elements: int = 0
    # layers that attend to image tokens (Llama 3.2 Vision); they appear in layer_groups as AttentionKind.NONE
    # because their cache holds the image's keys/values, not one entry per text token
    cross_attention_layers: int = 0
    # the vision tower's shape where vLLM's encoder profile can be computed from it (Qwen2/2.5-VL, Gemma 3)
    vision_encoder: VisionEncoder | None = None
    # multi-token-prediction modules the checkpoint stores (num_nextn_predict_layers), and the parameters of theirs an
    # engine running them as a draft shares with the main model instead of loading again: DeepSeek-style modules store
    # the embedding and the head once more (vLLM deepseek_mtp.py, SGLang deepseek_nextn.py share the target's)
    mtp_layers: int = 0
    mtp_shared_params: int = 0

    @classmethod
    def from_hf_config(cls, config: Mapping[str, Any], params: ParamCounts | None = None) -> ModelSpec:
        """What a model is, from its ``config.json`` (and safetensors counts when known).

        Never raises: missing, ``None`` or mistyped keys fall back to estimates named in ``estimated_fields``.
        """
        if not isinstance(config, Mapping):
            config = {}
        try:
            return cls(**build(config, params))
        except Exception as error:  # a config shape no rule anticipated must not break a page
            spec = cls(**build({}, None))
            return replace(
                spec,
                model_type=str(config.get("model_type", "unknown"))[:100],
                notes=(*spec.notes, SpecNote.of(NoteKey.CONFIG_UNREADABLE, error=type(error).__name__)),
            )

    @property
    def params_loaded(self) -> int:
        """Parameters engines load by default (the stored total minus MTP layers and a duplicated tied head)."""
        return self.params_total - self.params_not_loaded - self.params_duplicated

    @property
    def is_moe(self) -> bool:
        return self.experts_routed > 0

    @property
    def kv_elements_per_token(self) -> int:
        """Cache elements each token adds across all layers whose cache grows with context (one sequence).

        Full attention keeps K and V per KV head; MLA keeps one latent plus the rope key (vLLM/SGLang layout);
        a sparse-attention indexer adds its key. Sliding-window, linear and cache-less layers are excluded (the
        estimation core sizes their caches: ``calculator/estimation/memory/kv.py``).
        """
        total = 0
        for group in self.layer_groups:
            if group.kind is AttentionKind.FULL:
                total += group.count * group.kv_heads * (group.key_dim + group.value_dim)
            elif group.kind is AttentionKind.MLA:
                total += group.count * (group.latent_dim + group.rope_dim + group.indexer_dim)
        return total

    def summary(self) -> dict[str, object]:
        """Plain values for the catalog page and the JSON API."""
        return {
            "model_type": self.model_type,
            "family": self.family,
            "params_total": self.params_total,
            "params_active": self.params_active,
            "params_source": self.params_source,
            "params_active_source": self.params_active_source,
            "params_not_loaded": self.params_not_loaded,
            "params_duplicated": self.params_duplicated,
            "layers": self.num_layers,
            "hidden_size": self.hidden_size,
            "attention": [
                {"kind": str(group.kind), "layers": group.count, "window": group.window} for group in self.layer_groups
            ],
            "experts": {
                "routed": self.experts_routed,
                "shared": self.experts_shared,
                "per_token": self.experts_per_token,
                "moe_layers": self.moe_layers,
            },
            "max_context": self.max_context,
            "native_dtype": self.native_dtype,
            "has_vision": self.has_vision,
            "estimated_fields": list(self.estimated_fields),
            "notes": [note.text for note in self.notes],
        }
