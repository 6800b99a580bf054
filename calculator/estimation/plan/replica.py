"""One replica's steady-load capacity on a GPU type split one way: the step costs of the engine on that GPU
(speed/step_model.py), the batch and KV limits it starts with (speed/schedulers.py) and the planner's search for the
largest batch within the targets (planner.py). The planner's rows, the model page's self-host against API and
``manage.py estimate --price`` all read it, so a configuration has one capacity wherever it is priced.
"""

from __future__ import annotations

from dataclasses import replace

from models_catalog.architecture import ModelSpec
from pricing.gpus import GpuSpec

from ..speed.schedulers import engine_scheduler
from ..speed.step_model import step_model
from ..workload import Workload
from .planner import Demand, ReplicaCapacity, replica_capacity


def replica_on(
    spec: ModelSpec, workload: Workload, gpu: GpuSpec, tensor_parallel: int, stages: int, demand: Demand
) -> ReplicaCapacity | None:
    """The capacity of one replica on ``tensor_parallel`` × ``stages`` GPUs of ``gpu``; None without a speed figure
    or when one request misses the targets. Under pipeline stages a token passes every stage in turn (a step reads
    all the weights, one stage after another) while as many batches as stages are in flight (estimated)."""
    if not gpu.memory_bandwidth_gbps:
        return None
    tp, stages = max(1, tensor_parallel), max(1, stages)
    step = step_model(spec, workload, gpu, tp)
    if step is None:
        return None
    scheduler = engine_scheduler(spec, workload, gpu.capacity_bytes, gpu.name, tp * stages, workload.context)
    if stages > 1:
        scheduler = replace(scheduler, kv_tokens=scheduler.kv_tokens // stages)
    found = replica_capacity(step, scheduler, demand)
    if found is None or stages == 1:
        return found
    return replace(
        found, concurrency=found.concurrency * stages, output_tokens_per_s=found.output_tokens_per_s * stages
    )
