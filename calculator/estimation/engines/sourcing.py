"""Where the weights a launch command loads come from: the model's own repository, a published build the catalog
knows, the engine's documented on-the-fly quantization of the released 16-bit weights, or a build the reader makes
first with the engine's own converter. When none of these holds the precision, there is no command, and the reason
says so (a command that names the BF16 repository for an INT4 setting would load 16-bit weights or not start).

Documented paths (SOURCES.md "Launch commands"):
- vLLM and SGLang ``--quantization fp8``: FP8 weights cast from a 16-bit checkpoint at load time (vLLM
  docs/features/quantization/fp8.md "Online dynamic quantization"; SGLang docs "Online quantization");
- vLLM ``--quantization bitsandbytes``: 4-bit NF4 in flight from a 16-bit checkpoint (vLLM
  docs/features/quantization/bnb.md "Inflight quantization");
- llama.cpp ``llama-server -hf <repo>:<quant>`` for a published GGUF, else ``convert_hf_to_gguf.py`` from the 16-bit
  checkpoint and ``llama-quantize`` (ggml-org/llama.cpp docs/models.md, tools/quantize/README.md; IQ1/IQ2 types need
  an importance matrix from ``llama-imatrix``);
- Ollama ``FROM hf.co/<repo>:<quant>`` for a published GGUF (huggingface.co/docs/hub/ollama), else ``FROM ./<file>``;
- mlx-lm ``mlx_lm.convert --hf-path <id> -q --q-bits N --mlx-path <dir>`` (ml-explore/mlx-lm ``mlx_lm/convert.py``).
The converters start from 16-bit weights (llama.cpp's also from gpt-oss's MXFP4 experts); for a model released in
FP8 only a published build is named.
Pure Python, no I/O.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Protocol

from ..precision import PRECISIONS

SERVER_ENGINES = ("vllm", "sglang")
GGUF_ENGINES = ("llama.cpp", "ollama")


class SourceKind(StrEnum):
    RELEASED = "released"  # the model's own repository holds this precision
    PUBLISHED = "published"  # a published build the catalog knows
    ON_THE_FLY = "on_the_fly"  # the engine quantizes the released 16-bit weights as it loads them
    CONVERTED = "converted"  # the reader makes the build first; the steps come before the command
    NONE = "none"  # no published build and no documented way for this engine


class Missing(StrEnum):
    """Why there is no command (pages say it in words)."""

    NO_WIDER_BUILD = "no_wider_build"  # a 16-bit setting on a model released narrower: no 16-bit build published
    NO_BUILD = "no_build"  # no published build of this precision and the engine cannot make it as it loads
    WRONG_FORMAT = "wrong_format"  # a published build in a format this engine does not load
    NOT_FROM_RELEASE = "not_from_release"  # the converter starts from 16-bit weights; the release is FP8 / MXFP4
    NO_ENGINE_BUILD = "no_engine_build"  # an FP8 / MXFP4 release, no build in the engine's format, no known conversion


class PublishedBuild(Protocol):
    """A published build as the catalog records it: its format ("GGUF", "MLX", "AWQ", "GPTQ", "FP8", "NF4",
    "BF16"), label ("Q4_K_M", "4-bit"), repository and the generic precision its rules size it with."""

    @property
    def format(self) -> str: ...
    @property
    def label(self) -> str: ...
    @property
    def repo_id(self) -> str: ...
    @property
    def precision(self) -> str: ...


@dataclass(frozen=True, slots=True)
class KnownBuild:
    """A published build where no catalog row is at hand (the command line reads the recorded reference facts)."""

    format: str
    label: str
    repo_id: str
    precision: str


@dataclass(frozen=True, slots=True)
class WeightsSource:
    kind: SourceKind
    model: str = ""  # what the engine is pointed at: a Hub id, "<repo>:<quant>" (llama.cpp -hf), a local path
    repo: str = ""  # the repository the weights come from
    quantization: str = ""  # the engine's on-the-fly method ("fp8", "bitsandbytes")
    prepare: tuple[str, ...] = ()  # shell lines that make the build, in order
    missing: Missing | None = None  # why there is no command (kind NONE)
    label: str = ""  # the published build's label
    shared_repo: bool = False  # the build's repository holds other builds too: the reader picks the one named
    needs_calibration: bool = False  # the conversion reads calibration.txt (an importance matrix for IQ1/IQ2 types)
    engine: str = ""
    precision: str = ""  # the precision key asked for
    released: str = ""  # the precision key the model's own repository holds

    @property
    def runnable(self) -> bool:
        return self.kind is not SourceKind.NONE


# the precision a 16-bit checkpoint has; the converters and on-the-fly paths start from it
_SIXTEEN_BIT = "fp16"
# generic precision → the published formats that hold it, for an engine that loads safetensors checkpoints
_FORMATS_FOR: dict[str, tuple[str, ...]] = {
    "fp16": ("BF16",),
    "fp8": ("FP8",),
    "awq": ("AWQ",),
    "gptq": ("GPTQ",),
    "w8a8": ("W8A8",),
    "nvfp4": ("NVFP4",),
}
_FORMATS_FOR |= {"int8": ("W8A8",), "int4": ("AWQ", "GPTQ"), "nf4": ("NF4",)}
_SERVER_FORMATS = frozenset({"BF16", "FP8", "AWQ", "GPTQ", "W8A8", "NF4", "NVFP4"})
# on-the-fly methods per engine: precision → --quantization value
_ON_THE_FLY = {"vllm": {"fp8": "fp8", "nf4": "bitsandbytes"}, "sglang": {"fp8": "fp8"}}
# releases llama.cpp's converter reads: 16-bit checkpoints, and MXFP4 experts (kept as MXFP4 in the file,
# ggml-org/llama.cpp#15091, the gpt-oss support)
_GGUF_CONVERTIBLE = frozenset({_SIXTEEN_BIT, "mxfp4"})
# the plain float precisions as GGUF file types (the file a 16-bit setting runs in llama.cpp)
_FLOAT_FILES = {"fp16": "BF16", "bf16": "BF16", "fp32": "F32"}
# llama-quantize types that refuse to run without an importance matrix (tools/quantize/quantize.cpp)
_NEEDS_IMATRIX = ("IQ1_", "IQ2_XXS", "IQ2_XS", "IQ2_S")


def weights_source(
    engine: str, hub_id: str, released: str, precision: str, builds: Sequence[PublishedBuild] = ()
) -> WeightsSource:
    """Where ``engine`` gets ``precision`` (a precision key) of the model ``hub_id``, released in ``released`` (a
    precision key), given the published ``builds`` the catalog knows. A reader's choice of one published build is
    passed as that build alone with its precision."""
    engine = engine.lower()
    if engine in SERVER_ENGINES:
        found = _server(engine, hub_id, released, precision, builds)
    elif engine in GGUF_ENGINES:
        found = _gguf(engine, hub_id, released, precision, builds)
    elif engine == "mlx":
        found = _mlx(hub_id, released, precision, builds)
    else:
        raise ValueError(f"no weights source for engine {engine!r}")
    return replace(found, engine=engine, precision=precision, released=released)


def _server(engine: str, hub_id: str, released: str, precision: str, builds: Sequence[PublishedBuild]) -> WeightsSource:
    wanted = "fp16" if precision in ("bf16", "fp32") else precision
    if wanted == released:
        return WeightsSource(SourceKind.RELEASED, hub_id, hub_id)
    for build in builds:
        if build.format in _FORMATS_FOR.get(wanted, ()) or (
            build.precision == wanted and build.format in _SERVER_FORMATS
        ):
            return _published(build, build.repo_id, builds)
    method = _ON_THE_FLY[engine].get(wanted)
    if method and released == _SIXTEEN_BIT:
        return WeightsSource(SourceKind.ON_THE_FLY, hub_id, hub_id, quantization=method)
    if any(b.precision == wanted for b in builds):
        return WeightsSource(SourceKind.NONE, missing=Missing.WRONG_FORMAT)
    if wanted == _SIXTEEN_BIT:
        return WeightsSource(SourceKind.NONE, missing=Missing.NO_WIDER_BUILD)
    return WeightsSource(SourceKind.NONE, missing=Missing.NO_BUILD)


def _gguf(engine: str, hub_id: str, released: str, precision: str, builds: Sequence[PublishedBuild]) -> WeightsSource:
    found = PRECISIONS.get(precision)
    ftype = found.gguf_ftype if found is not None and found.gguf_ftype else _FLOAT_FILES.get(precision, "")
    if precision == released == "mxfp4":
        # the MXFP4 release as released: convert_hf_to_gguf.py keeps gpt-oss's MXFP4 experts as MXFP4 and writes every
        # other tensor at --outtype (BF16 here), the file the MXFP4 setting sizes (calculator/validation rows
        # gguf-gpt-oss-20b-f16: 13.8 GB; SOURCES.md "GGUF from an MXFP4 release")
        ftype = "BF16"
    for build in builds:
        if build.format == "GGUF" and (build.precision == precision or build.label.upper() == ftype):
            reference = f"{build.repo_id}:{build.label}"
            return _published(build, reference if engine == "llama.cpp" else f"hf.co/{reference}", builds)
    if not ftype:
        return WeightsSource(SourceKind.NONE, missing=Missing.WRONG_FORMAT)
    if released not in _GGUF_CONVERTIBLE:
        return WeightsSource(SourceKind.NONE, missing=Missing.NOT_FROM_RELEASE)
    folder = _folder(hub_id)
    outtype = {"F16": "f16", "F32": "f32"}.get(ftype, "bf16")
    target = wide = f"{folder}-{'MXFP4' if released == 'mxfp4' else outtype.upper()}.gguf"
    prepare = [
        shlex.join(["hf", "download", hub_id, "--local-dir", folder]),
        shlex.join(["python", "llama.cpp/convert_hf_to_gguf.py", folder, "--outtype", outtype, "--outfile", wide]),
    ]
    if ftype not in ("BF16", "F16", "F32"):
        target = f"{folder}-{ftype}.gguf"
        quantize = ["llama-quantize"]
        if ftype.startswith(_NEEDS_IMATRIX):
            prepare.append(shlex.join(["llama-imatrix", "-m", wide, "-f", "calibration.txt", "-o", "imatrix.gguf"]))
            quantize += ["--imatrix", "imatrix.gguf"]
        prepare.append(shlex.join([*quantize, wide, target, ftype]))
    model = target if engine == "llama.cpp" else f"./{target}"
    calibrate = ftype.startswith(_NEEDS_IMATRIX)
    return WeightsSource(SourceKind.CONVERTED, model, hub_id, prepare=tuple(prepare), needs_calibration=calibrate)


def _mlx(hub_id: str, released: str, precision: str, builds: Sequence[PublishedBuild]) -> WeightsSource:
    if precision in ("fp16", "bf16") and released == _SIXTEEN_BIT:  # mlx-lm loads a 16-bit checkpoint as it is
        return WeightsSource(SourceKind.RELEASED, hub_id, hub_id)
    if precision == released:  # an FP8 or MXFP4 release: only a published MLX build of it would do
        return WeightsSource(SourceKind.NONE, missing=Missing.NO_ENGINE_BUILD)
    if not precision.startswith("mlx-"):
        return WeightsSource(SourceKind.NONE, missing=Missing.WRONG_FORMAT)
    for build in builds:
        if build.format == "MLX" and build.precision == precision:
            return _published(build, build.repo_id, builds)
    if released != _SIXTEEN_BIT:
        return WeightsSource(SourceKind.NONE, missing=Missing.NOT_FROM_RELEASE)
    bits = precision.removeprefix("mlx-").removesuffix("bit")
    folder = f"{_folder(hub_id)}-{bits}bit"
    convert = ["mlx_lm.convert", "--hf-path", hub_id, "-q", "--q-bits", bits, "--mlx-path", folder]
    return WeightsSource(SourceKind.CONVERTED, folder, hub_id, prepare=(shlex.join(convert),))


def _published(build: PublishedBuild, model: str, builds: Sequence[PublishedBuild]) -> WeightsSource:
    shared = any(b.repo_id == build.repo_id and b.label != build.label for b in builds)
    return WeightsSource(SourceKind.PUBLISHED, model, build.repo_id, label=build.label, shared_repo=shared)


def _folder(hub_id: str) -> str:
    """A local folder / file stem named after the repository ("Llama-3.1-8B-Instruct")."""
    name = hub_id.rsplit("/", 1)[-1]
    return "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in name) or "model"
