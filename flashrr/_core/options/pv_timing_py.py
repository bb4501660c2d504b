"""Process-variation timing (twin of ``pv_timing.pyx``): per-block program and
erase latencies, the multi-plane maximum, and QSTR-MED reassembly of free
superblocks.  ``flashrr/pv/engine_tables.py`` builds the tables and documents
the ids (PV block ``g = (lane * k + c) * S + in-plane block``)."""
from __future__ import annotations

import numpy as np

from ..device_state import copied, set_copied
from ..layout import Layout


class PVTiming:
    def __init__(self, layout: Layout):
        L = self.L = layout
        T = L.pv
        self.k, self.N, self.S, self.W = L.k, L.pages_per_block, L.sb_per_lane, T.n_lwl
        self.n_words, self.window, self.dynamic = T.n_words, T.window, T.reassembly
        self.lwl = T.lwl_of_page
        self.tprog = T.tprog_ns
        self.tbers = T.tbers_ns
        self.phys = np.array(T.phys, dtype=np.int32, copy=True)
        self.owner = np.empty(len(self.phys), np.int32)
        self.owner[self.phys] = np.arange(len(self.phys), dtype=np.int32)
        self.bsum = T.block_sum_ns
        self.eigen = T.eigen.reshape(-1, T.n_words)

    def state(self) -> dict:
        """The binding of slot blocks to PV blocks (reassembly changes it), for a snapshot."""
        return copied(self, ("phys", "owner"))

    def restore(self, state: dict) -> None:
        set_copied(self, state, ("phys", "owner"), "pv")

    def page_ns(self, ppn: int) -> int:
        """Program latency (ns) of page ``ppn`` alone."""
        blk, off = divmod(ppn, self.N)
        return int(self.tprog[int(self.phys[blk]) * self.W + int(self.lwl[off])])

    def program_ns(self, ppns) -> int:
        """A multi-plane program of ``ppns`` (one page offset): its slowest plane (ns)."""
        return max(self.page_ns(p) for p in ppns)

    def erase_ns(self, sb: int, die: int) -> int:
        """A multi-plane erase of superblock ``sb``'s blocks on ``die``: its slowest block (ns)."""
        k, lane = self.k, sb // self.S
        return max((int(self.tbers[self.phys[sb * k + c]]) for c in range(k)
                    if int(self.L.comp_die[lane * k + c]) == die), default=0)

    def _distance(self, a: int, b: int) -> int:
        return int(np.bitwise_count(self.eigen[a] ^ self.eigen[b]).sum())

    def reassemble(self, sb: int, free: list, slow: bool) -> None:
        """Bind ``sb`` (just allocated) to the blocks PV Check picks among the PV blocks
        of ``sb`` and of the free superblocks ``free``: a slow superblock (GC/RR
        frontier) or a fast one (user frontier); the picked blocks swap bindings with
        ``sb``'s."""
        k = self.k
        slots = [sb] + list(free)
        pools = [sorted((int(self.phys[s * k + c]) for s in slots), key=lambda g: (int(self.bsum[g]), g))
                 for c in range(k)]
        ends = [pool[-1] if slow else pool[0] for pool in pools]
        sums = [int(self.bsum[g]) for g in ends]
        a = sums.index(max(sums) if slow else min(sums))
        chosen = [0] * k
        chosen[a] = ends[a]
        for q in range(k):
            if q == a:
                continue
            cands = pools[q][::-1][:self.window] if slow else pools[q][:self.window]
            d = [self._distance(chosen[a], g) for g in cands]
            chosen[q] = cands[d.index(min(d))]
        for c, x in enumerate(chosen):
            j, cur = int(self.owner[x]), int(self.phys[sb * k + c])
            self.phys[j], self.owner[cur] = cur, j
            self.phys[sb * k + c], self.owner[x] = x, sb * k + c
