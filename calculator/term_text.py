"""The words of a memory breakdown: each term's label and formula, in the reader's language.

The estimation core says what a term is (``key``), which formula shape made it (``variant``) and its named
inputs; the words live here as message-catalog strings (``make messages`` extracts them, locale/ translates
them). Numbers are written as the active locale writes them (Babel's CLDR data).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping

from babel.numbers import format_decimal
from django.utils.functional import Promise
from django.utils.translation import get_language, to_locale
from django.utils.translation import gettext_lazy as _

from calculator.estimation import Term

_LABELS: Mapping[tuple[str, str], Promise] = {
    ("weights", ""): _("Weights"),
    ("input_embedding_host", ""): _("Input embedding (host RAM)"),
    ("kv_cache", ""): _("KV cache"),
    ("linear_state", ""): _("Linear-attention state"),
    ("replicated_weights", ""): _("Attention weights on every GPU"),
    ("weights_layout", ""): _("MXFP4 kernel layout"),
    ("load_peak", ""): _("Loading the 16-bit weights first"),
    ("draft_weights", ""): _("MTP draft layer"),
    ("overhead", ""): _("Runtime overhead"),
    ("overhead", "sglang"): _("Reserved for activations and CUDA graphs"),
    ("overhead", "sglang_fraction"): _("Reserved for activations and CUDA graphs"),
    ("compute_buffer", ""): _("Compute buffer"),
    ("output_buffer_host", ""): _("Logits buffer (host RAM)"),
    ("fit_margin", ""): _("Free margin"),
    ("activations", ""): _("Activations"),
    ("activations", "prefill"): _("Prefill activations"),
    ("adapters", ""): _("LoRA adapters"),
    ("gradients", ""): _("Gradients"),
    ("optimizer", ""): _("Optimizer state"),
    ("optimizer", "step"): _("Optimizer step temporaries"),
    ("activations", "generate_prefill"): _("Prefill activations"),
    ("logits", ""): _("Logits for the loss"),
    ("activations_host", ""): _("Offloaded activations (host RAM)"),
    ("gather_buffer", ""): _("ZeRO-3 gathered layer"),
}

# str.format templates over a term's inputs; rules and sources in calculator/estimation/SOURCES.md.
_FORMULAS: Mapping[tuple[str, str], Promise] = {
    ("weights", ""): _("{params} parameters × {bits} bits ÷ 8 ({precision}: {rule})"),
    ("weights", "host_embedding"): _(
        "{params} parameters × {bits} bits ÷ 8 ({precision}: {rule}) − {host} bytes kept in host RAM"
    ),
    ("weights", "measured"): _("{bytes} bytes: the build's weight files as published or listed on the Hub"),
    ("weights", "lora"): _("{params} parameters × {bits} bits ÷ 8 (frozen base weights, {shard})"),
    ("weights", "qlora"): _(
        "{params} parameters × {bits} bits ÷ 8 (frozen NF4 base, non-4-bit tensors cast to fp32, {shard})"
    ),
    ("weights", "qlora_16bit"): _(
        "{params} parameters × {bits} bits ÷ 8 (frozen NF4 base, non-4-bit tensors kept 16-bit, {shard})"
    ),
    ("weights", "full"): _("{params} parameters × {bits} bits ÷ 8 (trained weights, {shard})"),
    ("input_embedding_host", ""): _("{engine} keeps token_embd in CPU memory: {rows} parameters × {bits} bits ÷ 8"),
    ("kv_cache", ""): _(
        "{bytes_per_token} bytes per token ({layers} cached layers, {kv_dtype}) × {cells} cells × concurrent "
        "requests ({requests}; {engine} paging)"
    ),
    ("weights_layout", "vllm_mxfp4"): _(
        "vLLM's MXFP4 expert layout for its Triton kernel, {layers} layers × {experts} experts over {tp} GPU(s): "
        "expert scales kept twice (the original and a copy padded to 256 rows) {scales} bytes + biases widened to "
        "fp32 {biases} bytes + each GPU's expert width padded to {width} {padding} bytes"
    ),
    ("draft_weights", ""): _(
        "the model's multi-token-prediction layers ({layers}) run as the draft of speculative decoding: {params} "
        "parameters at the weights' precision, the embedding and head shared with the model"
    ),
    ("load_peak", "sglang"): _(
        "{engine} loads the released 16-bit weights ({weights} bytes) before it casts them to FP8: the GPUs hold "
        "them while loading, this much more than the {steady} bytes once started"
    ),
    ("load_peak", "vllm"): _(
        "this vLLM line loads the released 16-bit weights ({weights} bytes) before it casts them to FP8 (from "
        "January 2026 it casts each layer as it loads): the GPUs hold them while loading, this much more than the "
        "{steady} bytes once started"
    ),
    ("replicated_weights", ""): _(
        "{bytes} bytes {engine} holds whole on each of {ranks} data-parallel attention GPUs (attention and what it "
        "does not split) × {copies} copies beyond the one the weights count"
    ),
    ("linear_state", ""): _(
        "fixed state per sequence (conv × {conv_bytes} B + recurrent × {ssm_bytes} B per element) × concurrent "
        "requests ({requests})"
    ),
    ("overhead", "reference"): _(
        "10 % × (weights + KV cache = {base} bytes) + 1 GB, the reference page's allowance ({engine} publishes no "
        "start-up rule: estimated)"
    ),
    ("overhead", "vllm"): _(
        "{release}'s start-up budget: the profiled peak {activation} bytes (the larger of one layer's activations "
        "over 8,192 tokens and {buffers} × {seqs} sequences × {vocab} vocabulary × 4 B), CUDA graphs {cudagraph} "
        "bytes, memory outside PyTorch and the CUDA context"
    ),
    ("overhead", "vllm_encoder_image"): _(
        "{release}'s start-up budget: the profiled peak {activation} bytes (the larger of the vision encoder's step "
        "over {items} dummy images and the text profile, {text_peak} bytes, with the encoder's outputs still held), "
        "CUDA graphs {cudagraph} bytes, memory outside PyTorch and the CUDA context"
    ),
    ("overhead", "vllm_encoder_video"): _(
        "{release}'s start-up budget: the profiled peak {activation} bytes (the larger of the vision encoder's step "
        "over {items} dummy video(s) as long as the context allows and the text profile, {text_peak} bytes, with the "
        "encoder's outputs still held), CUDA graphs {cudagraph} bytes, memory outside PyTorch and the CUDA context"
    ),
    ("overhead", "sglang"): _(
        "SGLang reserved_mem = 512 + 1.5 × chunked_prefill + 2 × cuda_graph_max_bs + 128 MiB, at least 10 GiB on "
        "GPUs over 60 GiB = {reserved} MiB"
    ),
    ("overhead", "sglang_fraction"): _(
        "{release}: the GPU beside its default mem_fraction_static {fraction} = {reserved} MiB"
    ),
    ("overhead", "training"): _("10 % × {base} bytes + 1 GB per GPU (CUDA context, allocator fragmentation)"),
    ("compute_buffer", "llama.cpp"): _("max(4 × {ubatch} × (1 + 4 × {h}), 4 × {ubatch} × ({h} + {vocab})) bytes"),
    ("compute_buffer", "ollama"): _(
        "Ollama's graph estimate max(4 × {ubatch} × (1 + 4 × {h} + {cells} × (1 + {heads})), 4 × {ubatch} × "
        "({h} + {vocab})) bytes"
    ),
    ("output_buffer_host", ""): _("{vocab} vocabulary × {seqs} sequences × 4 B"),
    ("fit_margin", ""): _("llama.cpp auto-fit keeps {margin} bytes free per device"),
    ("activations", "prefill"): _("{chunk} tokens per prefill step × ({vocab} logits + 4 × {h} + 3 × {mlp} MLP) × 2 B"),
    ("activations", "saved"): _(
        "{layers} layers × {s} tokens × {b} batch × {per_layer} B saved per layer (fp32 norm inputs, SDPA q, k, v, "
        "output, SwiGLU factors and {adapted} adapter inputs in fp32)"
    ),
    ("activations", "saved_checkpointing"): _(
        "checkpointing: {layers} layers × {s} tokens × {b} batch × {checkpoint} B + one layer recomputed with its "
        "backward, {layer} bytes"
    ),
    ("activations", "saved_offloaded"): _(
        "checkpoints in host RAM; on the GPU one layer recomputed with its backward, {layer} bytes"
    ),
    ("activations", "generate_prefill"): _(
        "generate's prefill: one layer's working tensors over {tokens} tokens × {batch} prompts ({layer} bytes), the "
        "padding mask ({mask} bytes) and the last token's logits ({logits} bytes)"
    ),
    ("optimizer", "step"): _(
        "AdamW's foreach step: {trainable} trainable parameters × {each} B of temporaries ({temporaries} bytes), less "
        "{freed} bytes of activations and logits freed before it"
    ),
    ("activations", "checkpointing"): _(
        "checkpointing: {layers} layers × 2 × {s} tokens × {b} batch × {h} hidden + one layer recomputed with its "
        "backward {s} × {b} × (16 × {h} + 4 × {h} × K/H + 10 × {mlp}) bytes"
    ),
    ("activations", "offloaded"): _(
        "checkpoints in host RAM; on the GPU one layer recomputed with its backward {s} × {b} × (16 × {h} + 4 × "
        "{h} × K/H + 10 × {mlp}) bytes"
    ),
    ("activations", ""): _(
        "{layers} layers × {s} tokens × {b} batch × (12 × {h} + 4 × {h} × K/H + 6 × {mlp}) bytes + one layer's "
        "backward {s} × {b} × (4 × {h} + 4 × {mlp}) bytes"
    ),
    ("activations_host", ""): _("{layers} layers × 2 × {s} tokens × {b} batch × {h} hidden (checkpointed inputs)"),
    ("gather_buffer", ""): _("4 B × {largest} parameters of the largest layer, gathered on each of {gpus} GPUs"),
    ("adapters", ""): _(
        "rank {rank} × {per_rank} (in + out of every adapted linear layer) = {trainable} parameters × {each} B, {shard}"
    ),
    ("gradients", ""): _("{trainable} trainable parameters × {each} B, {shard}"),
    ("optimizer", ""): _("{trainable} trainable parameters × {each} B ({optimizer}), {shard}"),
    ("logits", ""): _(
        "{s} tokens × {b} batch × {vocab} vocabulary × {each} B (fp32 log-softmax saved for backward and its two "
        "gradients)"
    ),
    ("logits", "chunked"): _(
        "{tokens} tokens per loss chunk × {vocab} vocabulary × {each} B (fp32 logits and gradient)"
    ),
    ("logits", "output_chunks"): _(
        "{s} tokens × {b} batch × {vocab} vocabulary × {each} B (one of 8 output chunks live, bf16 + fp32)"
    ),
    ("logits", "fused"): _("fused loss kernel: the {vocab}-wide logits are never materialised"),
}

# How a training state spreads over data-parallel GPUs (the term's "shard" input).
_SHARDS: Mapping[str, Promise] = {
    "sharded": _("sharded over {gpus} GPUs (ZeRO-{zero_stage})"),
    "replicated": _("replicated on {gpus} GPUs"),
    "single": _("one copy"),
    "offloaded": _("in host RAM (ZeRO-Offload)"),
}


class _Inputs(dict[str, str]):
    """Leaves a placeholder a translation names but the term lacks as it is, rather than failing the page."""

    def __missing__(self, name: str) -> str:
        return "{" + name + "}"


def term_label(term: Term) -> str:
    """The term's label in the active language; the key itself for a term this module has no words for."""
    label = _LABELS.get((term.key, term.variant)) or _LABELS.get((term.key, ""))
    return str(label) if label is not None else term.key


# How each precision stores the weights, as the weights formula names it ({rule}); the core's English description
# is the fallback for a rule not listed here.
_RULES: Mapping[str, Promise] = {
    "every tensor in 32-bit floats": _("every tensor in 32-bit floats"),
    "every tensor in 16-bit floats": _("every tensor in 16-bit floats"),
    "linear weights FP8 E4M3 with one fp32 scale per 128×128 block; embeddings, head, norms, router and vision tower "
    "stay BF16": _(
        "linear weights FP8 E4M3 with one fp32 scale per 128×128 block; embeddings, head, norms, router and vision "
        "tower stay BF16"
    ),
    "1 byte per parameter + 5 % for quantization scales, every parameter": _(
        "1 byte per parameter + 5 %% for quantization scales, every parameter"
    ),
    "0.5 byte per parameter + 5 % for quantization scales, every parameter": _(
        "0.5 byte per parameter + 5 %% for quantization scales, every parameter"
    ),
    "linear weights 4-bit, fp16 scale and packed 4-bit zero per 128; embeddings, head, norms, router and vision tower "
    "stay 16-bit": _(
        "linear weights 4-bit, fp16 scale and packed 4-bit zero per 128; embeddings, head, norms, router and vision "
        "tower stay 16-bit"
    ),
    "as AWQ, plus an int32 g_idx per input channel (counted with the model's real widths)": _(
        "as AWQ, plus an int32 g_idx per input channel (counted with the model's real widths)"
    ),
    "nn.Linear weights NF4 in blocks of 64 with double-quantized absmax; embeddings, lm_head (skipped by default), "
    "norms and vision tower stay 16-bit": _(
        "nn.Linear weights NF4 in blocks of 64 with double-quantized absmax; embeddings, lm_head (skipped by "
        "default), norms and vision tower stay 16-bit"
    ),
    "routed-expert weights MXFP4 (E2M1 + one E8M0 scale per 32); every other tensor BF16": _(
        "routed-expert weights MXFP4 (E2M1 + one E8M0 scale per 32); every other tensor BF16"
    ),
    "linear weights NVFP4 (E2M1 + one FP8 E4M3 scale per 16, experts included); embeddings, head, norms, router and "
    "vision tower stay 16-bit": _(
        "linear weights NVFP4 (E2M1 + one FP8 E4M3 scale per 16, experts included); embeddings, head, norms, router "
        "and vision tower stay 16-bit"
    ),
}
_GGUF_RULE = re.compile(r"^llama\.cpp (\S+): body (\S+), output (\S+), token_embd (\S+)( \(per-tensor overrides.*\))?$")
_MLX_RULE = re.compile(r"^linear and embedding weights affine (\d+)-bit, group 64")


def precision_rule(description: str) -> str:
    """The core's description of a precision's storage rule, in the active language."""
    if description in _RULES:
        return str(_RULES[description]) % {}
    gguf = _GGUF_RULE.match(description)
    if gguf:
        name, body, output, embedding, partial = gguf.groups()
        text = str(_("llama.cpp {name}: body {body}, output {output}, token_embd {embedding}")).format(
            name=name, body=body, output=output, embedding=embedding
        )
        return text + (str(_(" (per-tensor overrides beyond head and embedding not modelled)")) if partial else "")
    mlx = _MLX_RULE.match(description)
    if mlx:
        return str(
            _(
                "linear and embedding weights affine {bits}-bit, group 64 (fp16 scale + bias); routers 8-bit; "
                "norms and vision tower 16-bit"
            )
        ).format(bits=mlx.group(1))
    return description


def term_formula(term: Term) -> str:
    """How the term's bytes were made, with its inputs written in the active locale."""
    values = _display(term.inputs)
    if "rule" in values:
        values["rule"] = precision_rule(str(term.inputs["rule"]))
    shard = _SHARDS.get(str(term.inputs.get("shard", "")))
    if shard is not None:
        values["shard"] = str(shard).format_map(values)
    template = _FORMULAS.get((term.key, term.variant)) or _FORMULAS.get((term.key, ""))
    if template is None:
        return ", ".join(f"{name} = {value}" for name, value in values.items())
    return str(template).format_map(values)


def _display(inputs: Mapping[str, int | float | str]) -> _Inputs:
    locale = to_locale(get_language() or "en")
    return _Inputs({name: _number(value, locale) for name, value in inputs.items()})


def _number(value: int | float | str, locale: str) -> str:
    """Whole numbers with grouping (8,030,261,248); fractions to 4 significant digits (4.562), whole above 10⁴."""
    if isinstance(value, bool | str) or not math.isfinite(value):
        return str(value)
    if isinstance(value, int):
        return format_decimal(value, format="#,##0", locale=locale)
    if abs(value) >= 1e4:
        return format_decimal(value, format="#,##0", locale=locale)
    return format_decimal(float(f"{value:.4g}"), format="#,##0.##########", locale=locale)
