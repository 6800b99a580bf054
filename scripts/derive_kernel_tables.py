"""Derive the per-GPU kernel-efficiency tables of calculator/estimation/speed/data/kernels.json from NVIDIA's measured
kernel latencies in aiconfigurator (github.com/ai-dynamo/aiconfigurator, Apache-2.0; the tables are NVIDIA's, this
script only condenses them and the JSON names the commit they came from).

It reads, from a local bare git mirror of aiconfigurator, under ``aic-core/src/aiconfigurator_core/systems/data/``:

- ``<system>/gemm/<framework>/<version>/gemm_perf.parquet`` (m, n, k, gemm_dtype, latency in ms);
- ``<system>/moe/<framework>/<version>/moe_perf.parquet`` (num_tokens, hidden_size, inter_size, topk, num_experts,
  moe_tp_size, moe_ep_size, distribution, moe_dtype, latency in ms);
- ``<system>/attention/<framework>/<version>/{generation,context}_attention_perf.parquet`` (batch_size, isl, step,
  num_heads, num_key_value_heads, head_dim, kv_cache_dtype, window_size, latency in ms; a decode row's cached length is
  isl + step, as aic-core/rust/aiconfigurator-core/src/perf_database/attention.rs keys it);
- ``<system>/comm/<framework>/<version>/custom_allreduce_perf.parquet`` and ``<system>/comm/nccl/<v>/nccl_perf.parquet``
  (num_gpus, message_size as an ELEMENT count of bf16 — aic-core/rust/aiconfigurator-core/src/operators/communication.rs
  queries ``tokens x hidden`` and collector/network/collect_all_reduce.py allocates that many elements —, latency in
  ms from CUDA events);
- ``reuse.yaml`` beside a version whose table is declared to be another version's collection;

and the nameplate figures of pricing/data/gpus.json, so that every efficiency is a share of the figures the speed model
multiplies. Per (system, framework) the engine version is the newest one holding its own GEMM table; every other table
is that version's own, its reuse.yaml donor, or else the newest earlier version's (aiconfigurator's sibling
inheritance). Within a table the first row of a key wins, as aiconfigurator's loaders do (the GEMM and MoE loaders of
aic-core/rust/aiconfigurator-core/src/perf_database/ apply no kernel_source filter to the engine's own table, so the
kernel the engine runs by default — "vllm_default", or from vLLM 0.24 the one kernel logged per dtype — is used).

Choices where the data leaves room: MoE rows are the "balanced" routing (aiconfigurator's own default is power_law_1.2,
models/moe.py; used only where a table has no balanced rows), with the whole expert set on one GPU, without TRT-LLM's
separate min-latency grid or its non-gated (two-matrix) kernels; decode-attention rows that beat the nameplate
bandwidth are dropped from the fit; the all-reduce curve is the lower envelope from the right.

Each MoE curve is the median over shapes of roofline ÷ measured latency per routed token count T, the roofline being
max(bytes ÷ bandwidth, FLOPs ÷ dense FLOP/s) with bytes = E·(1 − (1 − k/E)^T) touched experts × 3·hidden·inter ×
bytes per weight and FLOPs = 2·T·k·3·hidden·inter. An engine's "moe" entry ({dtype: curve}) is that at moe_tp_size =
moe_ep_size = 1 and balanced routing; its "moe_tp" entry ({dtype: {moe_tp_size: curve}}) is the same at every
moe_tp_size up to MOE_TP_MAX (moe_ep_size = 1), under aiconfigurator's default power_law_1.2 routing (balanced where a
table lacks it), at the per-GPU shape: every expert on each GPU at inter = inter_size ÷ moe_tp_size of its width (the
parquet's inter_size is the model's full width, which collector/{vllm,sglang,trtllm}/collect_moe.py shard themselves).
One table, routing and dtype serves all TP sizes of a dtype, chosen in the order of the "moe" entry's (the routing
preference aside).

Needs pyarrow, which is not a dependency of the site; install it in a separate environment:

    python -m venv /tmp/pa && /tmp/pa/bin/pip install pyarrow
    /tmp/pa/bin/python scripts/derive_kernel_tables.py /path/to/aiconfigurator.git pricing/data/gpus.json
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from kernel_tables import DATA, OUT, SYSTEMS, Row
from kernel_tables.engines import gpu_entry
from kernel_tables.mirror import Mirror
from kernel_tables.shares import Nameplate


def dump(document: Row) -> str:
    """JSON with one line per curve, so that the file stays small and readable."""
    text = json.dumps(document, indent=1, ensure_ascii=False)
    numbers = r"\[\s*([-+\d.eE,\s]+?)\s*\]"
    text = re.sub(numbers, lambda m: "[" + ", ".join(part.strip() for part in m.group(1).split(",")) + "]", text)
    text = re.sub(r"\[\s*((?:\[[^\[\]]*\],?\s*)+)\]", lambda m: "[" + " ".join(m.group(1).split()) + "]", text)
    return text + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("mirror", type=Path, help="bare git mirror of github.com/ai-dynamo/aiconfigurator")
    parser.add_argument("gpus", type=Path, help="pricing/data/gpus.json")
    parser.add_argument("--commit", default="HEAD")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    mirror = Mirror(args.mirror, args.commit)
    gpus = {gpu["slug"]: gpu for gpu in json.loads(args.gpus.read_text(encoding="utf-8"))}
    document: Row = {
        "source": {
            "repository": "github.com/ai-dynamo/aiconfigurator",
            "commit": mirror.commit,
            "licence": "Apache-2.0",
            "path": DATA,
            "derived_by": "scripts/derive_kernel_tables.py",
        },
        "gpus": {},
    }
    for system, slug in SYSTEMS.items():
        print(f"{system} → {slug}", file=sys.stderr)
        entry = gpu_entry(mirror, system, Nameplate.of(gpus[slug]))
        if entry:
            document["gpus"][slug] = entry
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(dump(document), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
