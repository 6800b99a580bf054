"""Speed: how fast a configuration prefills and decodes, alone and under load.

- ``step_time``: what one decode or prefill step costs per engine and platform (roofline efficiencies, fixed costs
  per layer and step, all-reduce and all-to-all over each interconnect).
- ``work``: what one step of a model asks of the hardware (bytes read, FLOPs per token, fixed costs) and what the
  speed model reads from the hardware (``SpeedHardware``: bandwidth, FLOPs, platform, interconnect, memory).
- ``kernels``: the engines' kernels measured per GPU (GEMM, fused MoE, attention, all-reduce) as shares of the
  nameplate figures, from ``data/kernels.json``.
- ``step_model``: the cost of a step that mixes decode and prefill, from measured kernels and the engine's own costs
  where they exist, from ``step_time``'s roofline elsewhere.
- ``estimate``: ``speed(spec, workload, hardware)``, one request's prefill and decode speed from those step costs.
- ``load_test``: what a serving benchmark sends (requests, lengths per dataset, rate) and prints.
- ``schedulers``: each engine's limits and policy per release (vLLM V1 and V0, SGLang).
- ``batching``: the request-level simulation of an engine's scheduler (admission, chunked prefill, preemption).

Imports: the foundation modules, ``engines`` and ``memory`` only.
"""
