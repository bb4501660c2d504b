# cython: language_level=3
"""FTL layer of the compiled engine: mapping, allocation and frontiers.
Twin: ``ftl_py.py``; docs/model.md section 2 gives the rules."""
from libc.stdint cimport int8_t, int32_t, int64_t, uint64_t, INT64_MAX

import functools

import numpy as np
cimport numpy as cnp

from .common cimport *
from ..invariants import EngineError

from ..buffers import owned_array, restore_arrays, saved_arrays

cnp.import_array()

# gc.aligned_moves: how many unplaced victim rows past a misfit Ftl.gc_plan looks at for one that fits
DEF ALIGN_LOOKAHEAD = 16

# the arrays a snapshot keeps (the cache slots in lmap are all -1 after preconditioning)
_STATE_ARRAYS = ("lmap", "p2l", "sb_valid", "sb_state", "free_ring", "free_head", "free_cnt", "uf_sb", "uf_wp",
                 "gc_open", "gc_len", "gc_pos", "gc_off", "gc_due", "unerased", "sb_tag", "version", "ppn_version")


cdef class Ftl:
    def __init__(self, layout, Scheduler sched, bint check):
        cdef cnp.ndarray a
        L = layout
        self.sched = sched
        self.k = L.k
        self.n_lanes = L.n_lanes
        self.S = L.sb_per_lane
        self.N = L.pages_per_block
        self.logical = L.logical_pages
        self.gc_thr = L.gc_threshold_sb
        self.n_pages = L.n_pages
        # divisions by k and N sit on the per-page path; shifts replace them for powers of two
        self.k_shift = self.k.bit_length() - 1 if self.k & (self.k - 1) == 0 else -1
        self.N_shift = self.N.bit_length() - 1 if self.N & (self.N - 1) == 0 else -1
        self.per_sb = self.N * self.k
        self.sb_shift = self.per_sb.bit_length() - 1 if self.per_sb & (self.per_sb - 1) == 0 else -1
        self.check = check
        self.kick = -1
        self.user_lane = 0
        self.pv = None
        self._keep = keep = {}

        arr = functools.partial(owned_array, keep)

        a = arr("lmap", 2 * self.logical, np.int32, -1); self.lmap = <int32_t*>a.data
        keep["l2p"] = a[0::2]
        keep["lpn_slot"] = a[1::2]
        a = arr("p2l", self.n_pages, np.int32, -1); self.p2l = <int32_t*>a.data
        a = arr("sb_valid", L.n_superblocks, np.int32); self.sb_valid = <int32_t*>a.data
        a = arr("sb_state", L.n_superblocks, np.int8); self.sb_state = <int8_t*>a.data
        a = arr("free_ring", self.n_lanes * self.S, np.int32)
        a[:] = np.arange(self.n_lanes * self.S, dtype=np.int32)
        self.free_ring = <int32_t*>a.data
        a = arr("free_head", self.n_lanes, np.int32); self.free_head = <int32_t*>a.data
        a = arr("free_cnt", self.n_lanes, np.int32, self.S); self.free_cnt = <int32_t*>a.data
        a = arr("uf_sb", self.n_lanes, np.int32, -1); self.uf_sb = <int32_t*>a.data
        a = arr("uf_wp", self.n_lanes, np.int32); self.uf_wp = <int32_t*>a.data
        a = arr("gc_open", self.n_lanes * GC_MAX, np.int32, -1); self.gc_open = <int32_t*>a.data
        a = arr("gc_len", self.n_lanes, np.int32); self.gc_len = <int32_t*>a.data
        a = arr("gc_pos", self.n_lanes * self.k, np.int32); self.gc_pos = <int32_t*>a.data
        a = arr("gc_off", self.n_lanes * self.k, np.int32); self.gc_off = <int32_t*>a.data
        a = arr("gc_due", self.n_lanes, np.int32); self.gc_due = <int32_t*>a.data
        a = arr("unerased", self.n_lanes, np.int32); self.unerased = <int32_t*>a.data
        a = arr("sb_tag", L.n_superblocks if L.gc_erased_pool else 0, np.int64); self.sb_tag = <int64_t*>a.data
        self.max_in_flight = L.gc_max_in_flight
        a = arr("version", self.logical if check else 0, np.int64); self.version = <int64_t*>a.data
        a = arr("ppn_version", self.n_pages if check else 0, np.int64); self.ppn_version = <int64_t*>a.data

    def array(self, name):
        """A NumPy view of one of the FTL's arrays (l2p, p2l, sb_valid, sb_state, ...)."""
        return self._keep[name]

    def state(self):
        """Mapping, free pools and frontiers, for a snapshot (flashrr/snapshot)."""
        out = saved_arrays(self._keep, _STATE_ARRAYS)
        out["user_lane"] = self.user_lane
        return out

    def restore(self, state):
        """Set the state :meth:`state` returned (same layout)."""
        restore_arrays(self._keep, state, _STATE_ARRAYS, "ftl")
        self.user_lane = int(state["user_lane"])
        self.kick = -1

    cdef int32_t alloc(self, int32_t lane, bint gc) except -1 nogil:
        """Pop the lane's oldest free superblock for the user (``gc`` False) or the GC/RR frontier."""
        cdef int32_t sb, job, i, s, n
        if self.free_cnt[lane] == 0:
            with gil:
                raise EngineError(
                    f"lane {lane} has no free superblock left: the device has too little spare space for this "
                    f"workload (raise gc.overprovisioning_ratio or shrink the footprint)")
        sb = self.free_ring[lane * self.S + self.free_head[lane]]
        self.free_head[lane] = (self.free_head[lane] + 1) % self.S
        self.free_cnt[lane] -= 1
        job = self.sched.sb_erase_job[sb]
        if job >= 0:  # no superblock is reused before its erase is booked
            self.sched.force(job)
        if self.sched.ev_on and self.sb_tag[sb]:  # taken before its erase ended: no longer in the pool
            self.sb_tag[sb] = 0
            self.unerased[lane] -= 1
        if self.pv is not None and self.pv.dynamic:
            # PV reassembly: the pool is this superblock and every free one whose erase is booked
            n = 0
            for i in range(self.free_cnt[lane]):
                s = self.free_ring[lane * self.S + (self.free_head[lane] + i) % self.S]
                if self.sched.sb_erase_job[s] < 0:
                    self.pv.cand[n] = s
                    n += 1
            self.pv.reassemble(sb, n, gc)
        if self.below_gc(lane):
            self.gc_due[lane] += 1
        return sb

    cdef void free_push(self, int32_t lane, int32_t sb) noexcept nogil:
        self.free_ring[lane * self.S + (self.free_head[lane] + self.free_cnt[lane]) % self.S] = sb
        self.free_cnt[lane] += 1

    cdef int64_t gc_slot_full(self, int32_t lane, int32_t c) except -1 nogil:
        cdef int32_t k = self.k, N = self.N
        cdef int32_t* pos = self.gc_pos + lane * k
        cdef int32_t* off = self.gc_off + lane * k
        cdef int32_t* opened = self.gc_open + lane * GC_MAX
        cdef int32_t i, mn
        cdef int64_t ppn
        while True:
            if pos[c] < self.gc_len[lane]:
                if off[c] < N:
                    ppn = (<int64_t>opened[pos[c]] * k + c) * N + off[c]
                    off[c] += 1
                    break
                pos[c] += 1
                off[c] = 0
            elif self.gc_len[lane] == GC_MAX:
                i = self.spill_column(lane)
                if i >= 0:  # c is full in every open superblock: the oldest one's emptiest column takes the page
                    ppn = (<int64_t>opened[0] * k + i) * N + off[i]
                    off[i] += 1
                    break
                self.gc_close_front(lane)  # every column of the oldest is written: it closes full
            else:
                self.open_gc(lane)
        while self.gc_len[lane] > 0:
            mn = pos[0]
            for i in range(1, k):
                if pos[i] < mn:
                    mn = pos[i]
            if mn <= 0:
                break
            self.gc_close_front(lane)
        return ppn

    cdef int gc_row(self, int32_t lane, int32_t* cols, int32_t j, bint fixed) noexcept nogil:
        """gc.aligned_moves, an RR: make room in the lane's GC/RR frontier row for one source
        row of ``j`` pages whose columns are ``cols[0..j)``, so that gc_slot() then writes them
        at one offset of one superblock.  The row is the lowest (superblock, offset) any column
        has not written; a column is free in it when it is there.  ``fixed`` (a policy placed
        the pages): the row must have every column of ``cols`` free; otherwise it needs ``j``
        free columns, and ``cols`` is rewritten: a page keeps its column when that is free,
        the others take the lowest free ones.  A row that falls short is skipped once in its
        free columns (a page each, left unwritten) when the next row would do; otherwise,
        and when a policy sends two pages of the row to one column, the pages go to their
        columns' own next pages.  A victim row so takes at most one new frontier row."""
        cdef int32_t k = self.k, c, i, n_free, n_near
        cdef int32_t* pos = self.gc_pos + lane * k
        cdef int32_t* off = self.gc_off + lane * k
        cdef int64_t keys[64]
        cdef int64_t row
        cdef uint64_t free_m, near_m, want = 0, bit
        for i in range(j):
            bit = (<uint64_t>1) << cols[i]
            if fixed and want & bit:                       # two pages bound for one column
                return 0
            want |= bit
        self.gc_keys(lane, keys)
        free_m = _lowest_row(keys, k, &row, &n_free)
        near_m = 0
        n_near = 0
        for c in range(k):
            if keys[c] <= row + 1:
                near_m |= (<uint64_t>1) << c
                n_near += 1
        if (fixed and want & ~free_m != 0) or (not fixed and n_free < j):
            if (fixed and want & ~near_m != 0) or (not fixed and n_near < j):
                return 0                                   # the next row would not do either
            for c in range(k):                             # skip the row in its free columns
                if (free_m >> c) & 1:
                    off[c] += 1
                    if off[c] > self.N:
                        pos[c] += 1
                        off[c] -= self.N
            free_m = near_m
        if not fixed:
            _own_or_lowest(cols, j, free_m)
        return 0

    cdef void gc_plan(self, int32_t lane, const int32_t* offs, int32_t* cols, int32_t* order, int32_t n,
                      int32_t* rows) noexcept nogil:
        """gc.aligned_moves, pages the frontier places: the order (``order[0..n)``) and columns
        (``cols``: in, each page's own; out, where it goes) in which gc_slot() is to write the
        pages 0..n-1 of a victim, grouped in rows by ``offs`` (source order), so that a victim
        row stays in one frontier row where it can and no page is left unwritten.  Each
        frontier row (the lowest (superblock, offset) any column has not written; its free
        columns those there) takes the earliest of the next ALIGN_LOOKAHEAD unplaced victim
        rows that fits in its free columns, else the first unplaced row's first pages, as
        many as fit (the rest stay a row); a page keeps its column when that is free, the
        others take the lowest free ones.  ``rows``: scratch of 2 * N entries (a victim
        has at most N rows)."""
        cdef int32_t k = self.k, i, q, r, nr = 0, first = 0, pick, take, seen, f, t = 0
        cdef int64_t keys[64]
        cdef int64_t row
        cdef uint64_t free_m
        cdef int32_t* rs = rows                            # each victim row's first unplaced page
        cdef int32_t* rl = rows + self.N                   # and its unplaced pages
        for q in range(n):
            if q == 0 or offs[q] != offs[q - 1]:
                rs[nr] = q
                rl[nr] = 0
                nr += 1
            rl[nr - 1] += 1
        self.gc_keys(lane, keys)
        while first < nr:
            free_m = _lowest_row(keys, k, &row, &f)
            pick = -1
            seen = 0
            r = first
            while r < nr and seen < ALIGN_LOOKAHEAD:
                if rl[r]:
                    if rl[r] <= f:
                        pick = r
                        break
                    seen += 1
                r += 1
            if pick < 0:
                pick = first
                take = f
            else:
                take = rl[pick]
            _own_or_lowest(cols + rs[pick], take, free_m)
            for i in range(rs[pick], rs[pick] + take):
                keys[cols[i]] += 1
                order[t] = i
                t += 1
            rs[pick] += take
            rl[pick] -= take
            while first < nr and rl[first] == 0:
                first += 1

    cdef void gc_keys(self, int32_t lane, int64_t* keys) noexcept nogil:
        """Each column's next page of the lane's GC/RR frontier as one number, pos * N + off."""
        cdef int32_t c, i = lane * self.k
        for c in range(self.k):
            keys[c] = <int64_t>self.gc_pos[i + c] * self.N + self.gc_off[i + c]

    cdef int open_gc(self, int32_t lane) except -1 nogil:
        """Open a new GC/RR frontier superblock in ``lane`` (after those open)."""
        cdef int32_t sb = self.alloc(lane, True)
        self.sb_state[sb] = S_OPEN_GC
        self.gc_open[lane * GC_MAX + self.gc_len[lane]] = sb
        self.gc_len[lane] += 1
        return 0

    def reserve_gc_frontiers(self):
        """gc.reserve_gc_frontier: open every lane's GC/RR frontier (the engine, when built)."""
        cdef int32_t lane
        for lane in range(self.n_lanes):
            self.open_gc(lane)

    cdef int32_t spill_column(self, int32_t lane) noexcept nogil:
        """The column of the lane's oldest open GC/RR superblock with the most unwritten
        pages (ties: the lowest index), among those still writing it; -1 if none has room.

        A page whose own column is full in both open superblocks goes there rather than
        into a third superblock: closing the oldest with columns unwritten would leave
        whole blocks of it empty until it is erased, and a lane whose victims keep their
        valid pages in one column would then gain no free superblock from GC."""
        cdef int32_t k = self.k, N = self.N, c, best = -1
        cdef int32_t* pos = self.gc_pos + lane * k
        cdef int32_t* off = self.gc_off + lane * k
        for c in range(k):
            if pos[c] == 0 and off[c] < N and (best < 0 or off[c] < off[best]):
                best = c
        return best

    cdef void gc_close_front(self, int32_t lane) noexcept nogil:
        cdef int32_t k = self.k
        cdef int32_t* pos = self.gc_pos + lane * k
        cdef int32_t* off = self.gc_off + lane * k
        cdef int32_t* opened = self.gc_open + lane * GC_MAX
        cdef int32_t i, c
        self.sb_state[opened[0]] = S_CLOSED
        for i in range(1, self.gc_len[lane]):
            opened[i - 1] = opened[i]
        self.gc_len[lane] -= 1
        for c in range(k):
            if pos[c] == 0:
                off[c] = 0
            else:
                pos[c] -= 1

    cdef void detach_frontier(self, int32_t sb) noexcept nogil:
        cdef int32_t k = self.k
        cdef int32_t lane = sb // self.S
        cdef int32_t* pos = self.gc_pos + lane * k
        cdef int32_t* off = self.gc_off + lane * k
        cdef int32_t* opened = self.gc_open + lane * GC_MAX
        cdef int32_t j = -1, i, c
        if self.uf_sb[lane] == sb:
            self.uf_sb[lane] = -1
        for i in range(self.gc_len[lane]):
            if opened[i] == sb:
                j = i
                break
        if j < 0:
            return
        for i in range(j + 1, self.gc_len[lane]):
            opened[i - 1] = opened[i]
        self.gc_len[lane] -= 1
        for c in range(k):
            if pos[c] == j:
                off[c] = 0
            elif pos[c] > j:
                pos[c] -= 1


cdef inline uint64_t _lowest_row(const int64_t* keys, int32_t k, int64_t* row, int32_t* n_free) noexcept nogil:
    """The frontier row, the lowest of ``keys[0..k)`` (to ``row``), and the mask of the columns
    there, its free ones (their count to ``n_free``)."""
    cdef int32_t c
    cdef uint64_t free_m = 0
    row[0] = INT64_MAX
    n_free[0] = 0
    for c in range(k):
        if keys[c] < row[0]:
            row[0] = keys[c]
    for c in range(k):
        if keys[c] == row[0]:
            free_m |= (<uint64_t>1) << c
            n_free[0] += 1
    return free_m


cdef inline void _own_or_lowest(int32_t* cols, int32_t j, uint64_t free_m) noexcept nogil:
    """Columns for j pages (``cols``: in, their own; out, where they go) among the free ones
    (``free_m``, at least j): a page keeps its own column when that is free and no page
    before it took it; the others take the lowest free columns left."""
    cdef uint64_t taken = 0
    cdef int32_t i, c
    for i in range(j):
        if (free_m >> cols[i]) & 1 and not (taken >> cols[i]) & 1:
            taken |= (<uint64_t>1) << cols[i]
        else:
            cols[i] = -1
    for i in range(j):
        if cols[i] < 0:
            c = 0
            while not (free_m >> c) & 1 or (taken >> c) & 1:
                c += 1
            cols[i] = c
            taken |= (<uint64_t>1) << c
