"""Speed: how fast a configuration prefills and decodes, alone and under load.

- ``step_time``: what one decode or prefill step costs per engine and platform (roofline efficiencies, fixed costs
  per layer and step, all-reduce and all-to-all over each interconnect).
- ``estimate``: ``speed(spec, workload, hardware)``, one request's prefill and decode speed from those step costs.
- ``batching``: the request-level simulation of an engine's scheduler (admission, chunked prefill, preemption).
- ``serving``: the throughput a configuration sustains at a per-request speed floor (what a cost is priced on).

Imports: the foundation modules, ``engines`` and ``memory`` only.
"""
