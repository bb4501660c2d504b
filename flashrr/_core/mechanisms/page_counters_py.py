"""Page read counters (twin of ``page_counters.pyx``): one per group of LPNs."""
from __future__ import annotations

import numpy as np


class PageCounters:
    """One read counter per group of ``group`` consecutive LPNs, incremented on every
    flash read of a page (``policy.page_counter_group``; 0 = off)."""

    def __init__(self, group: int, logical: int):
        self.group = group
        self.counts = np.zeros((logical + group - 1) // group if group else 0, dtype=np.int32)

    def on_flash_reads(self, lpns: list) -> None:
        if self.group:
            for lpn in lpns:
                self.counts[lpn // self.group] += 1

    def view(self) -> np.ndarray:
        return self.counts
