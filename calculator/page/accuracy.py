"""How close the page's figures came to published measurements: the error band of each figure's kind, engine and
architecture family in the validation matrix (calculator/validation/bands.py), as the summary states it."""

from __future__ import annotations

from dataclasses import dataclass

from calculator.estimation import Mode
from calculator.validation.bands import THROUGHPUT_KINDS, Band, kept_band, validation_family
from models_catalog.architecture import ModelSpec

# Which matrix kind checks the memory figure of each engine: vLLM's start-up KV memory tests the weights, the profile
# peak and the memory outside PyTorch the headline adds up; SGLang's pool size the same; a GGUF's file size the
# weights llama.cpp and Ollama load.
MEMORY_KINDS = {
    "vllm": ("engine_kv_cache_gib", "vllm"),
    "sglang": ("engine_kv_tokens", "sglang"),
    "llama.cpp": ("gguf_size", "llama.cpp"),
    "ollama": ("gguf_size", "llama.cpp"),
}
SPEED_ENGINES = {"vllm": "vllm", "sglang": "sglang", "llama.cpp": "llama.cpp", "ollama": "llama.cpp"}
LOAD_ENGINES = {"vllm": "vllm", "sglang": "sglang"}


@dataclass(frozen=True, slots=True)
class AccuracyNote:
    what: str  # "memory" | "decode" | "load" | "finetune"
    band: Band

    @property
    def percent(self) -> int:
        return max(1, int(self.band.within_percent))  # a band of under half a percent reads as ±1 %


def accuracy_notes(mode: Mode, engine: str, framework: str, spec: ModelSpec) -> tuple[AccuracyNote, ...]:
    """The bands behind the summary's figures for this mode, engine (or fine-tuning framework) and model."""
    family = validation_family(spec)
    wanted: list[tuple[str, str | tuple[str, ...], str]] = []
    if mode is Mode.INFERENCE:
        if engine in MEMORY_KINDS:
            kind, source = MEMORY_KINDS[engine]
            wanted.append(("memory", kind, source))
        if engine in SPEED_ENGINES:
            wanted.append(("decode", "decode_tps", SPEED_ENGINES[engine]))
        if engine in LOAD_ENGINES:
            # the same throughput band the planner's rows and its note read (THROUGHPUT_KINDS)
            wanted.append(("load", THROUGHPUT_KINDS, LOAD_ENGINES[engine]))
    else:
        wanted.append(("finetune", "finetune_peak", framework))
    notes = []
    for what, kinds, source in wanted:
        band = kept_band(kinds, source, family)
        if band is not None:
            notes.append(AccuracyNote(what, band))
    return tuple(notes)
