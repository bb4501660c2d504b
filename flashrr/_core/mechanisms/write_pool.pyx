# cython: language_level=3
"""Cocktail's write pool (compiled; twin ``write_pool_py.py``).

Block-level only (superblock size k = 1, so a lane is one plane).  Per lane:
the user write frontier (the FTL's ``uf_sb``/``uf_wp``), an internal write
frontier ``wfr`` (RR pages, and GC pages when ``gc_internal``) and the pool, an
ordered list of partly written blocks flagged WR (prefilled with user pages) or
RR (prefilled with internal pages), with capacity ``cap`` in
``[cap_min, cap_max]``.  With ``n = n_fixed`` or, if 0, ``n = cap`` (read at
each check), a user frontier is "full enough" at ``wp * n >= N * (n - 1)``
pages and an internal frontier at ``wp * n >= N``.

User page (Algorithm 1): an RR entry with the least Eq. 2 factor takes it;
else the user frontier does, and once full enough it enters the pool if there
is room, or grows the pool by one while ``cap < cap_max``, or (pool at
``cap_max``) swaps with the entry of the largest factor when that factor is
strictly larger than the frontier's.  A full frontier closes.
Internal page (Algorithm 2): a WR entry with the least factor takes it; else,
if the pool has room, the internal frontier (which enters the pool flagged RR
once full enough, or closes when full); else the pool entry of least factor
(any flag).  Every entry leaves the pool the moment it is full.  After every
internal page (``reset_per_page``) or every migration, a pool holding fewer
than ``cap_min`` entries resets ``cap`` to ``cap_min``.

Eq. 2: ``factor = r * RC/TH + (1 - r) * Pv/N`` with RC the block's reads since
erase, TH its RR threshold, Pv its valid pages, ``r = ratio_ppm / 1e6``;
compared exactly in integers when the thresholds are equal.  Ties go to the
entry earliest in the pool.  docs/cocktail.md lists the readings.
"""
from libc.stdint cimport int8_t, int32_t, int64_t
from libc.string cimport memset

import functools

import numpy as np
cimport numpy as cnp

from ..device.common cimport *

from ..buffers import owned_array, restore_arrays, saved_arrays
from ..layout import SB_POOL as _SB_POOL

cnp.import_array()

assert _SB_POOL == S_POOL

_STATE_ARRAYS = ("pool_blk", "pool_idx", "pool_flag", "pool_len", "pool_n_wr", "pool_cap", "wfr_blk", "wfr_idx")


cdef class WritePool:
    def __init__(self, ctx, spec):
        """``spec`` = ``(cap_min, cap_max, ratio_ppm, n_fixed, gc_internal, reset_per_page,
        key_reads)`` (blocks, blocks, ppm, 0 = dynamic)."""
        cdef Ftl ftl = ctx.ftl
        layout = ctx.layout
        block_reads, rr_threshold = ctx.block_reads, ctx.rr_threshold
        cdef cnp.ndarray a
        L = layout
        self.ftl = ftl
        self.N = L.pages_per_block
        self.n_lanes = L.n_lanes
        self.S = L.sb_per_lane
        self._keep = keep = {"block_reads": block_reads, "rr_threshold": rr_threshold}
        a = block_reads; self.block_reads = <int32_t*>a.data
        a = rr_threshold; self.rr_threshold = <int32_t*>a.data
        self.reset_counters()
        cap_min, cap_max, ratio_ppm, n_fixed, gc_int, per_page, key_reads = spec
        self.cap_min, self.cap_max, self.ratio_ppm, self.n_fixed = cap_min, cap_max, ratio_ppm, n_fixed
        self.gc_internal, self.reset_per_page, self.key_reads = gc_int, per_page, key_reads
        n = self.n_lanes
        arr = functools.partial(owned_array, keep)
        a = arr("pool_blk", n * cap_max, np.int32, -1); self.blk = <int32_t*>a.data
        a = arr("pool_idx", n * cap_max, np.int32); self.idx = <int32_t*>a.data
        a = arr("pool_flag", n * cap_max, np.int8); self.flag = <int8_t*>a.data
        a = arr("pool_len", n, np.int32); self.plen = <int32_t*>a.data
        a = arr("pool_n_wr", n, np.int32); self.n_wr = <int32_t*>a.data
        a = arr("pool_cap", n, np.int32, cap_min); self.cap = <int32_t*>a.data
        a = arr("wfr_blk", n, np.int32, -1); self.wfr_blk = <int32_t*>a.data
        a = arr("wfr_idx", n, np.int32); self.wfr_idx = <int32_t*>a.data

    def array(self, name):
        """A NumPy view of the pool state (pool_blk, pool_idx, pool_flag, pool_len, pool_cap, wfr_blk, ...)."""
        return self._keep[name]

    def state(self):
        """The pools and internal frontiers, for a snapshot (the GC of preconditioning fills them)."""
        return saved_arrays(self._keep, _STATE_ARRAYS)

    def restore(self, state):
        restore_arrays(self._keep, state, _STATE_ARRAYS, "write_pool")

    def counter_values(self):
        return counts_list(self.ctr, WP_N_COUNTERS)

    def reset_counters(self):
        memset(self.ctr, 0, sizeof(self.ctr))

    # ------------------------------------------------------------------ pool entries
    cdef bint above(self, int32_t a, int32_t b) noexcept nogil:
        cdef int64_t ta, tb, na, nb
        if self.key_reads:
            return self.block_reads[a] > self.block_reads[b]
        ta = self.rr_threshold[a]
        tb = self.rr_threshold[b]
        na = self.ratio_ppm * self.block_reads[a] * self.N + (1000000 - self.ratio_ppm) * self.ftl.sb_valid[a] * ta
        nb = self.ratio_ppm * self.block_reads[b] * self.N + (1000000 - self.ratio_ppm) * self.ftl.sb_valid[b] * tb
        if ta == tb:
            return na > nb
        return <double>na * <double>tb > <double>nb * <double>ta

    cdef int32_t pick(self, int32_t lane, int32_t want, bint largest) noexcept nogil:
        """Index of the entry flagged ``want`` (-1: any) with the least (or largest) factor, -1 if none."""
        cdef int32_t* b = self.blk + lane * self.cap_max
        cdef int8_t* f = self.flag + lane * self.cap_max
        cdef int32_t j, best = -1
        for j in range(self.plen[lane]):
            if want >= 0 and f[j] != want:
                continue
            if best < 0 or (self.above(b[j], b[best]) if largest else self.above(b[best], b[j])):
                best = j
        return best

    cdef void push(self, int32_t lane, int32_t b, int32_t i, int8_t f) noexcept nogil:
        cdef int32_t j = lane * self.cap_max + self.plen[lane]
        self.blk[j] = b
        self.idx[j] = i
        self.flag[j] = f
        self.plen[lane] += 1
        if f == F_WR:
            self.n_wr[lane] += 1
        self.ftl.sb_state[b] = S_POOL

    cdef void remove(self, int32_t lane, int32_t j) noexcept nogil:
        cdef int32_t o = lane * self.cap_max, i
        if self.flag[o + j] == F_WR:
            self.n_wr[lane] -= 1
        for i in range(j + 1, self.plen[lane]):
            self.blk[o + i - 1] = self.blk[o + i]
            self.idx[o + i - 1] = self.idx[o + i]
            self.flag[o + i - 1] = self.flag[o + i]
        self.plen[lane] -= 1

    cdef int64_t write_entry(self, int32_t lane, int32_t j) noexcept nogil:
        """Program the next page of entry ``j``; a full entry closes and leaves the pool."""
        cdef int32_t o = lane * self.cap_max + j
        cdef int32_t b = self.blk[o]
        cdef int64_t ppn = <int64_t>b * self.N + self.idx[o]
        self.idx[o] += 1
        if self.idx[o] == self.N:
            self.ftl.sb_state[b] = S_CLOSED
            self.remove(lane, j)
        return ppn

    cdef int32_t share(self, int32_t lane) noexcept nogil:
        return self.n_fixed if self.n_fixed else self.cap[lane]

    # ------------------------------------------------------------------ Algorithm 1
    cdef void victim_chosen(self, int32_t victim) noexcept nogil:
        self.on_victim(victim)

    cdef bint places_migration(self, bint is_rr) noexcept nogil:
        """Algorithm 2 takes RR pages, and GC pages when gc_internal."""
        return is_rr or self.gc_internal

    cdef int64_t migration_page(self, int32_t lane, int32_t q, int32_t lpn, int32_t dest) except -2 nogil:
        return self.internal_slot(lane)

    cdef void migration_done(self, int32_t lane) noexcept nogil:
        if not self.reset_per_page:
            self.after_migration(lane)

    cdef int64_t user_page(self, int32_t lpn) except -1 nogil:
        """The user-page placer: Algorithm 1."""
        return self.user_slot()

    cdef int64_t user_slot(self) except -1 nogil:

        cdef int32_t N = self.N
        cdef int32_t lane = self.ftl.user_lane, j, sb, wp, n, t
        cdef int64_t ppn
        self.ftl.user_lane = (lane + 1) % self.n_lanes  # k = 1: every page completes a superpage
        if self.plen[lane] > self.n_wr[lane]:  # an entry prefilled with internal data
            self.ctr[WP_USER_PAGES] += 1
            return self.write_entry(lane, self.pick(lane, F_RR, False))
        if self.ftl.uf_sb[lane] < 0:
            sb = self.ftl.alloc(lane, False)
            self.ftl.sb_state[sb] = S_OPEN_USER
            self.ftl.uf_sb[lane] = sb
            self.ftl.uf_wp[lane] = 0
            self.ftl.kick = lane
        sb = self.ftl.uf_sb[lane]
        wp = self.ftl.uf_wp[lane]
        ppn = <int64_t>sb * N + wp
        wp += 1
        self.ftl.uf_wp[lane] = wp
        if wp == N:
            self.ftl.sb_state[sb] = S_CLOSED
            self.ftl.uf_sb[lane] = -1
            return ppn
        n = self.share(lane)
        if <int64_t>wp * n < <int64_t>N * (n - 1):
            return ppn
        if self.plen[lane] >= self.cap[lane] and self.cap[lane] < self.cap_max:
            self.cap[lane] += 1
            self.ctr[WP_CAP_INC] += 1
        if self.plen[lane] < self.cap[lane]:
            self.push(lane, sb, wp, F_WR)
            self.ftl.uf_sb[lane] = -1
            self.ctr[WP_PUSH_USER] += 1
            return ppn
        j = self.pick(lane, -1, True)  # full pool at cap_max: all entries are WR here
        if j >= 0 and self.above(self.blk[lane * self.cap_max + j], sb):
            t = self.blk[lane * self.cap_max + j]
            self.ftl.uf_wp[lane] = self.idx[lane * self.cap_max + j]
            self.remove(lane, j)
            self.push(lane, sb, wp, F_WR)
            self.ftl.uf_sb[lane] = t
            self.ftl.sb_state[t] = S_OPEN_USER
            self.ctr[WP_EXCH] += 1
        return ppn

    # ------------------------------------------------------------------ Algorithm 2
    cdef int64_t internal_slot(self, int32_t lane) except -1 nogil:

        cdef int32_t N = self.N, sb, i, n
        cdef int64_t ppn
        if self.n_wr[lane] > 0:
            self.ctr[WP_RR_PAGES] += 1
            ppn = self.write_entry(lane, self.pick(lane, F_WR, False))
        elif self.plen[lane] < self.cap[lane]:
            if self.wfr_blk[lane] < 0:
                sb = self.ftl.alloc(lane, True)
                self.ftl.sb_state[sb] = S_OPEN_GC
                self.wfr_blk[lane] = sb
                self.wfr_idx[lane] = 0
            sb = self.wfr_blk[lane]
            i = self.wfr_idx[lane]
            ppn = <int64_t>sb * N + i
            i += 1
            self.wfr_idx[lane] = i
            self.ctr[WP_WFR_PAGES] += 1
            if i == N:
                self.ftl.sb_state[sb] = S_CLOSED
                self.wfr_blk[lane] = -1
            else:
                n = self.share(lane)
                if <int64_t>i * n >= N:
                    self.push(lane, sb, i, F_RR)
                    self.wfr_blk[lane] = -1
                    self.ctr[WP_PUSH_RR] += 1
        else:
            self.ctr[WP_AGG_PAGES] += 1
            ppn = self.write_entry(lane, self.pick(lane, -1, False))
        if self.reset_per_page:
            self.after_migration(lane)
        return ppn

    cdef void after_migration(self, int32_t lane) noexcept nogil:
        if self.plen[lane] < self.cap_min and self.cap[lane] != self.cap_min:
            self.cap[lane] = self.cap_min
            self.ctr[WP_CAP_RESET] += 1

    cdef void on_victim(self, int32_t b) noexcept nogil:
        """RR victim ``b`` stops being a frontier or pool entry; its unwritten pages are lost."""
        cdef int32_t lane = b // self.S, o = lane * self.cap_max, j
        if self.wfr_blk[lane] == b:
            self.ctr[WP_WASTED] += self.N - self.wfr_idx[lane]
            self.wfr_blk[lane] = -1
        if self.ftl.uf_sb[lane] == b:
            self.ctr[WP_WASTED] += self.N - self.ftl.uf_wp[lane]
        for j in range(self.plen[lane]):
            if self.blk[o + j] == b:
                self.ctr[WP_WASTED] += self.N - self.idx[o + j]
                self.remove(lane, j)
                break
