"""Per-block latencies of a set of dies: the input of every assembly method.

A :class:`Latencies` holds, for ``D`` dies of ``P`` planes with ``N`` blocks
per plane (``N`` = in-plane block index), the program latency of every logical
word line (LWL) and the erase latency of every block, both in **µs**:

* ``tprog_us``: float64, shape ``(D, P, N, L, S)``: layer ``l`` (physical word
  line, PWL), string ``s``.  LWL ``w = l * S + s`` (program order, layer-major),
  so ``tprog_us.reshape(D, P, N, L * S)`` is per-LWL.
* ``tbers_us``: float64, shape ``(D, P, N)``.

``pe`` is the P/E cycle count the values were measured (or modelled) at.
Superblocks are assembled within one die: one block from each of its planes.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Latencies:
    tprog_us: np.ndarray
    tbers_us: np.ndarray
    pe: int = 0

    def __post_init__(self):
        tp = np.asarray(self.tprog_us, dtype=np.float64)
        te = np.asarray(self.tbers_us, dtype=np.float64)
        if tp.ndim != 5:
            raise ValueError(f"Latencies.tprog_us: expected shape (dies, planes, blocks, layers, strings), "
                             f"got {tp.shape}")
        if te.shape != tp.shape[:3]:
            raise ValueError(f"Latencies.tbers_us: expected shape {tp.shape[:3]} (dies, planes, blocks), "
                             f"got {te.shape}")
        if not (np.isfinite(tp).all() and np.isfinite(te).all()):
            raise ValueError("Latencies: program and erase latencies must be finite numbers (µs)")
        object.__setattr__(self, "tprog_us", tp)
        object.__setattr__(self, "tbers_us", te)

    @property
    def dies(self) -> int:
        return self.tprog_us.shape[0]

    @property
    def planes(self) -> int:
        return self.tprog_us.shape[1]

    @property
    def blocks(self) -> int:
        """Blocks per plane."""
        return self.tprog_us.shape[2]

    @property
    def layers(self) -> int:
        return self.tprog_us.shape[3]

    @property
    def strings(self) -> int:
        return self.tprog_us.shape[4]

    @property
    def n_lwl(self) -> int:
        return self.layers * self.strings

    def lwl(self) -> np.ndarray:
        """Program latency per LWL, µs, shape ``(D, P, N, L * S)`` (a view)."""
        return self.tprog_us.reshape(self.dies, self.planes, self.blocks, self.n_lwl)

    def die(self, d: int) -> "Latencies":
        """The latencies of die ``d`` alone (shape ``(1, P, N, ...)``)."""
        return Latencies(self.tprog_us[d:d + 1], self.tbers_us[d:d + 1], self.pe)


def as_latencies(tprog_us, tbers_us, pe: int = 0) -> Latencies:
    """Wrap arrays as :class:`Latencies`; a 4-D ``tprog_us`` (one die) gains a die axis."""
    tp = np.asarray(tprog_us, dtype=np.float64)
    te = np.asarray(tbers_us, dtype=np.float64)
    if tp.ndim == 4:
        tp, te = tp[None], te[None]
    return Latencies(tp, te, pe)
