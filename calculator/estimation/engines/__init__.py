"""Engines: what each inference engine is and does, before any memory is counted.

- ``profiles``: each engine's fixed profile (vLLM, SGLang, llama.cpp, Ollama, MLX, Transformers) and the KV-cache
  dtypes it offers.
- ``releases``: every engine's release lines in one table (the names importers read), the line a release belongs to
  and its label; the lines themselves, with the rules that changed between them, in ``vllm_lines`` (start-up budget,
  batch defaults), ``sglang_lines`` (the static-memory reserve) and ``local_lines`` (llama.cpp and MLX-LM caches);
  ``versions`` reads release numbers.
- ``dp_attention``: data-parallel attention for MLA mixture-of-experts models (which weights every rank holds).
- ``kernels``: which GPU architectures an engine's kernels for a model's attention need (sparse attention: Hopper
  and data-centre Blackwell in vLLM).
- ``builds``: published builds (GGUF, MLX, AWQ, FP8 …): the precision each sizes and the runtimes that load it.
- ``sourcing``: where a command's weights come from (the model's repository, a published build, a conversion).
- ``launch``: the command line each engine is started with.

Imports: the foundation modules (``workload``, ``precision``, ``tensor_bits``, ``gguf_types``, ``facts``, ``memo``)
only.
"""
