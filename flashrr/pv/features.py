"""Per-block features the assembly methods compare, and the extra latency of a
superblock.

Extra latency (paper §III-A) is always the spread *max - min* among the blocks
of one superblock, never max - mean:

* extra program latency of a superblock = sum over LWLs ``w`` of
  ``max_p tPROG(b_p, w) - min_p tPROG(b_p, w)`` (µs);
* extra erase latency = ``max_p tBERS(b_p) - min_p tBERS(b_p)`` (µs).

Signatures of a block (one entry per LWL, layer-major ``w = l * S + s``):

* ``lwl_rank``: rank of each LWL among the block's ``L * S`` LWLs by latency;
* ``pwl_rank``: per string, rank of each layer among the ``L`` layers;
* ``str_rank``: per layer, rank of each string among the ``S`` strings;
* ``str_med``: per layer, 0 for the two fastest strings, 1 for the others (the
  paper's "eigen sequence", Fig. 9), i.e. ``str_rank >= S // 2``.

Ranks are ordinal: ties go to the lower index first (the paper's rule for
STR-MED, "sequentially assigns bits zero to the first two word-lines"); the
``tie`` option of :func:`rank` gives ``min`` and ``dense`` as alternatives.
Latencies are quantized, so ties are common.
"""
from __future__ import annotations

import numpy as np

RANK_TIES = ("ordinal", "min", "dense")


def rank(x: np.ndarray, axis: int = -1, tie: str = "ordinal") -> np.ndarray:
    """Rank of every entry of ``x`` along ``axis`` (0 = smallest), int16.

    ``tie``: ``ordinal`` (ties by position, lower first), ``min`` (ties share the
    lowest rank) or ``dense`` (ties share, ranks without gaps)."""
    if tie not in RANK_TIES:
        raise ValueError(f"rank: tie must be one of {RANK_TIES}, got {tie!r}")
    x = np.moveaxis(np.asarray(x), axis, -1)
    order = np.argsort(x, axis=-1, kind="stable")
    n = x.shape[-1]
    ranks = np.empty(x.shape, dtype=np.int16)
    np.put_along_axis(ranks, order, np.broadcast_to(np.arange(n, dtype=np.int16), x.shape), axis=-1)
    if tie != "ordinal":
        sx = np.take_along_axis(x, order, axis=-1)
        new = np.concatenate([np.ones(x.shape[:-1] + (1,), bool), sx[..., 1:] != sx[..., :-1]], axis=-1)
        if tie == "min":
            first = np.where(new, np.arange(n), 0)
            sorted_rank = np.maximum.accumulate(first, axis=-1)
        else:
            sorted_rank = np.cumsum(new, axis=-1) - 1
        np.put_along_axis(ranks, order, sorted_rank.astype(np.int16), axis=-1)
    return np.moveaxis(ranks, -1, axis)


def lwl_rank(tprog: np.ndarray, tie: str = "ordinal") -> np.ndarray:
    """``(..., L, S)`` latencies -> ``(..., L * S)`` rank of each LWL in its block."""
    flat = tprog.reshape(tprog.shape[:-2] + (-1,))
    return rank(flat, -1, tie)


def pwl_rank(tprog: np.ndarray, tie: str = "ordinal") -> np.ndarray:
    """``(..., L, S)`` -> ``(..., L * S)``: per string, rank of each layer."""
    r = rank(tprog, -2, tie)
    return r.reshape(r.shape[:-2] + (-1,))


def str_rank(tprog: np.ndarray, tie: str = "ordinal") -> np.ndarray:
    """``(..., L, S)`` -> ``(..., L * S)``: per layer, rank of each string."""
    r = rank(tprog, -1, tie)
    return r.reshape(r.shape[:-2] + (-1,))


def str_med_bits(tprog: np.ndarray) -> np.ndarray:
    """``(..., L, S)`` -> ``(..., L * S)`` uint8 eigen bits: 0 for the ``S // 2``
    fastest strings of each layer (ties: lower string first), 1 otherwise."""
    s = tprog.shape[-1]
    return (rank(tprog, -1, "ordinal") >= s // 2).reshape(tprog.shape[:-2] + (-1,)).astype(np.uint8)


def str_med_above_mean_bits(tprog: np.ndarray) -> np.ndarray:
    """Alternative eigen rule (§VI-D): 1 where a LWL is slower than its block's mean LWL latency."""
    flat = tprog.reshape(tprog.shape[:-2] + (-1,))
    return (flat > flat.mean(axis=-1, keepdims=True)).astype(np.uint8)


def pack(bits: np.ndarray) -> np.ndarray:
    """0/1 vectors along the last axis -> packed uint8 bytes (``ceil(n / 8)``)."""
    return np.packbits(bits.astype(np.uint8), axis=-1)


def popcount_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Bits that differ between packed bit vectors (broadcasting over leading axes)."""
    return np.bitwise_count(np.bitwise_xor(a, b)).sum(axis=-1, dtype=np.int64)


def hamming(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Entries that differ between vectors (broadcasting over leading axes)."""
    return (a != b).sum(axis=-1, dtype=np.int64)


def block_sum(tprog: np.ndarray) -> np.ndarray:
    """BLK PGM LTN: the sum of a block's LWL program latencies (µs), ``(..., L, S) -> (...)``."""
    return tprog.sum(axis=(-2, -1))


def extra_program(members_lwl: np.ndarray) -> np.ndarray:
    """Extra program latency (µs) of superblocks: member latencies per LWL,
    ``(..., P, W)`` -> ``(...)``: the sum over LWLs of max - min over the ``P`` members."""
    x = np.asarray(members_lwl)
    return (x.max(axis=-2) - x.min(axis=-2)).sum(axis=-1)


def extra_erase(members_tbers: np.ndarray) -> np.ndarray:
    """Extra erase latency (µs): ``(..., P)`` member erase latencies -> ``(...)``."""
    return members_tbers.max(axis=-1) - members_tbers.min(axis=-1)
