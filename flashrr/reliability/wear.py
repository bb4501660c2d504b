"""Initial wear: per-block P/E cycles of an aged device, drawn once and seeded.

A device that has already served some life needs no simulated aging: each block
starts at its own P/E count, drawn from a normal distribution with mean
``mean_pe`` and standard deviation ``sd_pe`` (cycles), rounded and clipped to
``[0, max_pe]``.  Wear levelling keeps real spreads narrow; the normal form and
its spread are chosen defaults, not a published distribution.
"""
from __future__ import annotations

import numpy as np

from ..config import ConfigError
from ._checks import finite_nonneg, positive_int


def draw_initial_pe(n_blocks: int, mean_pe: float, sd_pe: float = 0.0, seed: int = 0,
                    max_pe: float | None = None) -> np.ndarray:
    """P/E cycles of ``n_blocks`` blocks (int64 array), reproducible for a given ``seed``."""
    n = positive_int("wear.n_blocks", n_blocks)
    mean = finite_nonneg("wear.mean_pe", mean_pe)
    sd = finite_nonneg("wear.sd_pe", sd_pe)
    hi = np.inf if max_pe is None else finite_nonneg("wear.max_pe", max_pe)
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
        raise ConfigError(f"wear.seed: must be a non-negative integer (got {seed!r})")
    draws = np.random.default_rng(int(seed)).normal(mean, sd, n) if sd > 0 else np.full(n, mean)
    return np.clip(np.rint(draws), 0, hi).astype(np.int64)
