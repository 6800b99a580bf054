"""Memory: the bytes a model needs on one machine, term by term, and how many GPUs hold them.

- ``estimate``: ``estimate(spec, workload) -> Breakdown``, the entry point; it adds the terms below.
- ``weights``: weight bytes at a precision (and vLLM's MXFP4 layout); ``gguf``: GGUF files sized tensor by tensor.
- ``kv``: KV cache and linear-attention state per token; ``encoder_profile``: vLLM's multimodal encoder profile.
- ``overhead``: each engine's runtime overhead (vLLM's profiled peak, SGLang's reserve, llama.cpp's buffers, MLX).
- ``capacity``: the KV tokens and concurrency an engine reports at start-up.
- ``training``, ``frameworks``, ``applicability``: fine-tuning (LoRA, QLoRA, full), each framework's defaults, and
  which modes run at which precision; ``saved_tensors``: what Transformers holds per token (autograd's saved tensors
  per decoder layer, AdamW's foreach temporaries, generate's prefill).
- ``reference``: the reference page's 10 % + 1 GB rule, kept for the methodology page's comparison only.
- ``fit``: how many GPUs (or how much of a Mac) a need takes under each engine's budget rule.

Imports: the foundation modules and ``engines`` only.
"""
