"""Per-layer attention kinds → the ``LayerGroup`` cache layouts the memory math reads.

Cache shapes follow docs/methodology.md §3: full attention keeps K and V per KV head; MLA keeps the
``kv_lora_rank`` latent plus the ``qk_rope_head_dim`` key (vLLM/SGLang layout) and, with a DSA indexer, the
``index_head_dim`` key; Gated DeltaNet keeps ``n_v·d_k·d_v`` recurrent state and ``(kernel−1)·(2·n_k·d_k + n_v·d_v)``
convolution state (vLLM ``gated_delta_net_state_shape``); KDA keeps one ``d×d`` state per head and three short
convolutions (q, k, v); Mamba layers keep ``d_inner·d_state`` and ``(d_conv−1)·conv_width``.
"""

from __future__ import annotations

from dataclasses import replace

import models_catalog.architecture.layers as lay
from models_catalog.architecture.config import ConfigReader
from models_catalog.architecture.notes import NoteKey, SpecNote
from models_catalog.architecture.params import Dims
from models_catalog.architecture.types import AttentionKind, LayerGroup


def layer_groups(
    reader: ConfigReader, d: Dims, kinds: tuple[str, ...], notes: list[SpecNote]
) -> tuple[LayerGroup, ...]:
    context = reader.num("max_position_embeddings")
    window = reader.num("sliding_window", "sliding_window_size")
    chunk = reader.num("attention_chunk_size")
    full = LayerGroup(AttentionKind.FULL, 0, kv_heads=d.kv_heads, key_dim=d.head_dim, value_dim=d.head_dim)
    made: dict[str, LayerGroup] = {}
    tally: dict[str, int] = {}
    for kind in kinds:
        tally[kind] = tally.get(kind, 0) + 1
    for kind in tally:
        if kind == lay.FULL:
            made[kind] = full
        elif kind == lay.SLIDING:
            if window is None:
                notes.append(SpecNote.of(NoteKey.WINDOW_MISSING))
                reader.defaulted.append("layer_groups")
                made[kind] = full
            elif context is not None and window >= context:
                notes.append(SpecNote.of(NoteKey.WINDOW_NOT_SHORTER, tokens=window))
                made[kind] = full
            else:
                made[kind] = replace(full, kind=AttentionKind.SLIDING, window=window)
        elif kind == lay.CHUNKED:
            if chunk is None:  # layer_types names chunked layers without attention_chunk_size: no window to keep
                raise TypeError("chunked attention layers without attention_chunk_size")
            notes.append(SpecNote.of(NoteKey.CHUNKED_ATTENTION, tokens=chunk))
            made[kind] = replace(full, kind=AttentionKind.SLIDING, window=chunk)
        elif kind in (lay.MLA, lay.MLA_INDEXED):
            made[kind] = LayerGroup(
                AttentionKind.MLA,
                0,
                latent_dim=d.kv_lora_rank,
                rope_dim=d.qk_rope_dim,
                indexer_dim=d.index_dim if kind == lay.MLA_INDEXED else 0,
                indexer_pool=max(1, d.index_pool) if kind == lay.MLA_INDEXED else 1,
            )
        elif kind == lay.GATED_DELTANET:
            key_dim = d.linear_key_heads * d.linear_key_dim
            value_dim = d.linear_value_heads * d.linear_value_dim
            made[kind] = LayerGroup(
                AttentionKind.LINEAR,
                0,
                state_elements=d.linear_value_heads * d.linear_key_dim * d.linear_value_dim,
                conv_elements=(d.conv_kernel - 1) * (2 * key_dim + value_dim),
            )
        elif kind == lay.KDA:
            width = d.linear_value_heads * d.linear_value_dim
            made[kind] = LayerGroup(
                AttentionKind.LINEAR,
                0,
                state_elements=d.linear_value_heads * d.linear_key_dim * d.linear_value_dim,
                conv_elements=(d.conv_kernel - 1) * 3 * width,
            )
        elif kind in (lay.MAMBA, lay.MAMBA2):
            inner = d.ssm_inner or 2 * d.hidden
            conv_width = inner + (2 * d.ssm_groups * d.ssm_state if kind == lay.MAMBA2 else 0)
            made[kind] = LayerGroup(
                AttentionKind.LINEAR,
                0,
                state_elements=inner * d.ssm_state,
                conv_elements=(d.conv_kernel - 1) * conv_width,
            )
        elif kind == lay.LIGHTNING:
            made[kind] = LayerGroup(AttentionKind.LINEAR, 0, state_elements=d.heads * d.head_dim * d.head_dim)
        else:
            if kind == lay.CROSS:
                notes.append(SpecNote.of(NoteKey.CROSS_ATTENTION))
            made[kind] = LayerGroup(AttentionKind.NONE, 0)
    merged: dict[LayerGroup, int] = {}
    for kind, group in made.items():
        merged[group] = merged.get(group, 0) + tally[kind]
    return tuple(replace(group, count=n) for group, n in merged.items())
