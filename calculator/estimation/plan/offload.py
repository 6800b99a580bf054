"""llama.cpp / Ollama: where a GGUF model's tensors, cache and buffers go when it is split over GPUs and RAM.

Where llama.cpp puts each tensor (ggml-org/llama.cpp at commit 145b6280d6aa1890e22457143dad0badb3fd6820):
- ``src/llama-model.cpp`` ``load_tensors``: the input layer (``token_embd``) always stays on the CPU; of the
  ``n_layer`` repeating layers the last ``n_gpu_layers`` go to the GPUs (``i_gpu_start = n_layer + 1 −
  n_gpu_layers``), the output layer (``output``, ``output_norm``) too once ``n_gpu_layers > n_layer``; several GPUs
  share the offloaded layers in proportion to their free memory (``--tensor-split`` default).
- ``common/arg.cpp``: ``-ot/--override-tensor exps=CPU`` and ``--cpu-moe`` keep every tensor whose name matches
  ``exps`` (the routed experts ``ffn_{gate,up,down}_exps``) in host memory; ``--n-cpu-moe N`` does so for the
  experts of layers 0 … N − 1 only. Attention, shared experts (``*_shexp``), norms, routers and the KV cache of
  those layers stay on their GPU.
- ``src/llama-kv-cache.cpp``: each layer's cache lives on that layer's device (``offload_kqv`` on by default).
- ``src/llama-context.cpp`` ``graph_reserve``: one compute buffer per device sized for a ``n_ubatch`` graph; when
  weights live in host memory, the scheduler copies a layer's weights to the GPU for large batches
  (``op_offload``), which adds that copy to the GPU's compute buffer (estimated: one layer's routed experts).

Bytes per tensor come from ``memory/gguf.py`` (llama-quantize's type rules). This module places the tensors of one
split; ``plan/offload_fit.py`` searches the splits for the best one that fits a reader's GPUs and RAM, and its decode
speed. Pure Python, no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum

from models_catalog.architecture import ModelSpec

from ..memo import per_spec
from ..memory.estimate import estimate
from ..memory.gguf import FTYPE_DEFAULT, Role, gguf_size, tensor_bytes, tensor_types
from ..memory.kv import LLAMA_CPP_N_UBATCH
from ..precision import get_precision
from ..workload import Breakdown, Workload

# Host-side compute buffer ("CUDA_Host compute buffer size"): ≈ 8 fp32 rows of the hidden size per ubatch token
# (estimated from gpt-oss-120b's 47.5 MiB at ubatch 512, ollama/ollama issue #12403, 2025-09-26).
HOST_COMPUTE_ROWS = 8
# The quantized file readers pick when the page asks for a generic precision (llama.cpp has no fp8 or int4 type).
GGUF_FOR_PRECISION: Mapping[str, str] = {
    "fp32": "F32",
    "fp16": "F16",
    "bf16": "BF16",
    "fp8": "Q8_0",
    "int8": "Q8_0",
    "int4": "Q4_K_M",
    "awq": "Q4_K_M",
    "gptq": "Q4_K_M",
    "nf4": "Q4_K_M",
    "mxfp4": "MXFP4_MOE",
}


class Placement(StrEnum):
    """How the model is split; the words a page shows come from calculator/term_text.py."""

    GPU = "gpu"  # every layer on the GPU(s) (-ngl 99)
    EXPERTS_CPU = "experts_cpu"  # all routed experts in RAM (-ot exps=CPU / --cpu-moe)
    N_CPU_MOE = "n_cpu_moe"  # the experts of the first N MoE layers in RAM (--n-cpu-moe N)
    LAYERS = "layers"  # the last N layers on the GPU(s), the rest with their cache on the CPU (-ngl N)
    NONE = "none"  # does not fit GPU and RAM together


@dataclass(frozen=True, slots=True)
class OffloadSplit:
    """Bytes on the GPU(s) and in RAM for one placement. ``gpu_bytes`` is all GPUs together."""

    ftype: str
    placement: Placement
    gpu_layers: int  # llama.cpp's -ngl value: repeating layers on GPU (+ 1 with the output layer)
    cpu_moe_layers: int  # MoE layers whose routed experts stay in RAM (--n-cpu-moe N)
    gpus: int
    gpu_weights_bytes: int
    gpu_kv_bytes: int
    gpu_compute_bytes: int  # all GPUs' compute buffers (op-offload copy included)
    gpu_extra_bytes: int  # mmproj and draft / MTP model when used
    host_weights_bytes: int
    host_kv_bytes: int
    host_compute_bytes: int  # CUDA_Host compute buffer + output (logits) buffer
    per_gpu_bytes: int  # the fullest GPU
    inputs: Mapping[str, int | float | str]
    estimated: bool = True

    @property
    def gpu_bytes(self) -> int:
        return self.gpu_weights_bytes + self.gpu_kv_bytes + self.gpu_compute_bytes + self.gpu_extra_bytes

    @property
    def host_bytes(self) -> int:
        return self.host_weights_bytes + self.host_kv_bytes + self.host_compute_bytes


@dataclass(frozen=True, slots=True)
class LayerBytes:
    """One repeating layer's tensors in a GGUF build, in bytes."""

    experts: int  # routed-expert bytes
    rest: int  # attention, shared experts, norms, router


@dataclass(frozen=True, slots=True)
class GgufLayout:
    """A GGUF build's tensors by where llama.cpp can place them: input embedding, output, each layer, projector."""

    ftype: str
    token_embd: int
    output: int  # output head, output norm and anything else outside the blocks
    layers: tuple[LayerBytes, ...]
    mmproj: int


def gguf_ftype_for(precision: str) -> str:
    """The llama.cpp file type for a precision key: a GGUF key as it is, a generic one as GGUF_FOR_PRECISION."""
    found = get_precision(precision)
    if found is not None and found.gguf_ftype:
        return found.gguf_ftype.upper()
    name = precision.lower()
    if name.upper() in FTYPE_DEFAULT:
        return name.upper()
    return GGUF_FOR_PRECISION.get(name, "Q4_K_M")


def gguf_layout(spec: ModelSpec, ftype: str) -> GgufLayout:
    """The bytes of ``spec``'s tensors in a ``ftype`` build, per layer (remembered per spec and type)."""
    # one split search asks for the same per-layer bytes once per candidate split
    return per_spec("gguf-layers", spec, ftype, lambda: _count_tensors(spec, ftype))


def _count_tensors(spec: ModelSpec, ftype: str) -> GgufLayout:
    layers = max(1, spec.num_layers)
    experts = [0] * layers
    rest = [0] * layers
    embd = outside = 0
    for tensor, type_name in tensor_types(spec, ftype):
        size = tensor_bytes(type_name, tensor.elements)
        if tensor.role is Role.TOKEN_EMBD:
            embd += size
        elif tensor.layer < 0:
            outside += size
        elif tensor.experts > 1:
            experts[tensor.layer] += size
        else:
            rest[tensor.layer] += size
    return GgufLayout(
        ftype=ftype,
        token_embd=embd,
        output=outside,
        layers=tuple(LayerBytes(e, r) for e, r in zip(experts, rest, strict=True)),
        mmproj=gguf_size(spec, ftype).mmproj_bytes,
    )


def _estimate(spec: ModelSpec, workload: Workload) -> Breakdown:
    return estimate(spec, workload)  # remembered by the core per spec and workload


def _llama_workload(workload: Workload, ftype: str) -> Workload:
    engine = workload.engine if workload.engine in ("llama.cpp", "ollama") else "llama.cpp"
    return replace(workload, engine=engine, precision=f"gguf:{ftype.lower()}", weights_file_bytes=None)


def offload_split(
    spec: ModelSpec,
    workload: Workload,
    *,
    placement: Placement,
    gpus: int = 1,
    cpu_moe_layers: int = 0,
    gpu_layers: int | None = None,
    mmproj: bool = False,
    draft_bytes: int = 0,
) -> OffloadSplit:
    """Bytes on GPU and in RAM when llama.cpp runs ``spec`` in ``workload.precision`` (a GGUF type, or the type
    GGUF_FOR_PRECISION gives) with ``placement``. ``cpu_moe_layers``: for N_CPU_MOE, the MoE layers whose experts
    stay in RAM; ``gpu_layers``: for LAYERS, the -ngl value. ``mmproj``: the vision projector is loaded (on the
    GPU, llama-server's default); ``draft_bytes``: a draft or MTP model's weights and cache on the GPU."""
    ftype = gguf_ftype_for(workload.precision)
    t = gguf_layout(spec, ftype)
    n = len(t.layers)
    count = max(1, gpus)
    lw = _llama_workload(workload, ftype)
    breakdown = _estimate(spec, lw)
    compute = breakdown.bytes_of("compute_buffer")

    moe_first = n - max(0, min(n, spec.moe_layers))  # MoE layers follow the dense lead layers
    on_gpu, cpu_moe = _layers_on_gpu(placement, n, cpu_moe_layers, gpu_layers)
    first_gpu = n - min(n, on_gpu)  # llama.cpp offloads the last layers first
    output_on_gpu = placement in (Placement.GPU, Placement.EXPERTS_CPU, Placement.N_CPU_MOE) or on_gpu > n
    gpu_w, host_w, largest_cpu_experts, gpu_layer_count = _place_weights(t, first_gpu, cpu_moe, output_on_gpu)
    kv_gpu = round(breakdown.kv_cache_bytes * gpu_layer_count / n) if n else 0
    on_any_gpu = gpu_layer_count > 0 or output_on_gpu
    gpu_compute, host_compute = _compute_buffers(spec, breakdown, count, largest_cpu_experts, on_any_gpu)
    extra = (t.mmproj if mmproj else 0) + max(0, draft_bytes)
    if not on_any_gpu:
        host_w += extra
        extra = 0
    shared = gpu_w + kv_gpu
    per_gpu = (-(-shared // count) + (compute if on_any_gpu else 0) + largest_cpu_experts + extra) if on_any_gpu else 0
    return OffloadSplit(
        ftype=ftype,
        placement=placement,
        gpu_layers=min(n + 1, on_gpu) if placement is not Placement.NONE else 0,
        cpu_moe_layers=cpu_moe,
        gpus=count,
        gpu_weights_bytes=gpu_w,
        gpu_kv_bytes=kv_gpu,
        gpu_compute_bytes=gpu_compute,
        gpu_extra_bytes=extra,
        host_weights_bytes=host_w,
        host_kv_bytes=breakdown.kv_cache_bytes - kv_gpu,
        host_compute_bytes=host_compute,
        per_gpu_bytes=per_gpu,
        inputs={
            "ftype": ftype,
            "layers": n,
            "moe_layers": max(0, spec.moe_layers),
            "gpu_layer_count": gpu_layer_count,
            "experts_in_ram_layers": max(0, min(cpu_moe, n) - moe_first) if on_gpu else 0,
            **_run_inputs(lw, t.mmproj if mmproj else 0, draft_bytes),
        },
    )


def _layers_on_gpu(placement: Placement, n: int, cpu_moe_layers: int, gpu_layers: int | None) -> tuple[int, int]:
    """(-ngl, --n-cpu-moe) of ``placement`` for a model of ``n`` layers; -ngl n + 1 also offloads the output."""
    if placement is Placement.EXPERTS_CPU:
        cpu_moe = n  # every layer's experts
        on_gpu = n
    elif placement is Placement.N_CPU_MOE:
        cpu_moe = max(0, min(n, cpu_moe_layers))
        on_gpu = n
    elif placement is Placement.LAYERS:
        on_gpu = max(0, min(n + 1, gpu_layers if gpu_layers is not None else n + 1))
        cpu_moe = 0
    elif placement is Placement.NONE:
        on_gpu, cpu_moe = 0, 0
    else:
        on_gpu, cpu_moe = n + 1, 0
    return on_gpu, cpu_moe


def _place_weights(t: GgufLayout, first_gpu: int, cpu_moe: int, output_on_gpu: bool) -> tuple[int, int, int, int]:
    """(weight bytes on the GPUs, in RAM, the largest layer's experts kept in RAM, layers on the GPUs) when the
    layers from ``first_gpu`` on are offloaded and the experts of the first ``cpu_moe`` stay in RAM."""
    gpu_w = host_w = 0
    largest_cpu_experts = 0
    gpu_layer_count = 0
    for i, layer in enumerate(t.layers):
        if i < first_gpu:
            host_w += layer.experts + layer.rest
            continue
        gpu_layer_count += 1
        gpu_w += layer.rest
        # --n-cpu-moe N matches blk.0 … blk.N−1 by name; dense lead layers have no experts to move
        if i < cpu_moe and layer.experts:
            host_w += layer.experts
            largest_cpu_experts = max(largest_cpu_experts, layer.experts)
        else:
            gpu_w += layer.experts
    host_w += t.token_embd
    if output_on_gpu:
        gpu_w += t.output
    else:
        host_w += t.output
    return gpu_w, host_w, largest_cpu_experts, gpu_layer_count


def _compute_buffers(
    spec: ModelSpec, breakdown: Breakdown, gpus: int, largest_cpu_experts: int, on_any_gpu: bool
) -> tuple[int, int]:
    """(compute buffers on the GPUs, in RAM): one compute buffer per GPU, into which the weights in RAM that large
    batches use on the GPU are copied; the host's buffer for the micro-batch's rows and the output."""
    compute = breakdown.bytes_of("compute_buffer")
    gpu_compute = (compute * gpus + largest_cpu_experts) if on_any_gpu else 0
    host_compute = 4 * LLAMA_CPP_N_UBATCH * HOST_COMPUTE_ROWS * max(1, spec.hidden_size) + breakdown.bytes_of(
        "output_buffer_host"
    )
    if not on_any_gpu:
        host_compute += compute
    return gpu_compute, host_compute


def _run_inputs(lw: Workload, mmproj_bytes: int, draft_bytes: int) -> dict[str, int | float | str]:
    """The run a split is for, as its inputs name it: llama.cpp's micro-batch, the context, requests, KV type and
    what else sits on the GPU."""
    return {
        "ubatch": LLAMA_CPP_N_UBATCH,
        "context": lw.context,
        "concurrency": lw.concurrency,
        "kv_dtype": lw.kv_dtype,
        "mmproj_bytes": mmproj_bytes,
        "draft_bytes": max(0, draft_bytes),
    }
