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
