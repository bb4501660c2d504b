# cython: language_level=3
"""RR destination streams for redFTL and IPR (compiled; twin ``streams_py.py``).

Block-level only (superblock size 1).  Stream 0 is the ordinary GC/RR frontier;
stream ``s >= 1`` keeps ``n_open[s]`` open blocks per lane, opens each with RR
threshold ``thr0 * mult[s]`` and closes it after ``cap_pages[s]`` pages (its
other pages stay unused).  While a lane has ``max_live[s]`` live blocks of the
stream, its pages go to stream 0 instead.  Page read counters (one per LPN,
the engine's page counters, read saturated at ``count_max``) restart at 0 when
the page is programmed, by the host or by a migration.

Per RR migration (GC migrations always use stream 0):

* redFTL (``MODE_REDFTL``): a victim from stream 0 sends its pages to stream 1
  (x2), a victim from stream 1 or 2 to stream 2 (x5).  Pages are programmed
  hottest first (saturated count, ties in source order); each goes to the open
  block of the stream with the least ``block reads + counts placed in it during
  this RR`` (a block that fills is replaced by a fresh one with load 0).
* IPR (``MODE_IPR``): a page whose count exceeds the mean count of the victim's
  valid pages goes to stream 1; the others to stream 0; source order.
* Reallocation (``MODE_BUDGET``): stream 1 has ``n_open[1]`` open blocks per
  lane; the read budget of an open block is ``rr_threshold - block_reads - the
  counts of the pages placed in it since it opened`` (a block yet to open has
  ``thr0 * mult[1]``).  Pages are placed hottest first (ties in source order);
  a page with a count goes to the block with the largest budget left (lowest
  slot on a tie), which loses the count; a page with count 0 goes to the lane's
  next slot round-robin.  Early (idle or forced) moves place their one page by
  the same rule (``place_one``).
"""
from libc.stdint cimport int8_t, int32_t, int64_t
from libc.stdlib cimport qsort
from libc.string cimport memset

import functools

import numpy as np
cimport numpy as cnp

from ..device.common cimport *

from ..buffers import owned_array, restore_arrays, saved_arrays

cnp.import_array()

_STATE_ARRAYS = ("blk_stream", "open_blk", "open_wp", "live", "given", "cold_next")


cdef class Streams:
    def __init__(self, ctx, spec):
        """``spec`` = ``(mode, count_max, ((mult, cap_pages, n_open, max_live), ...))`` for
        streams 1.. (max_live -1 = no cap)."""
        cdef Ftl ftl = ctx.ftl
        layout, page_counts = ctx.layout, ctx.page_counts
        block_reads, rr_threshold = ctx.block_reads, ctx.rr_threshold
        cdef cnp.ndarray a
        cdef int32_t s
        L = layout
        self.ftl = ftl
        self.N = L.pages_per_block
        self.n_lanes = L.n_lanes
        self.S = L.sb_per_lane
        self.thr0 = L.rr_threshold_reads
        self._keep = keep = {"block_reads": block_reads, "rr_threshold": rr_threshold, "counts": page_counts}
        a = block_reads; self.block_reads = <int32_t*>a.data
        a = rr_threshold; self.rr_threshold = <int32_t*>a.data
        self.reset_counters()
        a = page_counts; self.counts = <int32_t*>a.data
        mode, count_max, extra = spec
        self.mode, self.count_max = mode, count_max
        self.n_streams = 1 + len(extra)
        self.mult[0], self.cap_pages[0], self.n_open[0], self.max_live[0] = 1, self.N, 1, -1
        for s, (m, c, o, x) in enumerate(extra, start=1):
            self.mult[s], self.cap_pages[s], self.n_open[s], self.max_live[s] = m, c, o, x
        n = L.n_blocks
        arr = functools.partial(owned_array, keep)
        a = arr("blk_stream", n, np.int8); self.blk_stream = <int8_t*>a.data
        m = self.n_lanes * MAX_STREAMS
        a = arr("open_blk", m * MAX_OPEN, np.int32, -1); self.open_blk = <int32_t*>a.data
        a = arr("open_wp", m * MAX_OPEN, np.int32); self.open_wp = <int32_t*>a.data
        a = arr("live", m, np.int32); self.live = <int32_t*>a.data
        a = arr("given", m * MAX_OPEN, np.int64); self.given = <int64_t*>a.data
        a = arr("cold_next", self.n_lanes, np.int32); self.cold_next = <int32_t*>a.data
        a = arr("code", self.N, np.int32, -1); self.code = <int32_t*>a.data
        a = arr("perm", self.N, np.int32); self.perm = <int32_t*>a.data
        a = arr("key", 2 * self.N, np.int64); self.key = <int64_t*>a.data

    def array(self, name):
        """A NumPy view: blk_stream, open_blk / open_wp / given ([lane, stream, slot] flattened), live
        ([lane, stream]), cold_next ([lane])."""
        return self._keep[name]

    def state(self):
        """Each block's stream and the streams' open blocks, for a snapshot (the GC of
        preconditioning opens and erases stream blocks)."""
        return saved_arrays(self._keep, _STATE_ARRAYS)

    def restore(self, state):
        restore_arrays(self._keep, state, _STATE_ARRAYS, "rr_streams")

    def counter_values(self):
        return counts_list(self.ctr, ST_N_COUNTERS)

    def reset_counters(self):
        memset(self.ctr, 0, sizeof(self.ctr))

    cdef int32_t count(self, int32_t lpn) noexcept nogil:
        cdef int32_t c = self.counts[lpn]
        return c if c < self.count_max else self.count_max

    cdef int plan(self, int32_t victim, bint is_rr, const int32_t* lpns, int32_t n) except -1 nogil:
        """Fill code[0:n] (destination slot per page, source order) and perm[0:n] (program order)."""
        cdef int32_t q, s, r, best, lane = victim // self.S, base, c
        cdef int64_t total = 0
        cdef int64_t load[MAX_OPEN]
        cdef int32_t room[MAX_OPEN]
        cdef KeyIdx* ki = <KeyIdx*>self.key
        s = self.blk_stream[victim]
        if s:  # a victim still open in its stream stops being a frontier (its free pages are lost)
            base = (lane * MAX_STREAMS + s) * MAX_OPEN
            for r in range(self.n_open[s]):
                if self.open_blk[base + r] == victim:
                    self.open_blk[base + r] = -1
        for q in range(n):
            self.code[q] = -1
            self.perm[q] = q
        if not is_rr or n == 0:
            return 0
        if self.mode == MODE_IPR:
            for q in range(n):
                total += self.count(lpns[q])
            for q in range(n):
                if <int64_t>self.count(lpns[q]) * n > total:
                    self.code[q] = 1 * MAX_OPEN
            return 0
        for q in range(n):
            ki[q].key = -<int64_t>self.count(lpns[q])
            ki[q].idx = q
        qsort(ki, n, sizeof(KeyIdx), cmp_keyidx)
        if self.mode == MODE_BUDGET:
            self.budgets(lane, load, room)
            for q in range(n):
                self.perm[q] = <int32_t>ki[q].idx
                c = self.count(lpns[self.perm[q]])
                best = self.pick(lane, c, load)
                self.code[self.perm[q]] = 1 * MAX_OPEN + best
                load[best] -= c
                room[best] -= 1
                if room[best] == 0:  # the block fills; a fresh one takes the slot
                    load[best] = self.thr0 * self.mult[1]
                    room[best] = self.cap_pages[1]
            return 0
        # redFTL: one level up, hottest first, least-loaded open block
        s = 1 if self.blk_stream[victim] == 0 else 2
        base = (lane * MAX_STREAMS + s) * MAX_OPEN
        for r in range(self.n_open[s]):
            if self.open_blk[base + r] >= 0:
                load[r] = self.block_reads[self.open_blk[base + r]]
                room[r] = self.cap_pages[s] - self.open_wp[base + r]
            else:
                load[r] = 0
                room[r] = self.cap_pages[s]
        for q in range(n):
            self.perm[q] = <int32_t>ki[q].idx
            best = 0
            for r in range(1, self.n_open[s]):
                if load[r] < load[best]:
                    best = r
            c = self.count(lpns[self.perm[q]])
            self.code[self.perm[q]] = s * MAX_OPEN + best
            load[best] += c
            room[best] -= 1
            if room[best] == 0:  # the block fills; a fresh one takes the slot
                load[best] = 0
                room[best] = self.cap_pages[s]
        return 0

    cdef void budgets(self, int32_t lane, int64_t* budget, int32_t* room) noexcept nogil:
        """Budget mode: the read budget left (reads) and the free pages of each open slot of stream 1."""
        cdef int32_t r, b, j = (lane * MAX_STREAMS + 1) * MAX_OPEN
        for r in range(self.n_open[1]):
            b = self.open_blk[j + r]
            if b >= 0:
                budget[r] = <int64_t>self.rr_threshold[b] - self.block_reads[b] - self.given[j + r]
                room[r] = self.cap_pages[1] - self.open_wp[j + r]
            else:
                budget[r] = self.thr0 * self.mult[1]
                room[r] = self.cap_pages[1]

    cdef int32_t pick(self, int32_t lane, int64_t w, const int64_t* budget) noexcept nogil:
        """Budget mode: the slot a page of count ``w`` goes to (cold pages round-robin)."""
        cdef int32_t r, best = 0
        if w <= 0:
            best = self.cold_next[lane]
            self.cold_next[lane] = (best + 1) % self.n_open[1]
            return best
        for r in range(1, self.n_open[1]):
            if budget[r] > budget[best]:
                best = r
        return best

    cdef int64_t place_one(self, int32_t lane, int32_t lpn, int32_t src_blk) except -1 nogil:
        """Budget mode: the new page of ``lpn`` moved early out of block ``src_blk`` (a source
        still open in the stream is closed first: it is about to be reclaimed)."""
        cdef int64_t budget[MAX_OPEN]
        cdef int32_t room[MAX_OPEN]
        cdef int32_t r, j = (lane * MAX_STREAMS + 1) * MAX_OPEN
        for r in range(self.n_open[1]):
            if self.open_blk[j + r] == src_blk:
                self.ftl.sb_state[src_blk] = S_CLOSED
                self.open_blk[j + r] = -1
        self.budgets(lane, budget, room)
        return self.slot_ppn(lane, MAX_OPEN + self.pick(lane, self.count(lpn), budget), lpn)

    cdef int64_t slot_ppn(self, int32_t lane, int32_t code, int32_t lpn) except -1 nogil:
        """The next page of slot ``code`` (stream * MAX_OPEN + slot) of ``lane`` for ``lpn``; opens
        a block there if needed, or falls back to stream 0 when the stream is at its live cap."""
        cdef int32_t s = code // MAX_OPEN
        cdef int32_t j = (lane * MAX_STREAMS + s) * MAX_OPEN + code % MAX_OPEN
        cdef int32_t b, wp
        cdef int64_t ppn
        if self.open_blk[j] < 0:
            if self.max_live[s] >= 0 and self.live[lane * MAX_STREAMS + s] >= self.max_live[s]:
                self.ctr[ST_FALLBACK] += 1
                return self.ftl.gc_slot(lane, 0)
            b = self.ftl.alloc(lane, True)
            self.ftl.sb_state[b] = S_OPEN_GC
            self.rr_threshold[b] = <int32_t>(self.thr0 * self.mult[s])
            self.blk_stream[b] = <int8_t>s
            self.live[lane * MAX_STREAMS + s] += 1
            self.open_blk[j] = b
            self.open_wp[j] = 0
            self.given[j] = 0
            self.ctr[ST_BLOCKS] += 1
        b = self.open_blk[j]
        wp = self.open_wp[j]
        ppn = <int64_t>b * self.N + wp
        wp += 1
        self.open_wp[j] = wp
        if self.mode == MODE_BUDGET:
            self.given[j] += self.count(lpn)
        self.ctr[ST_PAGES] += 1
        if wp == self.cap_pages[s]:
            self.ftl.sb_state[b] = S_CLOSED
            self.open_blk[j] = -1
        return ppn

    cdef void block_erased(self, int64_t blk) noexcept nogil:
        cdef int32_t s = self.blk_stream[blk]
        if s:
            self.live[(blk // self.S) * MAX_STREAMS + s] -= 1
            self.blk_stream[blk] = 0

    cdef bint places_migration(self, bint is_rr) noexcept nogil:
        return True

    cdef int plan_migration(self, int32_t victim, bint is_rr, const int32_t* lpns, int32_t n) except -1 nogil:
        return self.plan(victim, is_rr, lpns, n)

    cdef int32_t migration_order(self, int32_t q) noexcept nogil:
        return self.perm[q]

    cdef int64_t migration_page(self, int32_t lane, int32_t q, int32_t lpn, int32_t dest) except -2 nogil:
        """Page q to its stream's block; -1 (stream 0): the GC/RR frontier."""
        if self.code[q] >= 0:
            return self.slot_ppn(lane, self.code[q], lpn)
        return -1

    cdef void migration_moved(self, const int32_t* lpns, int32_t n) noexcept nogil:
        self.moved(lpns, n)

    cdef int64_t move_page_slot(self, int32_t lane, int32_t lpn, int32_t src_blk) except -2 nogil:
        """Reallocation's matching (MODE_BUDGET) places single moves too."""
        cdef int64_t ppn
        if self.mode != MODE_BUDGET:
            return -1
        ppn = self.place_one(lane, lpn, src_blk)
        self.moved(&lpn, 1)
        return ppn

    cdef int64_t user_page(self, int32_t lpn) except -1 nogil:
        """The user-page placer: a host write restarts the page's read count."""
        self.moved(&lpn, 1)
        return self.ftl.user_slot()

    cdef void moved(self, const int32_t* lpns, int32_t n) noexcept nogil:
        cdef int32_t q
        for q in range(n):
            self.counts[lpns[q]] = 0
