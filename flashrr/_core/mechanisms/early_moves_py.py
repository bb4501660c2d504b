"""Counter-guided early read reclaim (twin of ``early_moves.pyx``; the model is described
there and in docs/phasedrr.md): RL-RR's Q-learning rule (mode 1) and
Reallocation's benefit-cost rule (mode 2) move the hottest pages of blocks past
a soft threshold in idle time."""
from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

import numpy as np

from ..layout import Layout
from ..roles_py import Mechanism


class EarlyMode(IntEnum):
    """The decision rule of the early moves (early_moves.pxd's mode)."""

    RL_RR = 1  # tabular Q-learning
    REALLOCATION = 2  # benefit >= cost


class EarlyMovesSpec(NamedTuple):
    """Counter-guided early moves: ``mode`` (:class:`EarlyMode`), ``span`` (block reads
    before the RR threshold where blocks become candidates), and RL-RR's ``alpha``,
    ``gamma`` and ``epsilon`` (0 for Reallocation)."""

    mode: int
    span: int
    alpha: float
    gamma: float
    epsilon: float

ACTIONS = (0, 1, 2, 4, 8, 16, 32)
MASK = (1 << 64) - 1


def gap_bucket(gap: int, unit: int) -> int:
    """min(7, bit length of gap // unit)."""
    return min(7, (gap // unit).bit_length())


class EarlyMoves(Mechanism):
    def __init__(self, ctx, spec):
        super().__init__()
        layout, ftl, sched, page_counters, counters = ctx.layout, ctx.ftl, ctx.sched, ctx.page_counters, ctx.counters
        block_reads, rr_threshold, seed = ctx.block_reads, ctx.rr_threshold, ctx.seed
        L = self.L = layout
        self.ftl, self.sched, self.pc, self.c = ftl, sched, page_counters, counters
        self.block_reads, self.rr_threshold = block_reads, rr_threshold
        self.rc = ctx.rc
        self.t_mv = max(1, L.t_read_ns + L.t_program_ns)
        mode, span, alpha, gamma, eps = spec
        self.mode, self.span, self.alpha, self.gamma = int(mode), int(span), float(alpha), float(gamma)
        self.eps_per_mille = int(round(eps * 1000))
        self.rng = (int(seed) * 2862933555777941757 + 3037000493) & MASK
        n_blocks = L.n_blocks
        self.cand = np.zeros(n_blocks, dtype=np.uint8)
        self.in_ring = np.zeros(n_blocks, dtype=np.uint8)
        self.ring: list = []  # FIFO of candidate blocks (maybe stale)
        self.queued = np.zeros(L.n_pages, dtype=np.uint8)
        self.q = np.zeros(64 * len(ACTIONS), dtype=np.float64)
        self.last_done = self.gap1 = self.gap2 = self.g_ewma = 0
        self.decided = False
        self.last_state = self.last_action = 0
        self.moves_before = 0

    def array(self, name: str) -> np.ndarray:
        return {"q": self.q, "cand": self.cand, "queued": self.queued}[name]

    def page_read(self, ppn: int, blk: int, c: int, thr: int, done: int) -> None:
        if c < thr - self.span or self.cand[blk]:
            return
        self.cand[blk] = 1
        if not self.in_ring[blk]:
            self.in_ring[blk] = 1
            self.ring.append(blk)

    def next_page(self):
        """(ppn, counter, sum of counters, block) of the head candidate's hottest
        unqueued valid page, or None; pops stale and exhausted candidates."""
        N = self.L.pages_per_block
        while self.ring:
            blk = self.ring[0]
            best, bw, wsum = -1, -1, 0
            if self.cand[blk]:
                for o in range(N):
                    ppn = blk * N + o
                    lpn = int(self.ftl.p2l[ppn])
                    if lpn < 0:
                        continue
                    w = int(self.pc.counts[lpn])
                    wsum += w
                    if not self.queued[ppn] and w > bw:
                        bw, best = w, ppn
            if best >= 0:
                return best, bw, wsum, blk
            self.in_ring[blk] = 0
            self.ring.pop(0)
        return None

    def queue_page(self, ppn: int, t: int) -> None:
        L = self.L
        k = L.k
        blk = ppn // L.pages_per_block
        self.queued[ppn] = 1
        die = int(L.comp_die[(blk // k // L.sb_per_lane) * k + blk % k])
        self.sched.push_idle(die, int(self.ftl.p2l[ppn]), ppn, blk % k, t)

    def request_done(self, done: int) -> None:
        self.last_done = max(self.last_done, done)
        if not self.ring:
            return
        nA = len(ACTIONS)
        if self.mode == 1:
            s = gap_bucket(self.gap1, self.t_mv) * 8 + gap_bucket(self.gap2, self.t_mv)
            self.rng = (self.rng * 6364136223846793005 + 1442695040888963407) & MASK
            if (self.rng >> 33) % 1000 < self.eps_per_mille:
                a = (self.rng >> 20) % nA
            else:
                row = self.q[s * nA:(s + 1) * nA]
                a = int(np.argmax(row))  # first maximum, as the compiled scan
            for _ in range(ACTIONS[a] - self.sched.idle_pending):
                nxt = self.next_page()
                if nxt is None:
                    break
                self.queue_page(nxt[0], done)
            self.last_state, self.last_action = s, a
            self.moves_before = self.c["idle_moves"]
            self.decided = True
        elif self.sched.idle_pending == 0:
            nxt = self.next_page()
            if nxt is not None and nxt[2] > 0:
                ppn, w, wsum, blk = nxt
                c = int(self.block_reads[blk])
                thr = int(self.rr_threshold[blk])
                extra = int(self.L.retry_extra_ns[self.rc.retries(blk)])  # the table's, or the error model's steps
                benefit = float(w) * float(thr - c) * float(extra) / float(wsum)
                cost = float(self.t_mv)
                if self.g_ewma > self.t_mv:
                    cost = float(self.t_mv) * float(self.t_mv) / float(self.g_ewma)
                if benefit >= cost:
                    self.queue_page(ppn, done)

    def arrival(self, t: int) -> None:
        """Observe the idle gap that just ended; RL: reward the last decision."""
        gap = max(0, t - self.last_done)
        nA = len(ACTIONS)
        if self.decided:
            moved = self.c["idle_moves"] - self.moves_before
            overrun = 0
            if moved:
                f = max(0, int(self.sched.die_free.max()))
                overrun = max(0, f - t)
            r = float(moved) - 2.0 * float(overrun) / float(self.t_mv)
            s2 = gap_bucket(gap, self.t_mv) * 8 + gap_bucket(self.gap1, self.t_mv)
            best = float(self.q[s2 * nA:(s2 + 1) * nA].max())
            i = self.last_state * nA + self.last_action
            self.q[i] = self.q[i] + self.alpha * (r + self.gamma * best - self.q[i])
            self.decided = False
        self.gap2, self.gap1 = self.gap1, gap
        self.g_ewma = (7 * self.g_ewma + gap) // 8

    def block_erased(self, blk: int) -> None:
        N = self.L.pages_per_block
        self.cand[blk] = 0
        self.queued[blk * N:(blk + 1) * N] = 0
