"""Fine-tuning frameworks: each one's documented defaults and the memory rules that follow from them.

One profile per framework a reader picks (``Workload.framework``). A profile says which linear layers LoRA adapts
by default and at which rank, whether checkpointed activations stay on the GPU, how the loss materialises the
logits, in which dtype adapters and optimizer states live, and how model states shard. Every value cites the file
and commit it was read from; SOURCES.md next to this file lists them with the validation against published peaks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from models_catalog.architecture import AttentionKind, ModelSpec

from ..workload import Framework, LoraTargets, Optimizer

_TARGET_PARTS: Mapping[LoraTargets, frozenset[str]] = {
    LoraTargets.QV: frozenset({"q", "v"}),
    LoraTargets.QVO_MLP: frozenset({"q", "v", "o", "mlp"}),
    LoraTargets.ALL_LINEAR: frozenset({"q", "k", "v", "o", "mlp"}),
}

# HF: cross_entropy on logits upcast to fp32 (transformers 0114da07 src/transformers/loss/loss_utils.py
# ForCausalLMLoss: `logits = logits.float()`, then `nn.functional.cross_entropy`, i.e. log_softmax + nll_loss). The
# fp32 copy is not saved (a dtype cast's backward keeps nothing) and Trainer.compute_loss drops the outputs before
# `accelerator.backward(loss)`; at the loss backward's peak three fp32 tensors of s·b·V are live: the log-softmax
# output saved for backward, nll_loss's gradient and log_softmax's gradient (3 × 4 B).
HF_LOGIT_BYTES = 12.0
# torchtune: LinearCrossEntropyLoss projects and scores the tokens in 8 chunks (torchtune/modules/loss/
# cross_entropy_loss.py, num_output_chunks = 8); compiled, as in every memory table torchtune publishes, one chunk's
# bf16 logits and fp32 copy are live at a time: (2 + 4) B × s·b/8 (estimated).
TORCHTUNE_LOGIT_BYTES = 6.0 / 8
# Chunked losses keep one chunk of fp32 logits and its gradient (8 B per element) at a time.
CHUNK_LOGIT_BYTES = 8.0


@dataclass(frozen=True, slots=True)
class FrameworkProfile:
    key: str
    lora_targets: LoraTargets  # default target modules for Llama-style models
    lora_rank: int  # default r
    optimizer: Optimizer  # documented default optimizer
    checkpointing: bool  # gradient checkpointing on by default
    offload_checkpoints: bool  # checkpointed layer inputs live in host RAM, not on the GPU
    logit_bytes: float  # bytes per logit element at the loss's peak, over `logit_chunk` tokens (0: all tokens)
    logit_chunk: int
    adapter_bytes: float  # bytes of one adapter parameter (and its gradient)
    float_states: bool  # full fine-tuning keeps an fp32 master copy (mixed precision); False: pure bf16
    nf4_wide_tensors_fp32: bool  # QLoRA: non-4-bit tensors cast to fp32 (PEFT prepare_model_for_kbit_training)
    deepspeed: bool  # model states as DeepSpeed's estimator counts them, ZeRO stage 3 unless one is given
    offload: bool  # ZeRO-Offload of the optimizer (and with stage 3 the weights) to host RAM
    source: str
    # activations from what autograd saves in a Transformers decoder layer (memory/saved_tensors.py); False: the
    # per-layer listing of §6.2 for frameworks with their own modules and kernels (torchtune, Unsloth)
    transformers_layers: bool = False
    # Trainer's default optimizer `adamw_torch` is torch.optim.AdamW, whose foreach step (the default on CUDA)
    # allocates a parameter-sized temporary (memory/saved_tensors.py adamw_foreach_bytes)
    foreach_adamw: bool = False


FRAMEWORKS: Mapping[str, FrameworkProfile] = {
    Framework.TRANSFORMERS: FrameworkProfile(
        key=Framework.TRANSFORMERS,
        # peft 5d602fdb src/peft/tuners/lora/config.py r=8; src/peft/utils/constants.py llama/mistral/qwen → q, v
        lora_targets=LoraTargets.QV,
        lora_rank=8,
        optimizer=Optimizer.ADAMW,  # transformers TrainingArguments optim adamw_torch
        # Trainer's gradient_checkpointing defaults to False, but prepare_model_for_kbit_training turns it on
        # (peft src/peft/utils/other.py use_gradient_checkpointing=True); the page keeps it on for both.
        checkpointing=True,
        offload_checkpoints=False,
        logit_bytes=HF_LOGIT_BYTES,
        logit_chunk=0,
        adapter_bytes=4.0,  # peft autocast_adapter_dtype=True keeps adapters in fp32
        float_states=True,
        nf4_wide_tensors_fp32=True,
        deepspeed=False,
        offload=False,
        source="huggingface/peft 5d602fdb, huggingface/transformers loss_utils.py",
        transformers_layers=True,
        foreach_adamw=True,
    ),
    Framework.TRL: FrameworkProfile(
        key=Framework.TRL,
        # trl f2cd5771 trl/trainer/model_config.py lora_r=16, lora_target_modules=None (PEFT's mapping: q, v)
        lora_targets=LoraTargets.QV,
        lora_rank=16,
        optimizer=Optimizer.ADAMW,
        checkpointing=True,  # trl/trainer/sft_config.py: gradient_checkpointing defaults to True
        offload_checkpoints=False,  # activation_offloading defaults to False
        # loss_type "chunked_nll" (default since trl 9bcf7294, 2026-04): lm_head + CE in chunks of 256 tokens
        # (trl/trainer/sft_trainer.py _CHUNKED_LM_HEAD_CHUNK_SIZE), each checkpointed
        logit_bytes=CHUNK_LOGIT_BYTES,
        logit_chunk=256,
        adapter_bytes=4.0,
        float_states=True,
        nf4_wide_tensors_fp32=True,
        deepspeed=False,
        offload=False,
        source="huggingface/trl f2cd5771",
        transformers_layers=True,
        foreach_adamw=True,
    ),
    Framework.TORCHTUNE: FrameworkProfile(
        key=Framework.TORCHTUNE,
        # torchtune bd2a0fc7 recipes/configs/llama3_1/8B_lora_single_device.yaml: lora_attn_modules q_proj, v_proj,
        # output_proj, apply_lora_to_mlp True, lora_rank 8, AdamW, enable_activation_checkpointing True,
        # enable_activation_offloading False, dtype bf16 (weights, adapters and optimizer states in bf16)
        lora_targets=LoraTargets.QVO_MLP,
        lora_rank=8,
        optimizer=Optimizer.ADAMW,
        checkpointing=True,
        offload_checkpoints=False,
        logit_bytes=TORCHTUNE_LOGIT_BYTES,
        logit_chunk=0,
        adapter_bytes=2.0,
        float_states=False,
        # torchtune/models/llama3_1/_component_builders.py: FrozenNF4Linear for the decoder's linear layers;
        # embeddings, norms and output_proj stay bf16
        nf4_wide_tensors_fp32=False,
        deepspeed=False,
        offload=False,
        source="pytorch/torchtune bd2a0fc7",
    ),
    Framework.UNSLOTH: FrameworkProfile(
        key=Framework.UNSLOTH,
        # unsloth 015bdef0 unsloth/models/llama.py get_peft_model: r=16, q/k/v/o/gate/up/down,
        # use_gradient_checkpointing="unsloth" (layer inputs offloaded to host RAM)
        lora_targets=LoraTargets.ALL_LINEAR,
        lora_rank=16,
        optimizer=Optimizer.ADAMW_8BIT,  # studio/backend/assets/configs/model_defaults/default.yaml optim adamw_8bit
        checkpointing=True,
        offload_checkpoints=True,
        # unsloth/models/llama.py: above 1024 tokens unsloth_fused_ce_loss fuses lm_head and the loss in chunks sized
        # to the free memory; the README (e3162dc5) credits Apple's Cut Cross-Entropy, which never materialises the
        # logits: counted as 0
        logit_bytes=0.0,
        logit_chunk=0,
        adapter_bytes=4.0,
        float_states=True,
        # unsloth/models/_utils.py prepare_model_for_kbit_training: train_embedding / train_lm_head False, the
        # frozen embeddings and head stay 16-bit
        nf4_wide_tensors_fp32=False,
        deepspeed=False,
        offload=False,
        source="unslothai/unsloth 015bdef0",
    ),
    Framework.DEEPSPEED: FrameworkProfile(
        key=Framework.DEEPSPEED,
        lora_targets=LoraTargets.QV,
        lora_rank=8,
        optimizer=Optimizer.ADAMW,
        checkpointing=True,
        offload_checkpoints=False,
        logit_bytes=HF_LOGIT_BYTES,
        logit_chunk=0,
        adapter_bytes=4.0,
        float_states=True,
        nf4_wide_tensors_fp32=True,
        # deepspeed edaa7221 deepspeed/runtime/zero/stage_1_and_2.py estimate_zero2_model_states_mem_needs:
        # 2 params_16bit + 18 = 2 grads_16bit + 4 grads_32bit + 4 params_32bit + 8 optimizer states per parameter;
        # stage3.py estimate_zero3_model_states_mem_needs adds 4 × largest layer (the gathered parameters)
        deepspeed=True,
        offload=False,
        source="deepspeedai/DeepSpeed edaa7221",
        transformers_layers=True,
    ),
    Framework.DEEPSPEED_OFFLOAD: FrameworkProfile(
        key=Framework.DEEPSPEED_OFFLOAD,
        lora_targets=LoraTargets.QV,
        lora_rank=8,
        optimizer=Optimizer.ADAMW,
        checkpointing=True,
        offload_checkpoints=False,
        logit_bytes=HF_LOGIT_BYTES,
        logit_chunk=0,
        adapter_bytes=4.0,
        float_states=True,
        nf4_wide_tensors_fp32=True,
        # same estimators, cpu_offload=True: ZeRO-2 keeps 2 B/param on the GPU, ZeRO-3 with offload_param only
        # 4 × largest layer; fp32 gradients, master copy and optimizer states live in host RAM
        deepspeed=True,
        offload=True,
        source="deepspeedai/DeepSpeed edaa7221",
        transformers_layers=True,
    ),
}


def get_framework(key: str) -> FrameworkProfile | None:
    """The profile of a framework key; a ``Framework`` member is its key (a ``StrEnum``)."""
    return FRAMEWORKS.get(str(key))


def lora_targets(key: str, profile: FrameworkProfile) -> LoraTargets | None:
    """The target set a workload names; the profile's default for ""; None for an unknown name."""
    if not key:
        return profile.lora_targets
    try:
        return LoraTargets(key)
    except ValueError:
        return None


def lora_params_per_rank(spec: ModelSpec, targets: LoraTargets) -> int:
    """LoRA parameters per unit of rank: r·(in + out) per adapted matrix (docs/methodology.md §6.3)."""
    parts = _TARGET_PARTS[targets]
    h = max(0, spec.hidden_size)
    heads = max(0, spec.num_attention_heads)
    total = 0
    for group in spec.layer_groups:
        if group.kind in (AttentionKind.FULL, AttentionKind.SLIDING):
            widths = {
                "q": h + heads * group.key_dim,
                "k": h + group.kv_heads * group.key_dim,
                "v": h + group.kv_heads * group.value_dim,
                "o": heads * group.value_dim + h,
            }
            total += group.count * sum(w for name, w in widths.items() if name in parts)
        elif group.kind in (AttentionKind.MLA, AttentionKind.LINEAR):
            # projections estimated as matrices of about h in and h out, one per named target
            total += group.count * 2 * h * len(parts - {"mlp"})
    if "mlp" in parts:
        moe_layers = max(0, spec.moe_layers)
        dense_layers = max(0, spec.num_layers - moe_layers)
        total += dense_layers * 3 * (h + spec.intermediate_size)
        if moe_layers and h and spec.components.shared_experts:
            shared_width = spec.components.shared_experts // (moe_layers * 3 * h)
            total += moe_layers * 3 * (h + shared_width)
    return total


def largest_layer_params(spec: ModelSpec) -> int:
    """The largest module DeepSpeed gathers at once: the embedding, the head or one decoder layer."""
    c = spec.components
    body = max(0, spec.params_total - c.embedding - c.lm_head - c.vision)
    return max(c.embedding, c.lm_head, body // max(1, spec.num_layers))
