"""Patrol scan (twin of ``patrol.pyx``, which describes it): one superblock visit per
scan interval; a closed superblock with a block at ``ahead`` of its RR threshold has
its valid pages queued for idle-time moves."""
from __future__ import annotations

import numpy as np

from ..layout import SB_CLOSED, PPM
from ..roles_py import Mechanism


class PatrolScan(Mechanism):
    def __init__(self, ctx, spec):
        super().__init__()
        L = self.L = ctx.layout
        self.ftl, self.sched = ctx.ftl, ctx.sched
        self.block_reads, self.rr_threshold = ctx.block_reads, ctx.rr_threshold
        self.interval_ns, self.ahead_ppm = (int(x) for x in spec)
        self.next_scan = self.interval_ns
        self.cursor = 0
        self.queued = np.zeros(L.n_superblocks, dtype=np.uint8)
        self.reset_counters()

    def request_done(self, done: int) -> None:
        n_sb = self.L.n_superblocks
        n = 0
        while done >= self.next_scan and n < n_sb:
            self.visit(self.cursor, done)
            self.cursor = (self.cursor + 1) % n_sb
            self.next_scan += self.interval_ns
            n += 1
        if done >= self.next_scan:
            self.next_scan = done + self.interval_ns

    def visit(self, sb: int, t: int) -> None:
        L = self.L
        k, N = L.k, L.pages_per_block
        self.ctr[0] += 1
        if self.ftl.sb_state[sb] != SB_CLOSED or self.queued[sb]:
            return
        blocks = range(sb * k, (sb + 1) * k)
        if not any(int(self.block_reads[b]) * PPM >= self.ahead_ppm * int(self.rr_threshold[b]) for b in blocks):
            return
        self.queued[sb] = 1
        self.ctr[1] += 1
        for off in range(N):
            for c in range(k):
                ppn = (sb * k + c) * N + off
                lpn = int(self.ftl.p2l[ppn])
                if lpn >= 0:
                    die = int(L.comp_die[(sb // L.sb_per_lane) * k + c])
                    self.sched.push_idle(die, lpn, ppn, c, t)
                    self.ctr[2] += 1

    def block_erased(self, blk: int) -> None:
        self.queued[blk // self.L.k] = 0

    def array(self, name: str):
        """``queued``, for tests."""
        return getattr(self, name)

    def counter_values(self) -> list:
        return list(self.ctr)

    def reset_counters(self) -> None:
        self.ctr = [0, 0, 0]
