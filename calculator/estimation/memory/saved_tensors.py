"""What Hugging Face Transformers holds on the GPU per token: the tensors autograd saves in one decoder layer, the
optimizer step's temporaries, and ``generate``'s prefill.

Read from the code, not fitted: a Llama/Qwen-style layer with SDPA (the flash and memory-efficient backends save
only q, k, v, the output and the log-sum-exp), RMSNorm upcast to fp32, a SwiGLU MLP. Autograd keeps an input of a
matrix product only when the other factor needs a gradient (pytorch/pytorch ``tools/autograd/gen_variable_type.py``
``guard_for``: a saved input used by one derivative only is guarded by ``should_compute_output``), so frozen linear
layers of LoRA save nothing of their own. Sources with commits: SOURCES.md next to this file (docs/methodology.md
§6.2, §6.5).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..facts import SpecFacts
from ..workload import LoraTargets

# Bytes per element of the 16-bit compute dtype.
HALF = 2
# RMSNorm computes in fp32: `hidden_states.to(torch.float32)` and `pow(2)` save the fp32 copy of the input
# (transformers 5dd4a635 src/transformers/models/llama/modeling_llama.py LlamaRMSNorm.forward).
NORM_SAVED_BYTES = 4
# The router's softmax runs in fp32 and saves its output, E values per token (modeling_qwen3_moe.py at the same
# commit family: `F.softmax(router_logits, dim=1, dtype=torch.float)`).
ROUTER_SAVED_BYTES = 4
# Trainer's `bf16` defaults to False (no autocast): PEFT casts a LoRA layer's input to the adapter's fp32 dtype
# (peft 5d602fdb src/peft/tuners/lora/layer.py Linear.forward `self._cast_input_dtype(x, lora_A.weight.dtype)`),
# and lora_A saves that fp32 copy for its weight gradient.
ADAPTER_INPUT_BYTES = 4


@dataclass(frozen=True, slots=True)
class LayerShape:
    """The widths of one decoder layer a token passes through."""

    hidden: int
    kv: int  # hidden × K/H: the width of k and of v
    mlp: int  # the MLP width a token passes through (k × expert width + shared in MoE layers)
    moe_share: float  # share of the layers that route to experts
    experts: int
    experts_per_token: int

    @classmethod
    def of(cls, facts: SpecFacts) -> LayerShape:
        spec = facts.spec
        h = max(0, spec.hidden_size)
        heads = max(1, spec.num_attention_heads)
        layers = max(1, spec.num_layers)
        return cls(
            hidden=h,
            kv=h * max(1, spec.num_kv_heads) // heads,
            mlp=facts.active_mlp_width,
            moe_share=min(1.0, max(0, spec.moe_layers) / layers),
            experts=max(0, spec.experts_routed),
            experts_per_token=max(0, spec.experts_per_token),
        )


def adapted_input_width(shape: LayerShape, targets: LoraTargets) -> int:
    """The summed input widths of the linear layers a target set adapts in one layer (q, k, v, o and gate, up take
    the hidden width; down takes the MLP width)."""
    h = shape.hidden
    if targets is LoraTargets.QV:
        return 2 * h
    if targets is LoraTargets.QVO_MLP:
        return 5 * h + shape.mlp
    return 6 * h + shape.mlp


def layer_saved_bytes(shape: LayerShape, *, trained_weights: bool, adapted_width: int = 0) -> int:
    """Bytes per token autograd keeps for one decoder layer until its backward runs.

    Every layer: both RMSNorms' fp32 inputs (2 × 4h), SDPA's q, k, v and output (2h + 4·kv + 2h), SiLU's input and
    both factors of the gate × up product (3 × 2I). LoRA adds each adapted layer's fp32 input copy. Full fine-tuning
    under Trainer's mixed precision (fp32 weights, bf16 autocast, so an fp32 residual stream) adds what the weight
    gradients need: both norms' fp32 normalised outputs (2 × 4h), the bf16 casts of the q/k/v, o and gate/up
    inputs (3 × 2h) and of the down projection's input (2I)."""
    h, kv, mlp = shape.hidden, shape.kv, shape.mlp
    saved = 2 * NORM_SAVED_BYTES * h + HALF * (2 * h + 2 * kv) + 3 * HALF * mlp
    if shape.moe_share:
        # the router's fp32 probabilities and each chosen expert's output kept for the routing-weight product
        routed = ROUTER_SAVED_BYTES * shape.experts + HALF * shape.experts_per_token * h
        saved += round(shape.moe_share * routed)
    if trained_weights:
        saved += 2 * NORM_SAVED_BYTES * h + 3 * HALF * h + HALF * mlp
    return saved + ADAPTER_INPUT_BYTES * adapted_width


def layer_backward_bytes(shape: LayerShape) -> int:
    """Bytes per token the layer being back-propagated adds: the gradients of its gate and up outputs and of its
    input and output, 16 bit (the gradient buffers live while the layer's backward runs)."""
    return HALF * (2 * shape.hidden + 2 * shape.mlp)


def checkpoint_bytes(shape: LayerShape, *, trained_weights: bool) -> int:
    """Bytes per token of one checkpointed layer input: the residual stream, 16 bit for a 16-bit model and fp32 under
    Trainer's mixed precision (the fp32 embedding output flows through the residual adds)."""
    return (4 if trained_weights else HALF) * shape.hidden


def adamw_foreach_bytes(trainable: int, param_bytes: float) -> int:
    """torch AdamW's foreach step allocates one list the size of the trainable parameters, in their dtype
    (pytorch dc80ccde torch/optim/adam.py ``_multi_tensor_adam``: ``exp_avg_sq_sqrt = torch._foreach_sqrt(...)``)."""
    return round(trainable * param_bytes)


@dataclass(frozen=True, slots=True)
class PrefillPeak:
    """``generate``'s prefill without autograd: one layer's working tensors at a time, the padding mask and the
    last token's logits."""

    layer_bytes: int
    mask_bytes: int
    logits_bytes: int

    @property
    def total(self) -> int:
        return self.layer_bytes + self.mask_bytes + self.logits_bytes


def generate_prefill(facts: SpecFacts, prompt_tokens: int, batch: int) -> PrefillPeak:
    """The prefill's peak beside weights and cache for ``batch`` prompts of ``prompt_tokens``.

    The MLP's moment of most memory: the residual and the normed input (2 × 2h), SiLU's output, the up output and
    their product (3 × 2I), all 16 bit. A batch of more than one prompt is left-padded, so SDPA gets a mask: a bool
    b × s × s tensor built once (transformers masking_utils ``sdpa_mask``), and k, v repeated to every head
    (``repeat_kv`` when a mask is given, integrations/sdpa_attention.py 00c238bd). generate computes only the last
    token's logits (generation/utils.py 1097d4b3: ``model_kwargs["logits_to_keep"] = 1``), 16 bit plus the fp32 copy
    the sampler takes."""
    shape = LayerShape.of(facts)
    s, b = max(1, prompt_tokens), max(1, batch)
    h, mlp = shape.hidden, shape.mlp
    mlp_peak = HALF * (2 * h + 3 * mlp)
    # the residual, q, k, v (with their copies repeated to every head under a mask) and SDPA's output
    repeated = 2 * h if b > 1 else 0
    attention_peak = HALF * (3 * h + 2 * shape.kv + repeated)
    layer = s * b * max(mlp_peak, attention_peak)
    mask = b * s * s if b > 1 else 0
    vocab = max(0, facts.spec.vocab_size)
    return PrefillPeak(layer_bytes=layer, mask_bytes=mask, logits_bytes=b * vocab * (HALF + 4))
