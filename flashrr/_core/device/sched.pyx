# cython: language_level=3
"""Scheduler layer of the compiled engine: dies, channels and the queues of
background flash transactions.  Twin: ``sched_py.py``; docs/model.md
section 5 gives the rules.  Every method runs without the GIL."""
from libc.stdint cimport INT32_MAX, INT64_MAX, int8_t, int32_t, int64_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy, memmove, memset

import functools

import numpy as np
cimport numpy as cnp

from .common cimport *
from ..invariants import EngineError

from ..buffers import owned_array

cnp.import_array()


cdef void* _grow(void* p, int64_t n_bytes) except NULL nogil:
    cdef void* q = realloc(p, n_bytes if n_bytes > 0 else 1)
    if q == NULL:
        with gil:
            raise MemoryError("flashrr engine: out of memory")
    return q


cdef object _copied(const void* p, int64_t count, dtype):
    """A new NumPy array of ``count`` items of ``dtype`` copied from ``p``."""
    out = np.empty(count, dtype=dtype)
    if count:
        memcpy(cnp.PyArray_DATA(out), p, count * out.itemsize)
    return out


cdef void* _unwrap_grow(void* ring, int32_t cap, int32_t head, int32_t n, size_t elem) except NULL nogil:
    """A ring of ``cap`` elements of ``elem`` bytes holding ``n`` from ``head``, copied in
    order into a new buffer twice as large (the old one is freed)."""
    cdef char* grown = <char*>_grow(NULL, elem * 2 * cap)
    cdef int32_t first = cap - head if n > cap - head else n
    memcpy(grown, <char*>ring + elem * head, elem * first)
    memcpy(grown + elem * first, ring, elem * (n - first))
    free(ring)
    return grown


cdef inline int32_t _wrap(int32_t i, int32_t cap) noexcept nogil:
    """Index i of a ring of cap slots, for 0 <= i < 2 * cap (a compare, not a division)."""
    return i - cap if i >= cap else i


cdef void* _ring_push(void** ring, int32_t* head, int32_t* length, int32_t* cap, size_t elem) except NULL nogil:
    """A new last slot of a ring of ``elem``-byte items (``ring``, its head, length and
    capacity), grown to twice its size when full; the caller fills the slot."""
    if length[0] == cap[0]:
        ring[0] = _unwrap_grow(ring[0], cap[0], head[0], length[0], elem)
        cap[0] *= 2
        head[0] = 0
    length[0] += 1
    return <char*>ring[0] + elem * _wrap(head[0] + length[0] - 1, cap[0])


cdef inline void _move_pairs(int64_t* v, int32_t to, int32_t frm, int32_t n) noexcept nogil:
    """Move n (start, end) pairs from index frm to index to (overlapping ranges allowed).
    Short runs by a loop, where a libc call would cost more than the copy; long ones (a
    busy channel's chunks fill up, and inserts land mid-chunk) by memmove, which copies
    a vector at a time where the overlapping loop copies an element."""
    cdef int32_t i
    if n > 4:
        memmove(&v[2 * to], &v[2 * frm], sizeof(int64_t) * 2 * n)
    elif to < frm:
        for i in range(2 * n):
            v[2 * to + i] = v[2 * frm + i]
    else:
        for i in range(2 * n - 1, -1, -1):
            v[2 * to + i] = v[2 * frm + i]


cdef inline int32_t _first_after(const int64_t* a, int32_t stride, int32_t n, int32_t hint, int64_t s) noexcept nogil:
    """The first i in [0, n) with a[i * stride] > s, or n; a[i * stride] ascending.  From
    hint in [0, n), the search gallops out in steps of 1, 2, 4, ... to bracket i, then
    halves: O(log |i - hint|).  hint -1: plain halving."""
    cdef int32_t lo = 0, hi = n, k = 1, mid
    if hint >= 0:
        if a[hint * stride] > s:                           # i <= hint
            hi = hint
            while True:
                if hi - k < 0:
                    lo = 0
                    break
                if a[(hi - k) * stride] <= s:
                    lo = hi - k + 1
                    break
                hi -= k
                k *= 2
        else:                                              # i > hint
            lo = hint + 1
            while True:
                if lo + k - 1 >= n:
                    hi = n
                    break
                if a[(lo + k - 1) * stride] > s:
                    hi = lo + k - 1
                    break
                lo += k
                k *= 2
    while lo < hi:
        mid = (lo + hi) >> 1
        if a[mid * stride] > s:
            hi = mid
        else:
            lo = mid + 1
    return lo


cdef class Scheduler:
    def __init__(self, layout, counters, bint need_src):
        """``layout``: a Layout; ``counters``: the engine's int64 counter array (kept);
        ``need_src``: keep a source ppn per page for moves not programmed yet."""
        cdef cnp.ndarray a
        L = layout
        self.n_dies = L.n_dies
        self.n_chan = L.n_channels
        self.k = L.k
        self.N = L.pages_per_block
        self.S = L.sb_per_lane
        self.n_lanes = L.n_lanes
        self.sched = L.scheduler
        self.destage_cap = L.destage_pages
        self.t_xfer = L.t_xfer_page_ns
        self.gapfill = L.channel_gapfill
        self._keep = keep = {}
        a = keep["comp_die"] = np.ascontiguousarray(L.comp_die, dtype=np.int32)
        self.comp_die = <int32_t*>a.data
        a = keep["comp_plane"] = np.ascontiguousarray(L.comp_plane_in_die, dtype=np.int32)
        self.comp_plane = <int32_t*>a.data
        first = np.zeros(max(1, self.n_lanes), np.int32)
        length = np.zeros(max(1, self.n_lanes), np.int32)
        dies = np.zeros(max(1, self.n_lanes * self.k), np.int32)
        for lane in range(self.n_lanes):
            ds = sorted({int(d) for d in L.comp_die[lane * self.k:(lane + 1) * self.k]})
            first[lane] = lane * self.k
            length[lane] = len(ds)
            dies[lane * self.k:lane * self.k + len(ds)] = ds
        a = keep["group_first"] = first; self.group_first = <int32_t*>a.data
        a = keep["group_len"] = length; self.group_len = <int32_t*>a.data
        a = keep["group_dies"] = dies; self.group_dies = <int32_t*>a.data
        a = keep["counters"] = counters; self.cnt = <int64_t*>a.data

        arr = functools.partial(owned_array, keep)

        a = arr("die_free", self.n_dies, np.int64); self.die_free = <int64_t*>a.data
        a = arr("die_prog_end", self.n_dies, np.int64); self.die_prog_end = <int64_t*>a.data
        a = arr("user_free", self.n_dies, np.int64); self.user_free = <int64_t*>a.data
        a = arr("die_busy", self.n_dies, np.int64); self.die_busy = <int64_t*>a.data
        a = arr("die_q_progs", self.n_dies, np.int32); self.die_q_progs = <int32_t*>a.data
        a = arr("die_erase_end", self.n_dies, np.int64); self.die_erase_end = <int64_t*>a.data
        a = arr("chan_free", self.n_chan, np.int64); self.chan_free = <int64_t*>a.data
        a = arr("sb_erase_job", L.n_superblocks, np.int32, -1); self.sb_erase_job = <int32_t*>a.data
        self.src_of = NULL
        if need_src:
            a = arr("src_of", L.n_pages, np.int32, -1); self.src_of = <int32_t*>a.data
        self.ivc = <IvChunk***>_grow(NULL, sizeof(IvChunk**) * self.n_chan)
        self.ivc_n = <int32_t*>_grow(NULL, sizeof(int32_t) * self.n_chan)
        self.ivc_cap = <int32_t*>_grow(NULL, sizeof(int32_t) * self.n_chan)
        self.ivc_lo = <int32_t*>_grow(NULL, sizeof(int32_t) * self.n_chan)
        self.ivc_end = <int64_t**>_grow(NULL, sizeof(int64_t*) * self.n_chan)
        self.ivc_dropped = <int64_t*>_grow(NULL, sizeof(int64_t) * self.n_chan)
        self.ivc_last_s = <int64_t*>_grow(NULL, sizeof(int64_t) * self.n_chan)
        self.ivc_spare = <IvChunk**>_grow(NULL, sizeof(IvChunk*) * IVC_SPARE)
        self.ivc_spare_n = 0
        self.die_finger = <int64_t*>_grow(NULL, sizeof(int64_t) * self.n_dies)
        self.die_finger_ii = <int32_t*>_grow(NULL, sizeof(int32_t) * self.n_dies)
        a = arr("hs", self.n_dies, np.int64); self.hs = <int64_t*>a.data
        a = arr("hs_kind", self.n_dies, np.int8); self.hs_kind = <int8_t*>a.data
        a = arr("hs_stale", self.n_dies, np.uint8, 1); self.hs_stale = <uint8_t*>a.data
        a = arr("hs_stale_dies", self.n_dies, np.int32); self.hs_stale_dies = <int32_t*>a.data
        self.n_hs_stale = 0
        self.hs_leaves = 1
        while self.hs_leaves < self.n_dies:
            self.hs_leaves *= 2
        a = arr("hs_tree", 2 * self.hs_leaves, np.int32, -1); self.hs_tree = <int32_t*>a.data
        for i in range(self.n_dies):
            self.hs_tree[self.hs_leaves + i] = i
        for c in range(self.n_chan):
            self.ivc[c] = <IvChunk**>_grow(NULL, sizeof(IvChunk*) * 8)
            self.ivc_end[c] = <int64_t*>_grow(NULL, sizeof(int64_t) * 8)
            self.ivc_cap[c] = 8
            self.ivc_lo[c] = 0
            self.ivc_n[c] = 0
        self.q = <Txn**>_grow(NULL, sizeof(Txn*) * self.n_dies)
        self.q_head = <int32_t*>_grow(NULL, sizeof(int32_t) * self.n_dies)
        self.q_len = <int32_t*>_grow(NULL, sizeof(int32_t) * self.n_dies)
        self.q_cap = <int32_t*>_grow(NULL, sizeof(int32_t) * self.n_dies)
        self.iq = <IdleMove**>_grow(NULL, sizeof(IdleMove*) * self.n_dies)
        self.iq_head = <int32_t*>_grow(NULL, sizeof(int32_t) * self.n_dies)
        self.iq_len = <int32_t*>_grow(NULL, sizeof(int32_t) * self.n_dies)
        self.iq_cap = <int32_t*>_grow(NULL, sizeof(int32_t) * self.n_dies)
        for d in range(self.n_dies):
            self.q[d] = <Txn*>_grow(NULL, sizeof(Txn) * 64)
            self.q_cap[d] = 64
            self.iq[d] = <IdleMove*>_grow(NULL, sizeof(IdleMove) * 16)
            self.iq_cap[d] = 16
        self.jobs_cap = 64
        self.jobs = <Job*>_grow(NULL, sizeof(Job) * self.jobs_cap)
        for kind in range(2):
            self.events_cap[kind] = 64
            self.erase_end[kind] = <int64_t*>_grow(NULL, sizeof(int64_t) * 64)
        self.ev_on = L.gc_erased_pool
        self.ev_cap = 64
        self.ev = <EraseEv*>_grow(NULL, sizeof(EraseEv) * self.ev_cap)
        self.heap_cap = 64
        self.heap = <FlushEnt*>_grow(NULL, sizeof(FlushEnt) * self.heap_cap)
        self.read_prio = L.read_priority
        self.uq = <UserWrite**>_grow(NULL, sizeof(UserWrite*) * self.n_dies)
        self.uq_head = <int32_t*>_grow(NULL, sizeof(int32_t) * self.n_dies)
        self.uq_len = <int32_t*>_grow(NULL, sizeof(int32_t) * self.n_dies)
        self.uq_cap = <int32_t*>_grow(NULL, sizeof(int32_t) * self.n_dies)
        for d in range(self.n_dies):
            self.uq_cap[d] = 16 if self.read_prio else 1
            self.uq[d] = <UserWrite*>_grow(NULL, sizeof(UserWrite) * self.uq_cap[d])
        self.wreq_cap = 64
        self.wreq = <WriteReq*>_grow(NULL, sizeof(WriteReq) * self.wreq_cap)
        self.wreq_free = <int32_t*>_grow(NULL, sizeof(int32_t) * self.wreq_cap)
        self.wdone_cap = 64
        self.wdone = <int64_t*>_grow(NULL, sizeof(int64_t) * self.wdone_cap)
        self.join_on = L.join_writes
        self.jr_on = L.join_reads
        self.joins_on = self.join_on or self.jr_on
        for kind in range(2):
            self.slots[kind] = <ProgSlot**>_grow(NULL, sizeof(ProgSlot*) * self.n_dies)
            self.sl_head[kind] = <int32_t*>_grow(NULL, sizeof(int32_t) * self.n_dies)
            self.sl_len[kind] = <int32_t*>_grow(NULL, sizeof(int32_t) * self.n_dies)
            self.sl_cap[kind] = <int32_t*>_grow(NULL, sizeof(int32_t) * self.n_dies)
            for d in range(self.n_dies):
                self.sl_cap[kind][d] = 64 if (self.join_on if kind == SLOT_PROG else self.jr_on) else 1
                self.slots[kind][d] = <ProgSlot*>_grow(NULL, sizeof(ProgSlot) * self.sl_cap[kind][d])
        self.reset()

    def __dealloc__(self):
        cdef int32_t i, j
        if self.ivc != NULL:
            for i in range(self.n_chan):
                for j in range(self.ivc_n[i]):
                    free(self.ivc[i][j])
                free(self.ivc[i] - self.ivc_lo[i])
                free(self.ivc_end[i] - self.ivc_lo[i])
        if self.q != NULL:
            for i in range(self.n_dies):
                free(self.q[i])
        if self.iq != NULL:
            for i in range(self.n_dies):
                free(self.iq[i])
        if self.uq != NULL:
            for i in range(self.n_dies):
                free(self.uq[i])
        for j in range(2):
            if self.slots[j] != NULL:
                for i in range(self.n_dies):
                    free(self.slots[j][i])
        if self.ivc_spare != NULL:
            for i in range(self.ivc_spare_n):
                free(self.ivc_spare[i])
            free(self.ivc_spare)
        free(self.ivc); free(self.ivc_n); free(self.ivc_cap); free(self.ivc_lo); free(self.ivc_end)
        free(self.ivc_dropped); free(self.ivc_last_s); free(self.die_finger); free(self.die_finger_ii)
        free(self.q); free(self.q_head); free(self.q_len); free(self.q_cap)
        free(self.iq); free(self.iq_head); free(self.iq_len); free(self.iq_cap)
        free(self.jobs); free(self.erase_end[0]); free(self.erase_end[1]); free(self.heap)
        free(self.ev)
        free(self.uq); free(self.uq_head); free(self.uq_len); free(self.uq_cap)
        free(self.wreq); free(self.wreq_free); free(self.wdone)
        for j in range(2):
            free(self.slots[j]); free(self.sl_head[j]); free(self.sl_len[j]); free(self.sl_cap[j])

    cdef void reset(self) noexcept nogil:
        cdef int64_t i, j
        for i in range(self.n_dies):
            self.die_free[i] = 0
            self.die_prog_end[i] = 0
            self.user_free[i] = 0
            self.die_busy[i] = 0
            self.die_q_progs[i] = 0
            self.die_erase_end[i] = 0
            self.q_head[i] = 0
            self.q_len[i] = 0
            self.iq_head[i] = 0
            self.iq_len[i] = 0
            self.uq_head[i] = 0
            self.uq_len[i] = 0
            for j in range(2):
                self.sl_head[j][i] = 0
                self.sl_len[j][i] = 0
            self.die_finger[i] = 0
            self.die_finger_ii[i] = 0
            self.hs_stale[i] = 1
        for i in range(self.n_chan):
            self.chan_free[i] = 0
            for j in range(self.ivc_n[i]):
                self._chunk_drop(self.ivc[i][j])
            self.ivc_n[i] = 0
            self.ivc_dropped[i] = 0
        for i in range(self.n_lanes * self.S):
            self.sb_erase_job[i] = -1
        if self.src_of != NULL:
            for i in range(self.n_lanes * self.S * self.k * self.N):
                self.src_of[i] = -1
        self.n_src = 0
        self.horizon = 0
        self.bg_pending = 0
        self.bg_next = -1
        self.hs_all_stale = True
        self.n_hs_stale = 0
        self.idle_pending = 0
        self.n_jobs = 0
        self.n_events[0] = 0
        self.n_events[1] = 0
        self.heap_len = 0
        self.heap_pages = 0
        self.n_ev = 0
        self.ev_min = INT64_MAX
        self.uw_pending = 0
        self.n_wdone = 0
        self.n_wreq_free = self.wreq_cap                    # every slot free, the lowest on top
        for i in range(self.wreq_cap):
            self.wreq_free[i] = <int32_t>(self.wreq_cap - 1 - i)

    # ================================================================ resources
    cdef int64_t xfer_fit(self, int32_t chan, int64_t t, int64_t dur, int32_t die) except -1 nogil:
        """First fit of a dur ns transfer ready at t, where ``xfer``'s append does not apply.

        The busy intervals live in chunks of up to IVC, in time order; intervals
        that end by the horizon are dropped, since no booking starts before it.
        Touching intervals need not be merged: first fit depends only on the busy set."""
        cdef int64_t s, e
        cdef int32_t nc = self.ivc_n[chan], mid, ci, ii, k
        cdef IvChunk** ch = self.ivc[chan]
        cdef IvChunk* c
        # drop chunks no booking can reach any more (an expired interval inside a live chunk is
        # harmless: every booking starts at or after the horizon, so a first fit never meets it)
        cdef int64_t* ends = self.ivc_end[chan]
        while nc > 0 and ends[0] <= self.horizon:
            self._chunk_drop(ch[0])
            nc -= 1
            ch += 1
            ends += 1
            self.ivc_lo[chan] += 1
            self.ivc_dropped[chan] += 1
        self.ivc[chan] = ch
        self.ivc_end[chan] = ends
        self.ivc_n[chan] = nc
        s = t
        # the first chunk whose last interval ends after s: at the back (a booking after all
        # others), else near where this die's last search landed (drops and splits since then
        # shift it by a few chunks); in that chunk, the first interval ending after s, near
        # the die's last one if it is the same chunk
        if nc == 0 or ends[nc - 1] <= s:
            ci = nc
        elif nc > 1 and ends[nc - 2] <= s:
            ci = nc - 1
        else:
            e = self.die_finger[die] - self.ivc_dropped[chan]
            ci = _first_after(ends, 1, nc, 0 if e < 0 else (nc - 1 if e > nc - 1 else <int32_t>e), s)
        ii = 0
        if ci < nc:
            c = ch[ci]
            # near the die's last interval if this is its chunk; a split since (which also shifts
            # the chunks after it) may leave the hint past the chunk's end, where _first_after
            # would read stale or never-written slots: the last interval then
            k = self.die_finger_ii[die] if ci + self.ivc_dropped[chan] == self.die_finger[die] else -1
            ii = _first_after(&c.v[1], 2, c.n, k if k < c.n else c.n - 1, s)
        # walk forward until the gap before interval (ci, ii) is long enough
        while ci < nc:
            c = ch[ci]
            if c.v[2 * ii] >= s + dur:
                break
            s = c.v[1 + 2 * ii]
            ii += 1
            if ii == c.n:
                ci += 1
                ii = 0
        self.die_finger[die] = ci + self.ivc_dropped[chan]
        self.die_finger_ii[die] = ii
        e = s + dur
        # the gap starts where the previous interval ends: grow that one instead of adding one
        if ii > 0:
            mid = ci
            k = ii - 1
        else:
            mid = ci - 1                                   # -1: no previous interval
            k = ch[mid].n - 1 if mid >= 0 else 0
        if mid >= 0 and ch[mid].v[1 + 2 * k] == s:
            ch[mid].v[1 + 2 * k] = e
            if k == ch[mid].n - 1:
                ends[mid] = e
            return e
        self.iv_insert(chan, ci, ii, s, e)
        return e

    cdef int iv_insert(self, int32_t chan, int32_t ci, int32_t ii, int64_t s, int64_t e) except -1 nogil:
        """Insert [s, e) before interval ii of chunk ci (ci == number of chunks: at the end)."""
        cdef int32_t nc = self.ivc_n[chan], half
        cdef IvChunk** ch = self.ivc[chan]
        cdef IvChunk* c
        cdef IvChunk* d
        if ci == nc:                                       # after everything: the end of the last chunk
            if nc > 0 and ch[nc - 1].n < IVC:
                ci = nc - 1
                ii = ch[ci].n
            else:
                if self.ivc_lo[chan] + nc == self.ivc_cap[chan]:
                    ch = self._grow_chunks(chan)
                c = ch[nc] = self._chunk_new()
                c.n = 0
                self.ivc_n[chan] = nc = nc + 1
                ci = nc - 1
                ii = 0
        c = ch[ci]
        if c.n == IVC:                                     # split the full chunk in two halves
            if self.ivc_lo[chan] + nc == self.ivc_cap[chan]:
                ch = self._grow_chunks(chan)
            d = self._chunk_new()
            half = IVC // 2
            d.n = IVC - half
            memcpy(&d.v[0], &c.v[2 * half], sizeof(int64_t) * 2 * d.n)
            c.n = half
            memmove(&ch[ci + 2], &ch[ci + 1], sizeof(IvChunk*) * (nc - ci - 1))
            memmove(&self.ivc_end[chan][ci + 2], &self.ivc_end[chan][ci + 1], sizeof(int64_t) * (nc - ci - 1))
            ch[ci + 1] = d
            self.ivc_end[chan][ci] = c.v[2 * c.n - 1]
            self.ivc_end[chan][ci + 1] = d.v[2 * d.n - 1]
            self.ivc_n[chan] = nc + 1
            if ii > half:
                c = d
                ci += 1
                ii -= half
        _move_pairs(c.v, ii + 1, ii, c.n - ii)
        c.v[2 * ii] = s
        c.v[1 + 2 * ii] = e
        c.n += 1
        self.ivc_end[chan][ci] = c.v[2 * c.n - 1]
        if ii == c.n - 1 and ci == self.ivc_n[chan] - 1:
            self.ivc_last_s[chan] = s
        return 0

    cdef IvChunk** _grow_chunks(self, int32_t chan) noexcept nogil:
        """Room for one more chunk of chan, whose live slots are all used: move the live
        chunks back over the dropped slots, and double the allocation too unless those
        were at least half of it.  Returns the (possibly moved) pointer array."""
        cdef int32_t lo = self.ivc_lo[chan], n = self.ivc_n[chan], total = self.ivc_cap[chan]
        cdef IvChunk** base = self.ivc[chan] - lo
        cdef int64_t* ends = self.ivc_end[chan] - lo
        if lo:
            memmove(base, self.ivc[chan], sizeof(IvChunk*) * n)
            memmove(ends, self.ivc_end[chan], sizeof(int64_t) * n)
        if 2 * lo < total:
            total *= 2
            ends = <int64_t*>_grow(ends, sizeof(int64_t) * total)
            base = <IvChunk**>_grow(base, sizeof(IvChunk*) * total)
        self.ivc_lo[chan] = 0
        self.ivc_cap[chan] = total
        self.ivc_end[chan] = ends
        self.ivc[chan] = base
        return base

    cdef IvChunk* _chunk_new(self) except NULL nogil:
        if self.ivc_spare_n:
            self.ivc_spare_n -= 1
            return self.ivc_spare[self.ivc_spare_n]
        return <IvChunk*>_grow(NULL, sizeof(IvChunk))

    cdef void _chunk_drop(self, IvChunk* c) noexcept nogil:
        if self.ivc_spare_n < IVC_SPARE:
            self.ivc_spare[self.ivc_spare_n] = c
            self.ivc_spare_n += 1
        else:
            free(c)

    cdef void hs_rebuild(self) noexcept nogil:
        cdef int32_t i
        for i in range(self.hs_leaves - 1, 0, -1):
            self.hs_play(i)

    # ================================================================ background jobs
    cdef int32_t new_job(self, int8_t kind, int32_t lane, int32_t victim, int64_t t) except -1 nogil:
        cdef int32_t j, ev, p
        cdef Job* job
        if self.bg_pending == 0:
            self.n_jobs = 0                                 # nothing queued: ids start again
        if self.n_jobs == self.jobs_cap:
            self.jobs_cap *= 2
            self.jobs = <Job*>_grow(self.jobs, sizeof(Job) * self.jobs_cap)
        if self.n_events[kind] == self.events_cap[kind]:
            self.events_cap[kind] *= 2
            self.erase_end[kind] = <int64_t*>_grow(self.erase_end[kind], sizeof(int64_t) * self.events_cap[kind])
        ev = self.n_events[kind]
        self.n_events[kind] += 1
        self.erase_end[kind][ev] = -1
        j = self.n_jobs
        self.n_jobs += 1
        job = &self.jobs[j]
        job.t0 = t
        job.kind = kind
        job.lane = lane
        job.victim = victim
        job.event = ev
        for p in range(3):
            job.left[p] = 0
            job.end[p] = t
        return j

    cdef int queue(self, int32_t job, int32_t phase, int32_t die, int32_t chan, int32_t n_xfer, int64_t dur,
                   int32_t dsb, int32_t off, uint64_t cmask, int32_t count) except -1 nogil:
        """Queue ``count`` transactions of ``job`` on ``die``, each after the one before
        (count > 1: reads of equal duration, or programs of offsets off, off+1, ... with the
        same components; none over the channel).  They join the die's last entry when they
        continue its run."""
        cdef int32_t cap = self.q_cap[die], ln = self.q_len[die], h = self.q_head[die]
        cdef Txn* ring = self.q[die]
        cdef Txn* tx
        cdef bint joined = False
        if ln and n_xfer == 0 and phase != PH_ERASE and not (phase == PH_READ and self.jr_on):
            tx = &ring[_wrap(h + ln - 1, cap)]
            joined = (tx.job == job and tx.phase == phase and tx.n_xfer == 0 and tx.dur == dur and tx.chan == chan
                      and (phase == PH_READ or (tx.dsb == dsb and tx.cmask == cmask and tx.off + tx.count == off)))
        if joined:
            tx.count += count
        else:
            if ln == cap:
                ring = self.q[die] = <Txn*>_unwrap_grow(ring, cap, h, ln, sizeof(Txn))
                self.q_cap[die] = cap = 2 * cap
                h = self.q_head[die] = 0
            tx = &ring[_wrap(h + ln, cap)]
            tx.job = job
            tx.phase = <int8_t>phase
            tx.chan = chan
            tx.n_xfer = n_xfer
            tx.dur = dur
            tx.dsb = dsb
            tx.off = off
            tx.cmask = cmask
            tx.count = count
            self.q_len[die] = ln + 1
        self.jobs[job].left[phase] += count
        if phase == PH_PROG:
            self.die_q_progs[die] += count
        self.bg_pending += count
        self.changed(die)
        if phase == PH_ERASE:
            self.sb_erase_job[self.jobs[job].victim] = job
        return 0

    cdef int set_src(self, int64_t dst, int64_t src) except -1 nogil:
        cdef int32_t s = <int32_t>src
        if self.src_of[src] >= 0:                           # src itself waits for an earlier move
            s = self.src_of[src]
        if self.src_of[dst] < 0:
            self.n_src += 1
        self.src_of[dst] = s
        return 0

    cdef int64_t head_start(self, int32_t die, int32_t max_job) noexcept nogil:
        cdef Txn* tx
        cdef Job* job
        cdef int64_t ready
        if self.q_len[die] == 0:
            return -1
        tx = &self.q[die][self.q_head[die]]
        if tx.job > max_job:
            return -1
        job = &self.jobs[tx.job]
        if tx.phase == PH_READ:
            ready = job.t0
        elif tx.phase == PH_PROG:
            if job.left[PH_READ]:
                return -1
            ready = job.end[PH_READ]
        else:
            if job.left[PH_READ] or job.left[PH_PROG]:
                return -1
            ready = imax(job.end[PH_READ], job.end[PH_PROG])
        return imax(ready, self.die_free[die])

    cdef int64_t next_start(self, int32_t die) noexcept nogil:
        """When the die's next queued work can start (ns), INT64_MAX if none can now, and
        hs_kind[die] what it is: its first queued user program (timing.read_priority), else
        its queue's head (if that waits for another die, nothing starts here), else its
        first idle move."""
        cdef int64_t s
        cdef IdleMove* m
        self.hs_kind[die] = 0
        if self.uq_len[die]:                                # timing.read_priority: its user writes go first
            return imax(self.uq[die][self.uq_head[die]].ready, self.die_free[die])
        if self.q_len[die]:
            s = self.head_start(die, INT32_MAX)
            return INT64_MAX if s < 0 else s
        if self.iq_len[die]:
            m = &self.iq[die][self.iq_head[die]]
            self.hs_kind[die] = 1
            return imax(m.t, self.die_free[die])
        return INT64_MAX

    cdef int book_head(self, int32_t die, int64_t start, int64_t before) except -1 nogil:
        """Book the die's head transaction from ``start`` (ns), and, if the head is a run, the
        run's next ones that start before ``before``: they follow each other on the die with
        nothing else booked in between, so one op() books them all."""
        cdef Txn* head = &self.q[die][self.q_head[die]]
        cdef Txn tx = head[0]
        cdef Job* job = &self.jobs[tx.job]
        cdef int64_t end, ppn, m = 1
        cdef int32_t c, o
        if tx.count > 1:
            if tx.dur <= 0:
                m = tx.count if start < before else 1
            elif before > start:
                m = imin(tx.count, imax(1, (before - start + tx.dur - 1) // tx.dur))
        if m < tx.count:                                   # the run's rest stays at the head
            head.count -= <int32_t>m
            head.off += <int32_t>m
        else:
            self.q_head[die] = _wrap(self.q_head[die] + 1, self.q_cap[die])
            self.q_len[die] -= 1
        self.bg_pending -= m
        self.changed(die)
        if tx.phase == PH_READ and self.jr_on:           # sensing from when op() below starts it
            self.add_read_slots(die, &tx, imax(start, self.die_free[die]), m)
        end = self.op(die, tx.chan, tx.phase, tx.n_xfer, start, m * tx.dur,
                      CAUSE_RR if job.kind == KIND_RR else CAUSE_GC)
        if tx.phase == PH_PROG:
            self.die_q_progs[die] -= m
            if self.join_on:
                self.add_slots(die, &tx, end, m)
            if self.n_src:
                for o in range(tx.off, tx.off + <int32_t>m):
                    for c in range(self.k):
                        if (tx.cmask >> c) & 1:
                            ppn = (<int64_t>tx.dsb * self.k + c) * self.N + o
                            if self.src_of[ppn] >= 0:
                                self.src_of[ppn] = -1
                                self.n_src -= 1
        job.left[tx.phase] -= <int32_t>m
        job.end[tx.phase] = imax(job.end[tx.phase], end)
        if job.left[tx.phase] == 0:
            self.hs_all_stale = True
        if tx.phase == PH_ERASE and job.left[PH_ERASE] == 0:
            self.set_erase_end(tx.job, end)
            if self.sb_erase_job[job.victim] == tx.job:
                self.sb_erase_job[job.victim] = -1
        return 0

    cdef bint job_pending(self, int32_t job) noexcept nogil:
        cdef Job* j = &self.jobs[job]
        return j.left[PH_READ] > 0 or j.left[PH_PROG] > 0 or j.left[PH_ERASE] > 0

    cdef int force(self, int32_t job) except -1 nogil:
        """Book the queued transactions of the job's dies until the job is done, earliest start
        first (lower die on ties); a run is booked on while it starts before any other die's
        head."""
        cdef int32_t lane = self.jobs[job].lane
        cdef int32_t* dies = self.group_dies + self.group_first[lane]
        cdef int32_t nd = self.group_len[lane], i, d, best
        cdef int64_t s, best_s, next_s
        while self.job_pending(job):
            best = -1
            best_s = 0
            next_s = INT64_MAX
            for i in range(nd):
                d = dies[i]
                s = self.head_start(d, job)
                if s < 0:
                    continue
                if best < 0 or s < best_s:
                    if best >= 0:
                        next_s = best_s
                    best = d
                    best_s = s
                elif s < next_s:
                    next_s = s
            if best < 0:
                with gil:
                    raise EngineError(f"scheduler: job {job} cannot be booked (a dependency never ran)")
            self.book_head(best, best_s, next_s)
        return 0

    cdef int set_erase_end(self, int32_t job, int64_t end) except -1 nogil:
        """Record when ``job``'s last erase ends; with gc.free_pool = "erased" that end
        becomes an event for Reclaim.erase_event."""
        cdef Job* j = &self.jobs[job]
        cdef EraseEv* e
        self.erase_end[j.kind][j.event] = end
        if self.ev_on:
            if self.n_ev == self.ev_cap:
                self.ev_cap *= 2
                self.ev = <EraseEv*>_grow(self.ev, sizeof(EraseEv) * self.ev_cap)
            e = &self.ev[self.n_ev]
            self.n_ev += 1
            e.end = end
            e.tag = self.erase_tag(job)
            e.lane = j.lane
            e.victim = j.victim
            if end < self.ev_min:
                self.ev_min = end
        return 0

    cdef bint pop_erase_ev(self, int64_t t, EraseEv* out) noexcept nogil:
        """Take the erase-end event that ends first (then lowest tag), if it ends by ``t``."""
        cdef int32_t i, best = -1
        if self.ev_min > t:
            return False
        for i in range(self.n_ev):
            if best < 0 or self.ev[i].end < self.ev[best].end or (
                    self.ev[i].end == self.ev[best].end and self.ev[i].tag < self.ev[best].tag):
                best = i
        out[0] = self.ev[best]
        self.n_ev -= 1
        self.ev[best] = self.ev[self.n_ev]
        self.ev_min = INT64_MAX
        for i in range(self.n_ev):
            if self.ev[i].end < self.ev_min:
                self.ev_min = self.ev[i].end
        return True

    # ================================================================ user writes (timing.read_priority)
    cdef int32_t write_req(self, int64_t t, int64_t done, int32_t left) except -1 nogil:
        """A slot for a user write that arrived at ``t`` with ``left`` programs (and held pages)
        not booked; ``done``: its completion so far (ns)."""
        cdef int32_t r, i, old = self.wreq_cap
        if self.n_wreq_free == 0:
            self.wreq_cap *= 2
            self.wreq = <WriteReq*>_grow(self.wreq, sizeof(WriteReq) * self.wreq_cap)
            self.wreq_free = <int32_t*>_grow(self.wreq_free, sizeof(int32_t) * self.wreq_cap)
            for i in range(old):
                self.wreq_free[i] = self.wreq_cap - 1 - i
            self.n_wreq_free = old
        self.n_wreq_free -= 1
        r = self.wreq_free[self.n_wreq_free]
        self.wreq[r].t = t
        self.wreq[r].done = done
        self.wreq[r].left = left
        return r

    cdef int queue_write(self, int32_t die, int32_t chan, int32_t n_xfer, int64_t ready, int64_t dur,
                         int32_t req, int32_t off, uint64_t pmask) except -1 nogil:
        """Queue a user program of request slot ``req`` on ``die``, ready at ``ready`` (ns),
        of the planes ``pmask`` at page offset ``off``."""
        cdef UserWrite* w = <UserWrite*>_ring_push(<void**>&self.uq[die], &self.uq_head[die], &self.uq_len[die],
                                                   &self.uq_cap[die], sizeof(UserWrite))
        w.ready = ready
        w.dur = dur
        w.chan = chan
        w.n_xfer = n_xfer
        w.req = req
        w.off = off
        w.pmask = pmask
        self.uw_pending += 1
        self.changed(die)
        return 0

    cdef int book_write(self, int32_t die) except -1 nogil:
        """Book the die's first queued user program, at max(ready, die free); when it is its
        request's last, the request's latency joins wdone and its slot is freed."""
        cdef UserWrite w = self.uq[die][self.uq_head[die]]
        self.uq_head[die] = _wrap(self.uq_head[die] + 1, self.uq_cap[die])
        self.uq_len[die] -= 1
        self.uw_pending -= 1
        self.changed(die)
        return self.write_part_done(w.req, self.user_op(die, w.chan, PH_PROG, w.n_xfer, w.ready, w.dur, CAUSE_USER))

    cdef int write_part_done(self, int32_t req, int64_t end) except -1 nogil:
        """One program of request slot ``req`` ends at ``end`` (ns); after its last, the
        request's latency joins wdone and its slot is freed."""
        cdef WriteReq* r = &self.wreq[req]
        if end > r.done:
            r.done = end
        r.left -= 1
        if r.left == 0:
            if self.n_wdone == self.wdone_cap:
                self.wdone_cap *= 2
                self.wdone = <int64_t*>_grow(self.wdone, sizeof(int64_t) * self.wdone_cap)
            self.wdone[self.n_wdone] = r.done - r.t
            self.n_wdone += 1
            self.wreq_free[self.n_wreq_free] = req
            self.n_wreq_free += 1
        return 0

    cdef int take_write(self, int32_t die, int32_t chan, int32_t n_xfer, int64_t ready, int64_t dur,
                        int32_t req, int32_t off, uint64_t pmask) except -1 nogil:
        """A user program of request slot ``req`` ready at ``ready`` (ns), of the planes ``pmask``
        at page offset ``off``: with timing.join_writes it joins the first background program
        slot of ``die`` that starts at or after ``ready`` at that offset with none of those planes
        (:meth:`ride`); otherwise it waits in the die's queue (:meth:`queue_write`)."""
        cdef ProgSlot* sl
        if self.join_on:
            sl = self.find_slot(SLOT_PROG, die, ready, off, pmask, 0)
            if sl != NULL:
                sl.pmask |= pmask
                return self.write_part_done(req, self.ride(sl, die, chan, n_xfer, ready, dur))
        return self.queue_write(die, chan, n_xfer, ready, dur, req, off, pmask)

    # ================================================================ joined transactions (join_writes, join_reads)
    cdef uint64_t tx_planes(self, int32_t die, const Txn* tx) noexcept nogil:
        """The planes of ``die`` that the components of ``tx`` (``cmask`` of superblock ``dsb``)
        lie on, as a mask."""
        cdef int32_t lane = tx.dsb // self.S, c
        cdef uint64_t pmask = 0
        for c in range(self.k):
            if (tx.cmask >> c) & 1 and self.comp_die[lane * self.k + c] == die:
                pmask |= (<uint64_t>1) << self.comp_plane[lane * self.k + c]
        return pmask

    cdef ProgSlot* new_slot(self, int32_t kind, int32_t die) except NULL nogil:
        """A new last slot of ``die``'s ring of ``kind``, after the slots that start before the
        horizon are dropped (no arrival can join them any more); the caller fills it."""
        self.drop_slots_before(kind, die, self.horizon)
        return <ProgSlot*>_ring_push(<void**>&self.slots[kind][die], &self.sl_head[kind][die], &self.sl_len[kind][die],
                                     &self.sl_cap[kind][die], sizeof(ProgSlot))

    cdef void drop_slots_before(self, int32_t kind, int32_t die, int64_t t) noexcept nogil:
        """Drop the slots of ``die``'s ring of ``kind`` that start before ``t`` (ns)."""
        while self.sl_len[kind][die] and self.slots[kind][die][self.sl_head[kind][die]].start < t:
            self.sl_head[kind][die] = _wrap(self.sl_head[kind][die] + 1, self.sl_cap[kind][die])
            self.sl_len[kind][die] -= 1

    cdef ProgSlot* find_slot(self, int32_t kind, int32_t die, int64_t t, int32_t off, uint64_t pmask,
                             int64_t dur) noexcept nogil:
        """The first slot of ``die``'s ring of ``kind`` that starts at or after ``t`` (ns), at page
        offset ``off``, with none of the planes ``pmask`` and lasting at least ``dur`` (ns); NULL if
        none.  The slots that start before ``t`` are dropped."""
        cdef int32_t i
        cdef ProgSlot* sl
        self.drop_slots_before(kind, die, t)
        for i in range(self.sl_len[kind][die]):
            sl = &self.slots[kind][die][_wrap(self.sl_head[kind][die] + i, self.sl_cap[kind][die])]
            if sl.off == off and not (sl.pmask & pmask) and sl.end - sl.start >= dur:
                return sl
        return NULL

    cdef int add_slots(self, int32_t die, const Txn* tx, int64_t end, int64_t m) except -1 nogil:
        """The m background programs of ``tx`` just booked on ``die`` (a run, each after the one
        before, the last ending at ``end``) become slots, in start order.  Each first takes
        the user programs waiting on the die that are ready by its start, at its page offset,
        on planes it does not program yet, in queue order; then it is kept for the user
        writes that arrive before it starts (take_write)."""
        cdef int32_t i, j, h, cap
        cdef uint64_t pmask = self.tx_planes(die, tx)
        cdef int64_t x
        cdef ProgSlot* sl
        cdef UserWrite* ring
        cdef UserWrite w
        for x in range(m):
            sl = self.new_slot(SLOT_PROG, die)
            sl.end = end - (m - 1 - x) * tx.dur
            sl.start = sl.end - tx.dur
            sl.off = tx.off + <int32_t>x
            sl.pmask = pmask
            i = 0
            while i < self.uq_len[die]:
                ring = self.uq[die]
                cap = self.uq_cap[die]
                h = self.uq_head[die]
                w = ring[_wrap(h + i, cap)]
                if w.ready > sl.start or w.off != sl.off or (w.pmask & sl.pmask):
                    i += 1
                    continue
                for j in range(i, self.uq_len[die] - 1):   # out of the queue; the rest keep their order
                    ring[_wrap(h + j, cap)] = ring[_wrap(h + j + 1, cap)]
                self.uq_len[die] -= 1
                self.uw_pending -= 1
                self.changed(die)
                sl.pmask |= w.pmask
                self.write_part_done(w.req, self.ride(sl, die, w.chan, w.n_xfer, w.ready, w.dur))
        return 0

    cdef int64_t ride(self, ProgSlot* s, int32_t die, int32_t chan, int32_t n_xfer, int64_t ready,
                      int64_t dur) except -1 nogil:
        """A user program joined to slot ``s``: its pages cross the channel in the first free
        stretch from the later of ``ready`` and n_xfer transfers before the slot starts (never
        before the horizon); it ends with the slot, or its own program time after its
        transfer if that is later (ns).  The die's bookings do not move."""
        cdef int64_t x_end = self.xfer(chan, imax(imax(ready, s.start - n_xfer * self.t_xfer), self.horizon),
                                       n_xfer, die)
        return imax(s.end, x_end + dur)

    cdef int add_read_slots(self, int32_t die, const Txn* tx, int64_t start, int64_t m) except -1 nogil:
        """The m background reads of ``tx`` just booked on ``die`` from ``start`` (ns; a run,
        each after the one before) become slots for the user reads that arrive before they
        start (join_read): each read's sensing interval, source page offset and planes."""
        cdef uint64_t pmask = self.tx_planes(die, tx)
        cdef int64_t x
        cdef ProgSlot* sl
        for x in range(m):
            sl = self.new_slot(SLOT_READ, die)
            sl.start = start + x * tx.dur
            sl.end = sl.start + tx.dur
            sl.off = tx.off
            sl.pmask = pmask
        return 0

    cdef int64_t join_read(self, int32_t die, int32_t chan, int32_t n_xfer, int64_t t, int64_t dur,
                           int32_t off, uint64_t pmask) except -2 nogil:
        """A user read arriving at ``t`` (ns), sensing for ``dur``, joins the first read slot of
        ``die`` that starts at or after ``t``, at page offset ``off``, with none of the planes
        ``pmask`` and a sensing time of at least ``dur``: its pages cross the channel after
        that sensing; returns when they have (ns), or -1 if no slot takes it."""
        cdef ProgSlot* sl = self.find_slot(SLOT_READ, die, t, off, pmask, dur)
        if sl == NULL:
            return -1
        sl.pmask |= pmask
        return self.xfer(chan, sl.end, n_xfer, die)

    # ================================================================ idle moves
    cdef int push_idle(self, int32_t die, int32_t lpn, int32_t src, int32_t dest, int64_t t) except -1 nogil:
        cdef IdleMove* m = <IdleMove*>_ring_push(<void**>&self.iq[die], &self.iq_head[die], &self.iq_len[die],
                                                 &self.iq_cap[die], sizeof(IdleMove))
        m.t = t
        m.lpn = lpn
        m.src = src
        m.dest = dest
        self.idle_pending += 1
        self.changed(die)
        return 0

    cdef IdleMove pop_idle(self, int32_t die) noexcept nogil:
        cdef IdleMove m = self.iq[die][self.iq_head[die]]
        self.iq_head[die] = _wrap(self.iq_head[die] + 1, self.iq_cap[die])
        self.iq_len[die] -= 1
        self.idle_pending -= 1
        self.changed(die)
        return m

    # ================================================================ destage buffer (binary min-heap)
    cdef int destage_push(self, int64_t end, int32_t pages) except -1 nogil:
        cdef int32_t i, p
        if self.heap_len == self.heap_cap:
            self.heap_cap *= 2
            self.heap = <FlushEnt*>_grow(self.heap, sizeof(FlushEnt) * self.heap_cap)
        i = self.heap_len
        self.heap_len += 1
        while i > 0:
            p = (i - 1) >> 1
            if self.heap[p].end <= end:
                break
            self.heap[i] = self.heap[p]
            i = p
        self.heap[i].end = end
        self.heap[i].pages = pages
        self.heap_pages += pages
        return 0

    cdef void _heap_pop(self) noexcept nogil:
        """Drop the earliest entry (its pages leave the buffer)."""
        cdef FlushEnt last
        cdef int32_t i = 0, c, n
        self.heap_pages -= self.heap[0].pages
        self.heap_len -= 1
        n = self.heap_len
        if n:
            last = self.heap[n]
            while True:
                c = 2 * i + 1
                if c >= n:
                    break
                if c + 1 < n and self.heap[c + 1].end < self.heap[c].end:
                    c += 1
                if self.heap[c].end >= last.end:
                    break
                self.heap[i] = self.heap[c]
                i = c
            self.heap[i] = last

    cdef int64_t destage(self, const int64_t* ends, int32_t n, int64_t t) except -1 nogil:
        """Flushes ending at ends[0:n] (one per page; pages of one transaction are adjacent
        and share their end) enter the buffer at t, and finished ones leave it; returns when
        it has room again: t, or the end of the flush that makes room.  One heap entry per
        run of equal ends gives the same pops as one per page, with fewer heap steps."""
        cdef int64_t ready = t, take
        cdef int32_t i = 0, j
        while self.heap_len and self.heap[0].end <= t:
            self._heap_pop()
        while i < n:
            j = i + 1
            while j < n and ends[j] == ends[i]:
                j += 1
            self.destage_push(ends[i], j - i)
            i = j
        while self.heap_pages > self.destage_cap:
            ready = imax(ready, self.heap[0].end)
            take = self.heap_pages - self.destage_cap
            if take >= self.heap[0].pages:
                self._heap_pop()
            else:
                self.heap[0].pages -= take
                self.heap_pages -= take
        return ready

    # ================================================================ Python views
    def book_op(self, int32_t die, int32_t chan, int32_t phase, int32_t n_xfer, int64_t ready, int64_t dur,
                int32_t cause):
        """``op`` from Python, for tests: book one transaction and return its end (ns)."""
        return self.op(die, chan, phase, n_xfer, ready, dur, cause)

    def set_horizon(self, int64_t t):
        """Declare that no booking from now on starts before t (ns), as the replay loop does at
        each arrival (for tests)."""
        self.horizon = t

    def array(self, name):
        """A NumPy view of one of the scheduler's arrays (die_free, die_busy, ...)."""
        return self._keep[name]

    def erase_ends(self, int kind):
        """When each event of ``kind`` (0 GC, 1 RR) had its last erase end (ns), -1 if never."""
        return _copied(self.erase_end[kind], self.n_events[kind], np.int64)

