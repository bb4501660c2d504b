"""Cocktail (Zhang et al., TCAD 2023): mix user and RR data in each block.

The compiled write pool (``flashrr/_core/mechanisms/write_pool.pyx``, twin
``write_pool_py.py``) does the per-page work; this class only switches it on.
Per plane (superblock size 1): a user write frontier, an internal (RR) write
frontier and a pool of partly written blocks.  User frontiers enter the pool
once ``1 - 1/n`` of their pages are written (flag WR); internal frontiers once
``1/n`` are (flag RR); user pages complete RR entries and RR pages complete WR
entries, the entry picked by the least Eq. 2 factor.  ``n`` is the pool
capacity, which grows by one from ``cap_min`` up to ``cap_max`` when a user
frontier finds the pool full, and resets to ``cap_min`` when internal writes
drain the pool below it (Algorithms 1 and 2).  No page counters: the DRAM
charge is 0.  docs/cocktail.md lists every reading of the paper.
"""
from __future__ import annotations

import math

from ...config import ConfigError
from ..._core.mechanisms.write_pool_py import WritePoolSpec
from ...policy import Policy, register_policy

GC_WRITES = ("internal", "separate")
CAP_RESETS = ("page", "rr")
TARGET_KEYS = ("factor", "reads")


def pool_bounds(blocks_per_plane: int, min_fraction: float = 0.01, max_fraction: float = 0.03,
                min_blocks=None, max_blocks=None) -> tuple:
    """``(cap_min, cap_max)`` in blocks: ``floor`` of the fractions of a plane's blocks
    (2048 blocks: 20 and 61), at least 1, unless given as block counts."""
    lo = int(min_blocks) if min_blocks is not None else max(1, math.floor(min_fraction * blocks_per_plane))
    hi = int(max_blocks) if max_blocks is not None else max(lo, math.floor(max_fraction * blocks_per_plane))
    return lo, hi


def _check_choice(label, value, choices):
    if value not in choices:
        raise ValueError(f"cocktail: {label} must be one of {list(choices)}, got {value!r}")


@register_policy
class Cocktail(Policy):
    """Cocktail.  Parameters: ``pool_min_fraction`` (0.01) and ``pool_max_fraction``
    (0.03) of a plane's blocks, or ``pool_min_blocks`` / ``pool_max_blocks`` (block counts,
    override the fractions); ``ratio`` (Eq. 2 weight of the read term, 0.5); ``n`` (fixed
    RR share 1/n of a mixed block, None = the pool capacity); ``gc_writes`` ("internal":
    GC pages take the RR path of Algorithm 2; "separate": GC keeps its own frontier);
    ``cap_reset`` ("page": capacity reset check after every internal page; "rr": after a
    whole migration); ``target_key`` ("factor": Eq. 2; "reads": block read count)."""

    name = "cocktail"
    place_kinds = ()

    def __init__(self, pool_min_fraction: float = 0.01, pool_max_fraction: float = 0.03, pool_min_blocks=None,
                 pool_max_blocks=None, ratio: float = 0.5, n=None, gc_writes: str = "internal",
                 cap_reset: str = "page", target_key: str = "factor"):
        super().__init__()
        for label, v in (("pool_min_fraction", pool_min_fraction), ("pool_max_fraction", pool_max_fraction),
                         ("ratio", ratio)):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 1:
                raise ValueError(f"cocktail: {label} must be a number in [0, 1], got {v!r}")
        for label, v in (("pool_min_blocks", pool_min_blocks), ("pool_max_blocks", pool_max_blocks)):
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
                raise ValueError(f"cocktail: {label} must be a positive integer (blocks) or None, got {v!r}")
        if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 2):
            raise ValueError(f"cocktail: n must be an integer >= 2 (RR share 1/n of a block) or None, got {n!r}")
        _check_choice("gc_writes", gc_writes, GC_WRITES)
        _check_choice("cap_reset", cap_reset, CAP_RESETS)
        _check_choice("target_key", target_key, TARGET_KEYS)
        self.pool_min_fraction, self.pool_max_fraction = float(pool_min_fraction), float(pool_max_fraction)
        self.pool_min_blocks, self.pool_max_blocks = pool_min_blocks, pool_max_blocks
        self.ratio, self.n = float(ratio), n
        self.gc_writes, self.cap_reset, self.target_key = gc_writes, cap_reset, target_key
        self._bounds = None

    def params(self) -> dict:
        return {"pool_min_fraction": self.pool_min_fraction, "pool_max_fraction": self.pool_max_fraction,
                "pool_min_blocks": self.pool_min_blocks, "pool_max_blocks": self.pool_max_blocks,
                "ratio": self.ratio, "n": self.n, "gc_writes": self.gc_writes, "cap_reset": self.cap_reset,
                "target_key": self.target_key}

    def bind(self, config, seed: int) -> None:
        if config.superblock.k != 1:
            raise ConfigError(f"cocktail: the write pool is block-level; superblock size must be 1 "
                              f"(superblock.sb_* = 1), got {config.superblock.k}")
        lo, hi = pool_bounds(config.geometry.blocks_per_plane, self.pool_min_fraction, self.pool_max_fraction,
                             self.pool_min_blocks, self.pool_max_blocks)
        if hi < lo:
            raise ConfigError(f"cocktail: pool capacity bounds {lo}..{hi} blocks: the maximum is below the minimum")
        self._bounds = (lo, hi)

    def write_pool_spec(self):
        if self._bounds is None:
            raise ConfigError("cocktail: bind(config, seed) must be called before the engine is built")
        lo, hi = self._bounds
        return WritePoolSpec(lo, hi, round(self.ratio * 1_000_000), self.n or 0, self.gc_writes == "internal",
                             self.cap_reset == "page", self.target_key == "reads")
