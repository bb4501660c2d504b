# cython: language_level=3
"""Patrol scan (compiled; twin ``patrol_py.py``), the background scan production
firmware runs, as a request observer: after each request, every scan interval that
has passed visits the next superblock in id order (wrapping).  A visit looks at a
closed superblock not queued since its erase: if a block of it has reached
``ahead`` of its RR threshold (``reads >= ahead * rr_threshold``; under
``read_reclaim.trigger = "rber"`` the threshold is the error model's, so this is a
margin on its predicted errors), every valid page of the superblock goes on its
die's idle queue (the queue of PhasedRR's moves), in offset-major order, to be
moved to the GC/RR frontier when the die is idle.  The visit's own read of the
block is not modelled.  After a long gap the scan does at most one lap, then
restarts its clock.
"""
from libc.stdint cimport int32_t, int64_t, uint8_t

import functools

import numpy as np
cimport numpy as cnp

from ..device.common cimport S_CLOSED
from ..buffers import owned_array

cnp.import_array()

DEF PPM_C = 1000000


cdef class PatrolScan:
    def __init__(self, ctx, spec):
        """``spec``: (interval_ns, ahead_ppm)."""
        cdef cnp.ndarray a
        L = ctx.layout
        self.ftl, self.sched = ctx.ftl, ctx.sched
        self.N, self.k, self.S, self.n_sb = L.pages_per_block, L.k, L.sb_per_lane, L.n_superblocks
        self.interval_ns, self.ahead_ppm = spec
        self.next_scan = self.interval_ns
        self.cursor = 0
        self._keep = keep = {"comp_die": ctx.comp_die, "block_reads": ctx.block_reads,
                             "rr_threshold": ctx.rr_threshold}
        a = ctx.comp_die; self.comp_die = <int32_t*>a.data
        a = ctx.block_reads; self.block_reads = <int32_t*>a.data
        a = ctx.rr_threshold; self.rr_threshold = <int32_t*>a.data
        a = owned_array(keep, "queued", self.n_sb, np.uint8); self.queued = <uint8_t*>a.data
        self.reset_counters()

    cdef int request_done(self, int64_t done) except -1 nogil:
        cdef int32_t n = 0
        while done >= self.next_scan and n < self.n_sb:
            self.visit(self.cursor, done)
            self.cursor = (self.cursor + 1) % self.n_sb
            self.next_scan += self.interval_ns
            n += 1
        if done >= self.next_scan:
            self.next_scan = done + self.interval_ns
        return 0

    cdef int visit(self, int32_t sb, int64_t t) except -1 nogil:
        cdef int32_t c, off, lpn, die
        cdef int64_t b, ppn
        cdef bint due = False
        self.ctr[0] += 1
        if self.ftl.sb_state[sb] != S_CLOSED or self.queued[sb]:
            return 0
        for c in range(self.k):
            b = <int64_t>sb * self.k + c
            if <int64_t>self.block_reads[b] * PPM_C >= self.ahead_ppm * self.rr_threshold[b]:
                due = True
        if not due:
            return 0
        self.queued[sb] = 1
        self.ctr[1] += 1
        for off in range(self.N):
            for c in range(self.k):
                ppn = (<int64_t>sb * self.k + c) * self.N + off
                lpn = self.ftl.p2l[ppn]
                if lpn >= 0:
                    die = self.comp_die[(sb // self.S) * self.k + c]
                    self.sched.push_idle(die, lpn, <int32_t>ppn, c, t)
                    self.ctr[2] += 1
        return 0

    cdef void block_erased(self, int64_t blk) noexcept nogil:
        self.queued[blk // self.k] = 0

    def array(self, name):
        """``queued``, for tests."""
        return self._keep[name]

    def counter_values(self):
        return [self.ctr[i] for i in range(3)]

    def reset_counters(self):
        cdef int i
        for i in range(3):
            self.ctr[i] = 0
