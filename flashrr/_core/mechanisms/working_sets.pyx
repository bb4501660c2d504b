# cython: language_level=3
"""PhasedRR working sets (compiled; twin ``working_sets_py.py``).

A block becomes a candidate when its read count ``c`` (after this flash read)
reaches the soft threshold ``S = thr - delta * sum(mult)``, where ``thr`` is the
block's current RR threshold.  The windows (in block reads) are then
``[S, t1)`` WS I, ``[t1, t2)`` WS II, ``[t2, t3)`` WS III = Phase I,
``[t3, t4)`` Phase II, ``[t4, thr)`` Phase III, with ``t_i`` the running sums
of ``delta * mult``.  Per read of page offset ``o`` (Algorithm 1):

* WS I / II / III: set the page's bit; in Phase I a page in all three sets
  (hottest) is queued for an idle-time move;
* first read of Phase II: classify (accuracy diagnostics) and force the hottest
  pages still in the block; a visited page in exactly two sets is queued;
* first read of Phase III: force the hotter pages still in the block;
  afterwards a visited page in exactly one set (tepid) is queued;
* ``c >= thr``: nothing here (the engine's RR moves what is left).

A page is queued at most once per block cycle.  Forced moves are only recorded
(``due_*``); the reclaim layer books them after the request's read counts are
updated.  Slots come from a pool of ``max_slots``; a block that finds the pool
full is not tracked until it is erased (counter ``ws_pool_full``).
"""
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t
from libc.string cimport memset

import functools

import numpy as np
cimport numpy as cnp

from ..device.common cimport *

from ..buffers import owned_array

cnp.import_array()


cdef inline int32_t _sets(uint8_t b) noexcept nogil:
    """How many of the three working sets hold the page."""
    return (b & 1) + ((b >> 1) & 1) + ((b >> 2) & 1)


cdef class WorkingSets:
    def __init__(self, ctx, spec):
        """``ctx``: the engine's parts (assembly.py); ``spec``: (delta, mult[5], max_slots)
        from the policy."""
        layout, ftl, sched, counters, comp_die = ctx.layout, ctx.ftl, ctx.sched, ctx.counters, ctx.comp_die
        self.rc = ctx.rc
        cdef cnp.ndarray a
        cdef int32_t i
        L = layout
        self.ftl = ftl
        self.sched = sched
        self.N = L.pages_per_block
        self.k = L.k
        self.S = L.sb_per_lane
        self._keep = keep = {"counters": counters, "comp_die": comp_die}
        a = counters; self.cnt = <int64_t*>a.data
        a = comp_die; self.comp_die = <int32_t*>a.data
        delta, mult, max_slots = spec
        self.delta = delta
        for i in range(5):
            self.mult[i] = mult[i]
        self.span = delta * sum(mult)
        self.max_slots = min(max_slots, L.n_blocks)
        self.bytes_per_block = 3 * ((self.N + 7) // 8)
        n_pages = L.n_pages
        blocks = L.n_blocks

        arr = functools.partial(owned_array, keep)

        a = arr("slot_of", blocks, np.int32, -1); self.slot_of = <int32_t*>a.data
        a = arr("free_slots", self.max_slots, np.int32)
        a[:self.max_slots] = np.arange(self.max_slots - 1, -1, -1, dtype=np.int32)
        self.free_slots = <int32_t*>a.data
        self.n_free = self.max_slots
        self.in_use = 0
        a = arr("bits", self.max_slots * self.N, np.uint8); self.bits = <uint8_t*>a.data
        a = arr("stage", self.max_slots, np.int8); self.stage = <int8_t*>a.data
        a = arr("page_reads", n_pages, np.int32); self.page_reads = <int32_t*>a.data
        a = arr("due_blk", 2 * self.max_slots + 2, np.int32); self.due_blk = <int32_t*>a.data
        a = arr("due_want", 2 * self.max_slots + 2, np.int8); self.due_want = <int8_t*>a.data
        self.n_due = 0
        a = arr("f_lpn", self.N, np.int32); self.f_lpn = <int32_t*>a.data
        a = arr("f_src", self.N, np.int32); self.f_src = <int32_t*>a.data
        self.reset_counters()

    def counter_values(self):
        return counts_list(self.ctr, WS_N_COUNTERS)

    def reset_counters(self):
        memset(self.ctr, 0, sizeof(self.ctr))

    def array(self, name):
        """A NumPy view of one of this mechanism's arrays (tests read bits, slot_of, page_reads)."""
        return self._keep[name]

    cdef int page_read(self, int64_t ppn, int64_t blk, int32_t c, int32_t thr, int64_t t) except -1 nogil:
        cdef int32_t N = self.N, d = self.delta, slot, o, s0, t1, t2, t3, t4
        cdef uint8_t* bp
        self.page_reads[ppn] += 1
        s0 = thr - self.span
        if c < s0 or c >= thr:
            return 0
        slot = self.slot_of[blk]
        if slot == -2:
            return 0
        if slot < 0:
            if self.n_free == 0:
                self.slot_of[blk] = -2
                self.ctr[WS_POOL_FULL] += 1
                return 0
            self.n_free -= 1
            slot = self.free_slots[self.n_free]
            self.slot_of[blk] = slot
            self.stage[slot] = 0
            self.in_use += 1
            if self.in_use * self.bytes_per_block > self.ctr[WS_PEAK_BYTES]:
                self.ctr[WS_PEAK_BYTES] = self.in_use * self.bytes_per_block
        o = <int32_t>(ppn - blk * N)
        bp = self.bits + <int64_t>slot * N
        t1 = s0 + self.mult[0] * d
        t2 = t1 + self.mult[1] * d
        t3 = t2 + self.mult[2] * d
        t4 = t3 + self.mult[3] * d
        if c < t1:
            bp[o] |= 1
        elif c < t2:
            bp[o] |= 2
        elif c < t3:
            bp[o] |= 4
            if (bp[o] & 15) == 7:  # identified as hottest now: judge it, then queue it
                self.classify(slot, blk, o)
                self.queue(ppn, blk, bp, o, t)
        else:
            if self.stage[slot] == 0:  # first read of Phase II: classify, force the hottest left
                self.stage[slot] = 1
                self.classify(slot, blk, -1)
                self.due_blk[self.n_due] = <int32_t>blk
                self.due_want[self.n_due] = 3
                self.n_due += 1
            if c < t4:
                if _sets(bp[o]) == 2:
                    self.queue(ppn, blk, bp, o, t)
            elif self.stage[slot] == 1:  # first read of Phase III: force the hotter left
                self.stage[slot] = 2
                self.due_blk[self.n_due] = <int32_t>blk
                self.due_want[self.n_due] = 2
                self.n_due += 1
            elif _sets(bp[o]) == 1:
                self.queue(ppn, blk, bp, o, t)
        return 0

    cdef int queue(self, int64_t ppn, int64_t blk, uint8_t* bp, int32_t o, int64_t t) except -1 nogil:
        cdef int32_t lpn = self.ftl.p2l[ppn]
        cdef int64_t sbq
        if bp[o] & 8 or lpn < 0:
            return 0
        bp[o] |= 8
        sbq = blk // self.k
        self.sched.push_idle(self.comp_die[(sbq // self.S) * self.k + (blk - sbq * self.k)], lpn, <int32_t>ppn,
                             <int32_t>(blk - sbq * self.k), t)
        return 0

    cdef void classify(self, int32_t slot, int64_t blk, int32_t only) noexcept nogil:
        """Accuracy diagnostics: a page is truly hot when its reads exceed the mean over
        the block's population (valid pages, plus queued hottest pages whose count froze
        when they moved).  ``only >= 0``: judge that hottest page at its identification;
        ``only = -1``: the scan at the end of WS III, judging the hotter and tepid pages."""
        cdef int32_t N = self.N, o, n = 0, s
        cdef int64_t total = 0, ppn
        cdef uint8_t* bp = self.bits + <int64_t>slot * N
        for o in range(N):
            ppn = blk * N + o
            if self.ftl.p2l[ppn] >= 0 or (bp[o] & 15) == 15:
                n += 1
                total += self.page_reads[ppn]
        if only < 0:
            self.ctr[WS_SCANS] += 1
        for o in range(N):
            ppn = blk * N + o
            if not (self.ftl.p2l[ppn] >= 0 or (bp[o] & 15) == 15):
                continue
            s = _sets(bp[o])
            if s == 0 or (only >= 0 and o != only) or (only < 0 and s == 3):
                continue
            self.ctr[WS_HTT + 2 * (3 - s)] += 1
            if <int64_t>self.page_reads[ppn] * n > total:
                self.ctr[WS_HTT_HOT + 2 * (3 - s)] += 1

    cdef int reads_done(self, int64_t done) except -1 nogil:
        """Book at ``done`` the forced moves recorded during this request: every page of
        a due class still in its block, keeping its component."""
        cdef int32_t j, q, n, lpn, src
        for j in range(self.n_due):
            n = self.collect(j)
            for q in range(n):
                lpn = self.f_lpn[q]
                src = self.f_src[q]
                if self.ftl.lmap[2 * lpn] != src:  # moved by a GC this loop started
                    continue
                self.cnt[C_RR_FORCED] += 1
                self.rc.move_page(self.rc.die_of(src), lpn, src, (src // self.N) % self.k, done, CAUSE_RR)
        self.n_due = 0
        return 0

    cdef int32_t collect(self, int32_t j) noexcept nogil:
        cdef int32_t N = self.N, o, n = 0, lpn
        cdef int64_t blk = self.due_blk[j], ppn
        cdef int32_t slot = self.slot_of[blk]
        cdef uint8_t* bp
        if slot < 0:  # erased meanwhile
            return 0
        bp = self.bits + <int64_t>slot * N
        for o in range(N):
            ppn = blk * N + o
            lpn = self.ftl.p2l[ppn]
            if lpn >= 0 and _sets(bp[o]) == self.due_want[j]:
                self.f_lpn[n] = lpn
                self.f_src[n] = <int32_t>ppn
                n += 1
        return n

    cdef void block_erased(self, int64_t blk) noexcept nogil:
        cdef int32_t slot
        slot = self.slot_of[blk]
        if slot >= 0:
            memset(self.bits + <int64_t>slot * self.N, 0, self.N)
            self.free_slots[self.n_free] = slot
            self.n_free += 1
            self.in_use -= 1
        self.slot_of[blk] = -1
        memset(self.page_reads + blk * self.N, 0, self.N * sizeof(int32_t))
