"""Plan: choosing and pricing hardware for a workload, from the memory and speed below.

- ``placement``: the parallel layout an engine runs on a count of GPUs (tensor × pipeline, data-parallel attention).
- ``deployment``: one GPU or Mac plan per configuration (need, GPUs, layout, speed) and its launch command.
- ``ranking``: GPUs and instances ranked by price for a need; ``cost``: hourly, monthly and per-token cost, hosted
  API prices and the break-even against them.
- ``inverse``: the longest context or the most requests that fit on given hardware.
- ``offload``, ``offload_fit``: llama.cpp's split over GPUs and system RAM, the best one that fits, its speed.
- ``planner``: the cheapest ways to serve a monthly volume within latency targets; ``queueing``: the wait for a free
  place in a replica its KV cache or sequence limit fills (Erlang C); ``replica``: one replica's capacity on a GPU
  type split one way, which every priced configuration reads.

Imports: the foundation modules, ``engines``, ``memory`` and ``speed``.
"""
