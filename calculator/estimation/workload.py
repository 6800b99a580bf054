"""What the reader asks for (``Workload``) and what the estimate answers (``Breakdown`` of ``Term``s)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from pricing.gpus import BYTES_PER_GB

GB = BYTES_PER_GB
GIB = 2**30
MIB = 2**20


class Mode(StrEnum):
    INFERENCE = "inference"
    LORA = "lora"
    QLORA = "qlora"
    FULL = "full"


class Optimizer(StrEnum):
    ADAMW = "adamw"  # mixed-precision AdamW: fp32 master copy + two fp32 moments
    ADAMW_8BIT = "adamw_8bit"  # bitsandbytes 8-bit AdamW: two uint8 moments + fp32 absmax per 256 values
    SGD = "sgd"  # torch SGD with its default momentum 0: no optimizer state


class Framework(StrEnum):
    """Fine-tuning framework; its defaults and memory rules are in memory/frameworks.py."""

    TRANSFORMERS = "transformers"  # Hugging Face Transformers Trainer + PEFT: the default, the most used stack
    TRL = "trl"  # Hugging Face TRL SFTTrainer (chunked loss, checkpointing on)
    TORCHTUNE = "torchtune"
    UNSLOTH = "unsloth"
    DEEPSPEED = "deepspeed"  # Transformers + DeepSpeed ZeRO (FSDP FULL_SHARD / SHARD_GRAD_OP = ZeRO-3 / -2)
    DEEPSPEED_OFFLOAD = "deepspeed_offload"  # ZeRO-Offload: optimizer (with stage 3 also the weights) in host RAM


class LoraTargets(StrEnum):
    """Which linear layers carry adapters. Routed MoE experts are never adapted (no framework's default does)."""

    QV = "qv"  # query and value projections
    QVO_MLP = "qvo_mlp"  # query, value, output projection and the MLP
    ALL_LINEAR = "all_linear"  # q, k, v, o, gate, up, down


MODES: tuple[str, ...] = tuple(m.value for m in Mode)
OPTIMIZERS: tuple[str, ...] = tuple(o.value for o in Optimizer)
FRAMEWORKS_KEYS: tuple[str, ...] = tuple(f.value for f in Framework)


@dataclass(frozen=True, slots=True)
class Workload:
    """One calculator state. ``Workload()`` is the reference page's default: FP16 inference, 8K context, one
    request, vLLM, FP16 KV cache."""

    mode: Mode = Mode.INFERENCE
    precision: str = "fp16"  # a key of PRECISIONS; QLoRA always uses NF4 for the base weights
    context: int = 8192  # tokens per request (prompt + output)
    concurrency: int = 1  # requests served at the same time
    engine: str = "vllm"  # a key of ENGINES
    kv_dtype: str = "fp16"  # a key of KV_DTYPES
    # the engine's release or line (engines/releases.py): vLLM "0.20", SGLang "0.4.8", llama.cpp "b7407", MLX-LM
    # "0.22.2"; "": the current one
    engine_release: str = ""
    tensor_parallel: int = 1  # GPUs one model replica is split over (KV heads replicate when > KV heads)
    # GPUs that each run attention for their own requests (engines/dp_attention.py): the attention weights are held on
    # each, the cache is not repeated; 1: none (the whole MLA latent on every tensor-parallel rank)
    attention_data_parallel: int = 1
    load_mtp_layers: bool = False  # count multi-token-prediction layers the checkpoint stores (see SOURCES.md)
    # speculative decoding with the model's own multi-token-prediction layers as the draft (vLLM --speculative-config
    # method "mtp", SGLang --speculative-algorithm EAGLE): their decoder layer and its cache are loaded, the embedding
    # and head they store again are shared with the model, and decoding speeds up (docs/methodology.md §4.15)
    mtp_draft: bool = False
    # A real build's weight files, measured (Hub file listing) or as published: replaces the computed weights for
    # inference, since a measured size beats a formula (docs/methodology.md §1.1). None: computed from `precision`.
    weights_file_bytes: int | None = None
    # fine-tuning knobs
    batch_size: int = 1  # micro-batch per GPU
    sequence_length: int | None = None  # tokens per training sample; None: the context
    lora_rank: int = 8  # PEFT's default r
    gradient_checkpointing: bool = True
    optimizer: Optimizer = Optimizer.ADAMW
    zero_stage: int | None = None  # None: model states split evenly over the GPUs the fit finds (FSDP-like)
    data_parallel: int = 1  # GPUs that ZeRO shards over (only with zero_stage or a DeepSpeed framework)
    framework: str = Framework.TRANSFORMERS  # a key of FRAMEWORKS (memory/frameworks.py): its loss, dtypes, offloading
    lora_targets: str = ""  # a LoraTargets value; "": the framework's default target modules

    @property
    def tokens_per_sample(self) -> int:
        return self.sequence_length if self.sequence_length else self.context


@dataclass(frozen=True, slots=True)
class Term:
    """One line of the breakdown: its bytes and the named inputs of the formula that made them. The words (label,
    formula) belong to the site's translations, chosen by ``key`` and ``variant`` (calculator/term_text.py)."""

    key: str  # "weights", "kv_cache", "linear_state", "activations", "overhead", "gradients", ...
    bytes: int
    inputs: Mapping[str, int | float | str]
    variant: str = ""  # which formula shape made the bytes, e.g. "host_embedding", "vllm", "checkpointing"
    estimated: bool = False
    on_gpu: bool = True  # False: kept in host RAM by the engine (llama.cpp's input embedding, output buffer)


@dataclass(frozen=True, slots=True)
class Breakdown:
    """Memory an estimate needs, term by term. ``total_bytes`` counts the terms that live on the GPU(s)."""

    workload: Workload
    terms: tuple[Term, ...]
    total_bytes: int
    host_bytes: int  # terms the engine keeps in host RAM (not part of total_bytes)
    params_total: int
    params_active: int
    params_source: str
    params_active_source: str
    estimated_fields: tuple[str, ...]
    warnings: tuple[str, ...] = field(default_factory=tuple)
    per_gpu_bytes: int | None = None  # set when ZeRO shards states over `data_parallel` GPUs
    # key of the precision the weights were computed in (PRECISIONS): the requested one, or what replaced it
    # (an unknown name → "fp16", QLoRA → "nf4", full fine-tuning of a quantized choice → "bf16")
    precision_used: str = ""

    def term(self, key: str) -> Term | None:
        for term in self.terms:
            if term.key == key:
                return term
        return None

    def bytes_of(self, *keys: str) -> int:
        return sum(t.bytes for t in self.terms if t.key in keys)

    @property
    def weights_bytes(self) -> int:
        return self.bytes_of("weights", "weights_layout", "input_embedding_host")

    @property
    def kv_cache_bytes(self) -> int:
        """Per-token cache plus fixed per-sequence state (linear attention / SSM), all requests."""
        return self.bytes_of("kv_cache", "linear_state")

    @property
    def activations_bytes(self) -> int:
        return self.bytes_of("activations", "logits")

    @property
    def overhead_bytes(self) -> int:
        return self.bytes_of("overhead", "compute_buffer", "fit_margin")
