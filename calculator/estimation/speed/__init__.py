"""Speed: how fast a configuration prefills and decodes, alone and under load.

- ``step_time``: what one decode or prefill step costs per engine and platform (roofline efficiencies, fixed costs
  per layer and step, all-reduce and all-to-all over each interconnect).
- ``work``: what one step of a model asks of the hardware (bytes read, FLOPs per token, fixed costs) and what the
  speed model reads from the hardware (``SpeedHardware``: bandwidth, FLOPs, platform, interconnect, memory).
- ``estimate``: ``speed(spec, workload, hardware)``, one request's prefill and decode speed from those step costs;
  ``step_model``, the cost of a step that mixes decode and prefill, for the scheduler simulation.
- ``batching``: the request-level simulation of an engine's scheduler (admission, chunked prefill, preemption).
- ``serving``: the throughput a configuration sustains at a per-request speed floor (what a cost is priced on).

Imports: the foundation modules, ``engines`` and ``memory`` only.
"""
