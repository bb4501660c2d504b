# cython: language_level=3
"""Counter-guided early read reclaim (compiled; twin ``early_moves_py.py``).

A block becomes a candidate on the flash read that brings its count to
``thr - span`` or more (``thr``: its RR threshold); candidates are served in
FIFO order.  The page moved next is the head candidate's valid page with the
largest page counter (lowest offset on a tie) not yet queued in this block
cycle; it moves through the engine's idle-move queue (decided at the end of a
request, started only while its die is idle before the next arrival).

* mode 1, RL-RR: at the end of every request, a tabular Q-learning agent
  picks how many pages to have queued, from (0, 1, 2, 4, 8, 16, 32); the state
  is the log2 buckets (0..7, in page-move times) of the last two idle gaps.
  At the next arrival it is rewarded with pages moved minus 2 x the overrun past
  the arrival (in page-move times); alpha, gamma, epsilon are parameters and the
  epsilon draws come from a 64-bit LCG seeded by the run seed.
* mode 2, Reallocation: at the end of every request, the next page is queued
  (one at a time) when its benefit ``w / sum(w) * (thr - c) * retry_extra(c)``
  is at least the cost ``t_mv * min(1, t_mv / mean gap)`` (mean gap: EWMA with
  weight 1/8).

Pages left at the hard threshold move with the ordinary RR.  An emptied
candidate is left to GC.
"""
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint64_t
from libc.string cimport memset

import functools

import numpy as np
cimport numpy as cnp

from ..device.common cimport *

from ..buffers import owned_array

cnp.import_array()

DEF N_ACT = 7
DEF N_STATE = 64
cdef int32_t ACTIONS[N_ACT]
ACTIONS[:] = [0, 1, 2, 4, 8, 16, 32]


cdef inline int32_t _bucket(int64_t gap, int64_t unit) noexcept nogil:
    """min(7, bit length of gap // unit): 0 for a gap shorter than one page move."""
    cdef int64_t v = gap // unit
    cdef int32_t b = 0
    while v > 0 and b < 7:
        v >>= 1
        b += 1
    return b


cdef class EarlyMoves:
    def __init__(self, ctx, spec):
        """``spec``: (mode, span, alpha, gamma, epsilon) from the policy."""
        cdef Ftl ftl = ctx.ftl
        cdef Scheduler sched = ctx.sched
        cdef PageCounters pc = ctx.page_counters
        cdef int64_t seed = ctx.seed
        layout, counters, comp_die = ctx.layout, ctx.counters, ctx.comp_die
        block_reads, rr_threshold = ctx.block_reads, ctx.rr_threshold
        cdef cnp.ndarray a
        L = layout
        self.ftl, self.sched, self.pc = ftl, sched, pc
        self.N, self.k, self.S = L.pages_per_block, L.k, L.sb_per_lane
        self.n_dies = L.n_dies
        self.t_read = L.t_read_ns
        self.t_mv = max(1, L.t_read_ns + L.t_program_ns)
        mode, span, alpha, gamma, eps = spec
        self.mode, self.span = mode, span
        self.alpha, self.gamma = alpha, gamma
        self.eps_per_mille = int(round(eps * 1000))
        self.rng = (<uint64_t>seed * 2862933555777941757ULL + 3037000493ULL)
        self._keep = keep = {"counters": counters, "comp_die": comp_die, "block_reads": block_reads,
                             "rr_threshold": rr_threshold}
        a = counters; self.cnt = <int64_t*>a.data
        a = comp_die; self.comp_die = <int32_t*>a.data
        self.rc = ctx.rc
        self.n_blocks = L.n_blocks
        n_pages = L.n_pages

        arr = functools.partial(owned_array, keep)

        a = arr("cand", self.n_blocks, np.uint8); self.cand = <uint8_t*>a.data
        a = arr("in_ring", self.n_blocks, np.uint8); self.in_ring = <uint8_t*>a.data
        a = arr("ring", self.n_blocks, np.int32); self.ring = <int32_t*>a.data
        a = arr("queued", n_pages, np.uint8); self.queued = <uint8_t*>a.data
        a = arr("q", N_STATE * N_ACT, np.float64); self.q = <double*>a.data
        a = block_reads; self.block_reads = <int32_t*>a.data
        a = rr_threshold; self.rr_threshold = <int32_t*>a.data
        self.r_head = self.r_len = 0
        self.last_done = self.gap1 = self.gap2 = self.g_ewma = 0
        self.decided = False

    def array(self, name):
        """A NumPy view of one of this mechanism's arrays (q, cand, queued)."""
        return self._keep[name]

    cdef int page_read(self, int64_t ppn, int64_t blk, int32_t c, int32_t thr, int64_t done) except -1 nogil:
        if c < thr - self.span or self.cand[blk]:
            return 0
        self.cand[blk] = 1
        if not self.in_ring[blk]:
            self.in_ring[blk] = 1
            self.ring[(self.r_head + self.r_len) % self.n_blocks] = <int32_t>blk
            self.r_len += 1
        return 0

    cdef int64_t next_page(self, int64_t* w_out, int64_t* wsum_out, int32_t* blk_out) noexcept nogil:
        """The hottest unqueued valid page of the head candidate (-1 if none); pops
        stale and exhausted candidates."""
        cdef int64_t blk, ppn, best, w, bw, wsum
        cdef int32_t o, lpn
        while self.r_len:
            blk = self.ring[self.r_head]
            best = -1
            bw = -1
            wsum = 0
            if self.cand[blk]:
                for o in range(self.N):
                    ppn = blk * self.N + o
                    lpn = self.ftl.p2l[ppn]
                    if lpn < 0:
                        continue
                    w = self.pc.counts[lpn]
                    wsum += w
                    if not self.queued[ppn] and w > bw:
                        bw = w
                        best = ppn
            if best >= 0:
                w_out[0] = bw
                wsum_out[0] = wsum
                blk_out[0] = <int32_t>blk
                return best
            self.in_ring[blk] = 0
            self.r_head = (self.r_head + 1) % self.n_blocks
            self.r_len -= 1
        return -1

    cdef int queue_page(self, int64_t ppn, int64_t t) except -1 nogil:
        cdef int64_t blk = ppn // self.N
        cdef int64_t sbq = blk // self.k
        self.queued[ppn] = 1
        self.sched.push_idle(self.comp_die[(sbq // self.S) * self.k + (blk - sbq * self.k)], self.ftl.p2l[ppn],
                             <int32_t>ppn, <int32_t>(blk - sbq * self.k), t)
        return 0

    cdef int request_done(self, int64_t done) except -1 nogil:
        cdef int32_t s, a, i, m, blk
        cdef int64_t ppn, w = 0, wsum = 0, c, thr, extra, r
        cdef double best, benefit, cost
        if done > self.last_done:
            self.last_done = done
        if not self.r_len:
            return 0
        if self.mode == 1:
            s = _bucket(self.gap1, self.t_mv) * 8 + _bucket(self.gap2, self.t_mv)
            self.rng = self.rng * 6364136223846793005ULL + 1442695040888963407ULL
            if <int32_t>((self.rng >> 33) % 1000) < self.eps_per_mille:
                a = <int32_t>((self.rng >> 20) % N_ACT)
            else:
                a = 0
                best = self.q[s * N_ACT]
                for i in range(1, N_ACT):
                    if self.q[s * N_ACT + i] > best:
                        best = self.q[s * N_ACT + i]
                        a = i
            m = ACTIONS[a] - <int32_t>self.sched.idle_pending
            for i in range(m):
                ppn = self.next_page(&w, &wsum, &blk)
                if ppn < 0:
                    break
                self.queue_page(ppn, done)
            self.last_state = s
            self.last_action = a
            self.moves_before = self.cnt[C_IDLE_MOVES]
            self.decided = True
        elif self.sched.idle_pending == 0:
            ppn = self.next_page(&w, &wsum, &blk)
            if ppn >= 0 and wsum > 0:
                c = self.block_reads[blk]
                thr = self.rr_threshold[blk]
                extra = self.rc.retry_extra[self.rc.retries(blk)]  # the table's, or the error model's steps
                benefit = <double>w * <double>(thr - c) * <double>extra / <double>wsum
                cost = <double>self.t_mv
                if self.g_ewma > self.t_mv:
                    cost = <double>self.t_mv * <double>self.t_mv / <double>self.g_ewma
                if benefit >= cost:
                    self.queue_page(ppn, done)
        return 0

    cdef int arrival(self, int64_t t) except -1 nogil:
        """Observe the idle gap that just ended; RL: reward the last decision."""
        cdef int64_t gap = t - self.last_done, moved, overrun = 0, f = 0
        cdef int32_t d, s2, i
        cdef double r, best
        if gap < 0:
            gap = 0
        if self.decided:
            moved = self.cnt[C_IDLE_MOVES] - self.moves_before
            if moved:
                for d in range(self.n_dies):
                    if self.sched.die_free[d] > f:
                        f = self.sched.die_free[d]
                if f > t:
                    overrun = f - t
            r = <double>moved - 2.0 * <double>overrun / <double>self.t_mv
            s2 = _bucket(gap, self.t_mv) * 8 + _bucket(self.gap1, self.t_mv)
            best = self.q[s2 * N_ACT]
            for i in range(1, N_ACT):
                if self.q[s2 * N_ACT + i] > best:
                    best = self.q[s2 * N_ACT + i]
            i = self.last_state * N_ACT + self.last_action
            self.q[i] = self.q[i] + self.alpha * (r + self.gamma * best - self.q[i])
            self.decided = False
        self.gap2 = self.gap1
        self.gap1 = gap
        self.g_ewma = (7 * self.g_ewma + gap) // 8
        return 0

    cdef void block_erased(self, int64_t blk) noexcept nogil:
        self.cand[blk] = 0
        memset(self.queued + blk * self.N, 0, self.N)
