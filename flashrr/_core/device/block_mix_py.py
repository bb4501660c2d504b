"""Pages programmed per block since its erase, by kind (twin of ``block_mix.pyx``)."""
from __future__ import annotations

import numpy as np


class BlockMix:
    """Pages programmed into each block since its erase, by kind (all schemes)."""

    def __init__(self, n_blocks: int):
        self.user = np.zeros(n_blocks, dtype=np.int32)
        self.rr = np.zeros(n_blocks, dtype=np.int32)
        self.gc = np.zeros(n_blocks, dtype=np.int32)

    def array(self, name: str) -> np.ndarray:
        return {"mix_user": self.user, "mix_rr": self.rr, "mix_gc": self.gc}[name]

    def state(self) -> dict:
        """Copies of the three arrays, for a snapshot."""
        return {name: self.array(name).copy() for name in ("mix_user", "mix_rr", "mix_gc")}

    def restore(self, state: dict) -> None:
        for name in ("mix_user", "mix_rr", "mix_gc"):
            if name not in state:
                raise ValueError(f"block_mix.{name}: missing")
            dst, src = self.array(name), state[name]
            if src.shape != dst.shape or src.dtype != dst.dtype:
                raise ValueError(f"block_mix.{name}: expected {dst.dtype} {dst.shape}, got {src.dtype} {src.shape}")
            dst[...] = src
