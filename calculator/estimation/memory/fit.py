"""How many GPUs a memory need takes, and whether it fits on one node.

A GPU holds what its runtime reports as total memory (CUDA's ``cudaMemGetInfo`` total, ROCm's VRAM total: an H100
"80GB" is about 85.0 × 10⁹ bytes, an MI300X about 206 × 10⁹; ``GpuSpec.capacity_bytes``, sourced per GPU in
``pricing/data/gpu-capacity.json``) under the budget rule of the engine that runs it (docs/methodology.md §4.1–4.3,
§4.10, §7): vLLM and SGLang fill ``--gpu-memory-utilization`` / ``--mem-fraction-static`` of it (0.9, what every
command we hand out passes); llama.cpp and Ollama allocate what they need, up to the whole total (llama.cpp's
estimate already carries its auto-fit margin of 1 GiB as a term, memory/overhead.py). At most 8 GPUs share one node; a
need beyond that takes several nodes.

The reference page counted 90 % of the nameplate in decimal GB (an H100 as 80 × 10⁹ bytes):
``reference_gpus_needed`` keeps that rule for the methodology page's comparison.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise
from typing import Protocol

from ..workload import Breakdown, Mode

FILL_FRACTION = 0.9  # vLLM / SGLang: the share of the runtime's total every command we print lets them fill
MAX_GPUS_PER_NODE = 8
# Engines that allocate what they need rather than a share of the GPU (llama.cpp, and Ollama, which runs it).
WHOLE_GPU_ENGINES = frozenset({"llama.cpp", "ollama"})

# FILL_FRACTION as an exact ratio, so the GPU count never depends on float rounding at the boundary.
_FILL_NUMERATOR = 9
_FILL_DENOMINATOR = 10


class HasCapacity(Protocol):
    """What a budget needs: the total memory the runtime reports."""

    @property
    def capacity_bytes(self) -> int: ...


class GpuLike(Protocol):
    """What the fit needs from a GPU record (``pricing.gpus.GpuSpec`` or any object with these attributes)."""

    @property
    def slug(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def memory_bytes(self) -> int: ...  # the nameplate, decimal GB as marketed

    @property
    def capacity_bytes(self) -> int: ...  # what the runtime reports as total memory


def usable_bytes(capacity_bytes: int, engine: str = "vllm") -> int:
    """Memory of one GPU of ``capacity_bytes`` (the runtime's total) that ``engine`` may fill: 90 % for vLLM, SGLang
    and the rest, the whole total for llama.cpp and Ollama (their needs carry the margin); whole bytes."""
    if engine.lower() in WHOLE_GPU_ENGINES:
        return max(0, capacity_bytes)
    return max(0, capacity_bytes) * _FILL_NUMERATOR // _FILL_DENOMINATOR


def budget_bytes(gpu: HasCapacity, engine: str = "vllm") -> int:
    """What one GPU of type ``gpu`` holds for ``engine``: ``usable_bytes`` of the total its runtime reports."""
    return usable_bytes(int(gpu.capacity_bytes), engine)


def units_needed(total_bytes: int, budget: int) -> int:
    """Units of ``budget`` bytes each that hold ``total_bytes``: ceil(total / budget); at least 1."""
    if budget <= 0:
        raise ValueError("budget must be positive")
    if total_bytes <= 0:
        return 1
    return max(1, -(-total_bytes // budget))


def gpus_needed(total_bytes: int, gpu: HasCapacity, engine: str = "vllm", per_gpu_bytes: int = 0) -> int:
    """GPUs of type ``gpu`` that hold ``total_bytes`` under ``engine``'s budget rule; at least 1.

    ``per_gpu_bytes``: what every GPU of a split holds whole although ``total_bytes`` counts it once (the engine's
    start-up budget, ``per_gpu_overhead_bytes``): n GPUs hold the need when total + (n − 1) × per-GPU ≤ n × budget,
    so n = ⌈(total − per-GPU) ÷ (budget − per-GPU)⌉ (docs/methodology.md §4.14). Llama-3.3-70B in BF16 (148.0 GB
    with a 4.2 GB budget) takes 2 H100 either way; a need that one GPU's budget leaves no room for takes none."""
    budget = budget_bytes(gpu, engine)
    if per_gpu_bytes <= 0 or total_bytes <= budget:
        return units_needed(total_bytes, budget)
    room = budget - per_gpu_bytes
    if room <= 0:
        return UNREACHABLE_GPUS
    return units_needed(total_bytes - per_gpu_bytes, room)


# Every term a GPU of a split holds for itself, for inference: vLLM's start-up budget (each rank profiles its own peak
# and keeps its CUDA graphs and context, §4.1), llama.cpp's compute buffer and its fit margin on every device (§4.3).
PER_GPU_TERMS = frozenset({"overhead", "compute_buffer", "fit_margin"})
# A count no node or cluster reaches: what ``gpus_needed`` answers when one GPU's budget holds nothing beside the
# engine's own start-up budget.
UNREACHABLE_GPUS = 10**6


# Engines whose start-up budget sits inside the share of each GPU the fit counts: vLLM subtracts its profiled peak,
# CUDA graphs and non-torch memory from --gpu-memory-utilization on every rank (§4.1); llama.cpp and Ollama keep a
# compute buffer and the fit margin on every device (§4.3). SGLang's reserve is what --mem-fraction-static leaves
# outside its pool, so it is not repeated inside the budget (§4.2).
PER_GPU_ENGINES = frozenset({"vllm", "llama.cpp", "ollama"})


def per_gpu_overhead_bytes(breakdown: Breakdown) -> int:
    """What every GPU of an inference split holds for itself in ``breakdown`` (0 for fine-tuning, whose terms are
    already per GPU, and for engines whose reserve lies outside the budget)."""
    workload = breakdown.workload
    if workload.mode is not Mode.INFERENCE or workload.engine.lower() not in PER_GPU_ENGINES:
        return 0
    return sum(t.bytes for t in breakdown.terms if t.on_gpu and t.key in PER_GPU_TERMS)


def reference_gpus_needed(total_bytes: int, nameplate_bytes: int) -> int:
    """The reference page's rule, kept for comparison: ceil(total / (0.9 × nameplate in decimal GB)); at least 1."""
    if nameplate_bytes <= 0:
        raise ValueError("nameplate_bytes must be positive")
    if total_bytes <= 0:
        return 1
    # ceil(total / (0.9 × memory)) = ceil(10 × total / (9 × memory)), in integers.
    return max(1, -(-(total_bytes * _FILL_DENOMINATOR) // (nameplate_bytes * _FILL_NUMERATOR)))


def nodes_needed(gpu_count: int) -> int:
    """Nodes of at most 8 GPUs that hold ``gpu_count`` GPUs."""
    return max(1, -(-gpu_count // MAX_GPUS_PER_NODE))


def gpus_to_run(memory_count: int) -> int:
    """The GPUs an engine runs, and a reader rents, for ``memory_count`` (gpus_needed's count): the count itself within
    one node; whole nodes of 8 beyond it, since vLLM and SGLang run a multi-node split as tensor parallel within each
    node and pipeline stages across nodes, and clouds rent such GPUs by the node (DeepSeek-V3 at FP16 on H100: the
    memory needs 10, the engine runs 16 on two nodes; docs/methodology.md §4.9)."""
    count = max(1, memory_count)
    return count if count <= MAX_GPUS_PER_NODE else nodes_needed(count) * MAX_GPUS_PER_NODE


def run_count(total_bytes: int, gpu: HasCapacity, engine: str = "vllm", per_gpu_bytes: int = 0) -> int:
    """The GPUs of type ``gpu`` an engine runs a need on where no instance is named (the count the FAQ, the runs-on
    and GPU pages and the command line give): gpus_needed's count, in whole nodes beyond one (gpus_to_run)."""
    return gpus_to_run(gpus_needed(total_bytes, gpu, engine, per_gpu_bytes))


def tensor_parallel_degrees(attention_heads: int, kv_heads: int) -> tuple[int, ...]:
    """The tensor-parallel degrees within one node that split the heads evenly, smallest first: vLLM and SGLang
    require the query heads to divide by the degree, and KV heads either to divide by it or to divide it (they are
    replicated beyond that, docs/methodology.md §3.1)."""
    heads, kv = max(1, attention_heads), max(1, kv_heads)
    return tuple(t for t in range(1, MAX_GPUS_PER_NODE + 1) if heads % t == 0 and (kv % t == 0 or t % kv == 0))


# macOS's default GPU working set (Metal ``recommendedMaxWorkingSetSize``) as a share of RAM, by macOS version
# (docs/methodology.md §4.5). Up to macOS 15 it is 2/3 of RAM up to 32 GiB and 3/4 from 36 GiB: the value llama.cpp
# and Ollama log on 8, 16, 32, 64 and 96 GiB Macs (5461, 10923, 21845, 49152, 73728 MiB), on macOS 15.6 too. macOS 26
# raised it: 0.74 at 16 GiB, 0.84 at 128 GiB (logged on two 128 GiB Macs of different chip generations); between and
# beyond those points the share is interpolated and held, an estimate pages mark as such.
MACOS_VERSIONS: tuple[str, ...] = ("15", "26")  # "15": macOS 15 or earlier; "26": macOS 26 or later
DEFAULT_MACOS = "15"  # the smaller default: a model sized for it loads on either
APPLE_CLASSIC_SMALL_SHARE = 2 / 3  # up to 32 GiB
APPLE_CLASSIC_LARGE_SHARE = 3 / 4  # from 36 GiB
APPLE_CLASSIC_SMALL_MAX_GIB = 32
APPLE_26_SHARE_POINTS: tuple[tuple[int, float], ...] = ((16, 0.74), (128, 0.84))
# What raising iogpu.wired_limit_mb leaves to macOS itself: an eighth of RAM, at least 4 GiB and at most 16 GiB
# (docs/methodology.md §4.5). Each end is where the settings people report and the tools that compute one agree:
# 12288 on 16 GiB ("leave 4-6GB for MacOS", instructlab), 57344 on 64 GiB (the value most guides give), 114688 on
# 128 GiB (antirez/ds4#893, measured working), about 180000 on 192 GiB; no tool reserves more than 16 GiB.
APPLE_MIN_SYSTEM_RESERVE_BYTES = 4 * 2**30
APPLE_MAX_SYSTEM_RESERVE_BYTES = 16 * 2**30


def apple_default_gpu_share(ram_gib: float, macos: str = DEFAULT_MACOS) -> float:
    """The share of ``ram_gib`` GiB of unified memory macOS ``macos`` lets the GPU use out of the box."""
    if macos != "26":
        return APPLE_CLASSIC_SMALL_SHARE if ram_gib <= APPLE_CLASSIC_SMALL_MAX_GIB else APPLE_CLASSIC_LARGE_SHARE
    points = APPLE_26_SHARE_POINTS
    if ram_gib <= points[0][0]:
        return points[0][1]
    for (low_gb, low_share), (high_gb, high_share) in pairwise(points):
        if ram_gib <= high_gb:
            return low_share + (high_share - low_share) * (ram_gib - low_gb) / (high_gb - low_gb)
    return points[-1][1]


@dataclass(frozen=True, slots=True)
class AppleFit:
    ram_bytes: int
    default_limit_bytes: int  # GPU working set macOS allows out of the box (estimated share of RAM)
    fits_default: bool
    max_raised_limit_bytes: int  # the most the wired limit can sensibly be raised to
    fits_after_raise: bool
    wired_limit_mb: int | None  # value for `sudo sysctl iogpu.wired_limit_mb=…` when raising is needed and helps
    command: str | None


def apple_fit(total_bytes: int, ram_bytes: int, macos: str = DEFAULT_MACOS) -> AppleFit:
    """Whether ``total_bytes`` fits a Mac with ``ram_bytes`` of unified memory on macOS ``macos``, before and after
    raising ``iogpu.wired_limit_mb`` (docs/methodology.md §4.5: mlx-lm's README says above the model, below RAM)."""
    ram = max(0, int(ram_bytes))
    default_limit = int(ram * apple_default_gpu_share(ram / 2**30, macos))
    reserve = min(APPLE_MAX_SYSTEM_RESERVE_BYTES, max(APPLE_MIN_SYSTEM_RESERVE_BYTES, ram // 8)) if ram > 0 else 0
    raised_max = max(default_limit, ram - reserve)
    fits_default = total_bytes <= default_limit
    fits_raised = total_bytes <= raised_max
    wired_mb: int | None = None
    command: str | None = None
    if not fits_default and fits_raised:
        # the limit is in MiB (2^20 bytes): the next whole GiB above the need where that still leaves macOS its
        # reserve, else the need itself rounded up to a MiB — never below what the model needs
        need_mb = -(-total_bytes // 2**20)
        wired_mb = max(need_mb, min(-(-need_mb // 1024) * 1024, raised_max // 2**20))
        command = f"sudo sysctl iogpu.wired_limit_mb={wired_mb}"
    return AppleFit(
        ram_bytes=ram,
        default_limit_bytes=default_limit,
        fits_default=fits_default,
        max_raised_limit_bytes=raised_max,
        fits_after_raise=fits_raised,
        wired_limit_mb=wired_mb,
        command=command,
    )


@dataclass(frozen=True, slots=True)
class ParallelPlan:
    """The GPUs an engine would run for a memory count: a tensor-parallel degree the heads allow, times pipeline
    stages when no degree within a node reaches the count (docs/methodology.md §4.9)."""

    memory_count: int  # GPUs the memory needs under the engine's budget (gpus_needed)
    tensor_parallel: int
    pipeline_stages: int
    gpus_run: int  # tensor_parallel × pipeline_stages, ≥ memory_count
    # GPUs that each run attention for their own requests (engines/dp_attention.py, §4.11); 1: plain tensor parallelism.
    # When > 1 it equals gpus_run, in one stage: SGLang --tp N --dp-size N, vLLM --data-parallel-size N.
    attention_data_parallel: int = 1


def plan_on_instance(
    instance_gpus: int,
    memory_count: int,
    attention_heads: int,
    kv_heads: int,
    fits: Callable[[int, int], bool] | None = None,
    dp_fits: Callable[[int], bool] | None = None,
) -> ParallelPlan:
    """How vLLM and SGLang run a model on an instance of ``instance_gpus`` GPUs (one node) when the memory needs
    ``memory_count``: on n GPUs (memory_count ≤ n ≤ the instance) the widest tensor-parallel degree that divides n
    and that the heads allow (§3.1), times pipeline stages for the rest; the n with the widest degree (the fastest
    per request), the fewest GPUs among equals. 8 GPUs run as TP 8; a marketplace instance of 5 as TP 1 × 5
    stages; 6 as TP 2 × 3; an instance of 7 for a need of 6 as TP 2 × 3, one GPU idle. Both engines split layers
    over stages (vLLM ``--pipeline-parallel-size``, SGLang ``--pp-size``), so the instance's price is the price of a
    configuration that runs.

    ``fits(tp, n)``: whether each of n GPUs holds its share at tensor-parallel degree tp (plan/placement.py: the MLA
    latent and surplus KV heads sit on every rank). A degree whose ranks would overflow is skipped for a narrower one
    with more stages; one stage per GPU (TP 1) always holds what gpus_needed counted.

    ``dp_fits(n)``: whether n GPUs hold the workload with data-parallel attention (plan/placement.py, §4.11), where the
    engine offers it. When the ranks' repeated cache forces a narrower degree than the heads allow, the instance runs
    data-parallel attention instead over the most GPUs (a degree the heads allow) that hold it: one stage, each GPU
    caching only its own requests."""
    count = max(1, instance_gpus)
    need = max(1, memory_count)
    allowed = tensor_parallel_degrees(attention_heads, kv_heads)

    def widest(n: int, check: bool = True) -> int:
        degrees = [t for t in reversed(allowed) if n % t == 0]
        return next((t for t in degrees if not check or fits is None or t == 1 or fits(t, n)), 1)

    sizes = range(min(need, count), count + 1)
    tp, n = max(((widest(n), n) for n in sizes), key=lambda p: (p[0], -p[1]))
    if dp_fits is not None and tp < max(widest(n, check=False) for n in sizes):
        ranks = next((d for d in reversed(allowed) if need <= d <= count and dp_fits(d)), None)
        if ranks is not None and ranks > 1:
            return ParallelPlan(need, ranks, 1, ranks, attention_data_parallel=ranks)
    return ParallelPlan(need, tp, n // tp, n)


def fits_per_gpu(total_bytes: int, gpus: int, budget: int) -> bool:
    """Whether each of ``gpus`` GPUs holds its share of ``total_bytes`` within ``budget`` (budget_bytes).
    ``total_bytes`` must be the estimate at that tensor-parallel degree (``Workload.tensor_parallel``), which already
    counts what every GPU repeats: KV heads replicated beyond their count and the whole MLA latent on each GPU (§3.1,
    §3.2, §4.9)."""
    return -(-max(0, total_bytes) // max(1, gpus)) <= budget
