"""Engines: what each inference engine is and does, before any memory is counted.

- ``profiles``: each engine's fixed profile (vLLM, SGLang, llama.cpp, Ollama, MLX, Transformers) and the KV-cache
  dtypes it offers.
- ``releases``: the table of each engine's release lines and the rules that changed between them (start-up budget,
  batch defaults, reserves, cache layouts); parses a release a reader names.
- ``dp_attention``: data-parallel attention for MLA mixture-of-experts models (which weights every rank holds).
- ``builds``: published builds (GGUF, MLX, AWQ, FP8 …): the precision each sizes and the runtimes that load it.
- ``sourcing``: where a command's weights come from (the model's repository, a published build, a conversion).
- ``launch``: the command line each engine is started with.

Imports: the foundation modules (``workload``, ``precision``, ``facts``, ``memo``) only.
"""
