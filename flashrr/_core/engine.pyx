# cython: language_level=3
"""The compiled engine.  Same model, same order of operations and same results
as the reference twin in ``_reference.py`` (the tests hold both to identical
summaries and event tables).  The request loop runs without the GIL; it takes
the GIL only to call a policy hook at an RR/GC, to record an event, or to raise.
"""
import numpy as np
cimport numpy as cnp
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport qsort

from .layout import (GC_OPEN_MAX as _GC_OPEN_MAX, HIST_BUCKETS as _HIST_BUCKETS, HIST_SUB_BITS as _HIST_SUB_BITS,
                     PPM as _PPM)
from ._reference import COUNTERS
from .invariants import EngineError, check_state

cnp.import_array()

DEF GC_MAX = 2          # must equal layout.GC_OPEN_MAX
DEF SUB_BITS = 7        # must equal layout.HIST_SUB_BITS
DEF NBUCKETS = 7424     # (64 - SUB_BITS + 1) << SUB_BITS
DEF PPM_C = 1000000
assert _GC_OPEN_MAX == GC_MAX and _HIST_SUB_BITS == SUB_BITS and _HIST_BUCKETS == NBUCKETS and _PPM == PPM_C

DEF S_FREE = 0
DEF S_OPEN_USER = 1
DEF S_OPEN_GC = 2
DEF S_CLOSED = 3
DEF S_VICTIM = 4

# counter indices: the order of _reference.COUNTERS
DEF C_REQUESTS = 0
DEF C_READS = 1
DEF C_WRITES = 2
DEF C_READ_PAGES = 3
DEF C_WRITE_PAGES = 4
DEF C_CACHE_READ_HITS = 5
DEF C_CACHE_WRITE_HITS = 6
DEF C_FLASH_READ_PAGES = 7
DEF C_RR_COUNT = 8
DEF C_RR_MOVES = 9
DEF C_GC_COUNT = 10
DEF C_GC_MOVES = 11
DEF C_ERASES = 12
DEF C_HOST_PAGES = 13
DEF C_PROGRAMMED = 14
DEF C_USER_TXNS = 15
DEF C_BLOCKED = 16
DEF C_RETRY_NS = 17
DEF C_READ_LAT = 18
DEF C_WRITE_LAT = 19
DEF N_COUNTERS = 20
assert len(COUNTERS) == N_COUNTERS and COUNTERS[C_WRITE_LAT] == "write_latency_sum_ns"

DEF H_READ = 0
DEF H_WRITE = 1
DEF H_IO = 2

ctypedef struct KeyIdx:
    int64_t key
    int64_t idx


cdef int _cmp_keyidx(const void* a, const void* b) noexcept nogil:
    cdef const KeyIdx* x = <const KeyIdx*>a
    cdef const KeyIdx* y = <const KeyIdx*>b
    if x.key != y.key:
        return -1 if x.key < y.key else 1
    if x.idx != y.idx:
        return -1 if x.idx < y.idx else 1
    return 0


cdef inline int64_t _max(int64_t a, int64_t b) noexcept nogil:
    return a if a > b else b


cdef inline int32_t _add_unique(int32_t* seen, int32_t n, int32_t v) noexcept nogil:
    """Append v to seen[0:n] unless present (first-seen order); returns the new length."""
    cdef int32_t i
    for i in range(n):
        if seen[i] == v:
            return n
    seen[n] = v
    return n + 1


cdef extern from *:
    int __builtin_clzll(unsigned long long) nogil


cdef inline int32_t _bit_length(int64_t v) noexcept nogil:
    """Bits needed for v > 0 (clz replaced a shift loop: -40 instructions per request)."""
    return 64 - __builtin_clzll(<unsigned long long>v)


cdef inline int32_t _bucket(int64_t v) noexcept nogil:
    cdef int32_t e
    if v < (1 << SUB_BITS):
        return <int32_t>v
    e = _bit_length(v) - 1
    return ((e - SUB_BITS + 1) << SUB_BITS) + <int32_t>((v >> (e - SUB_BITS)) & ((1 << SUB_BITS) - 1))


cdef class CompiledEngine:
    def __init__(self, layout, hooks, seed=0, check=False):
        L = self.layout = layout
        self.hooks = hooks
        self.k = L.k
        self.n_lanes = L.n_lanes
        self.S = L.sb_per_lane
        self.N = L.pages_per_block
        self.n_dies = L.n_dies
        self.n_chan = L.n_channels
        self.logical = L.logical_pages
        self.cache_cap = L.cache_pages
        self.gc_thr = L.gc_threshold_sb
        self.n_pages = L.n_pages
        self.t_read = L.t_read_ns
        self.t_prog = L.t_program_ns
        self.t_erase = L.t_erase_ns
        self.t_xfer = L.t_xfer_page_ns
        self.t_dram = L.t_dram_ns
        self.t_retry = L.t_retry_ns
        self.rr_thr0 = L.rr_threshold_reads
        self.rr_enabled = L.rr_enabled
        self.read_allocate = L.read_allocate
        self.check = bool(check)
        self.n_steps = len(L.retry_steps_ppm)
        # divisions by k and N sit on the per-page path; shifts replace them for powers of two
        self.k_shift = self.k.bit_length() - 1 if self.k & (self.k - 1) == 0 else -1
        self.N_shift = self.N.bit_length() - 1 if self.N & (self.N - 1) == 0 else -1
        g = hooks.page_counter_group if hooks is not None else 0
        self.counter_group = g
        n_sb = L.n_superblocks
        n_blocks = L.n_blocks
        k = self.k
        A = self.arrays = {}

        def arr(name, n, dtype, fill=0):
            a = np.full(max(int(n), 1), fill, dtype=dtype)
            A[name] = a
            return a

        cdef cnp.ndarray a
        a = A["comp_die"] = np.ascontiguousarray(L.comp_die, dtype=np.int32); self.comp_die = <int32_t*>a.data
        a = A["comp_chan"] = np.ascontiguousarray(L.comp_chan, dtype=np.int32); self.comp_chan = <int32_t*>a.data
        a = A["comp_plane"] = np.ascontiguousarray(L.comp_plane_in_die, dtype=np.int32)
        self.comp_plane = <int32_t*>a.data
        a = arr("retry_steps", self.n_steps, np.int64)
        a[:self.n_steps] = L.retry_steps_ppm
        self.retry_steps = <int64_t*>a.data
        a = arr("lmap", 2 * self.logical, np.int32, -1); self.lmap = <int32_t*>a.data
        A["l2p"] = a[0::2]
        A["lpn_slot"] = a[1::2]
        a = arr("p2l", self.n_pages, np.int32, -1); self.p2l = <int32_t*>a.data
        a = arr("sb_valid", n_sb, np.int32); self.sb_valid = <int32_t*>a.data
        a = arr("sb_state", n_sb, np.int8); self.sb_state = <int8_t*>a.data
        a = arr("block_reads", n_blocks, np.int32); self.block_reads = <int32_t*>a.data
        a = arr("rr_threshold", n_blocks, np.int32, self.rr_thr0); self.rr_threshold = <int32_t*>a.data
        a = arr("page_counters", (self.logical + g - 1) // g if g else 0, np.int32)
        self.page_counters = <int32_t*>a.data
        a = arr("free_ring", self.n_lanes * self.S, np.int32)
        a[:] = np.arange(self.n_lanes * self.S, dtype=np.int32)
        self.free_ring = <int32_t*>a.data
        a = arr("free_head", self.n_lanes, np.int32); self.free_head = <int32_t*>a.data
        a = arr("free_cnt", self.n_lanes, np.int32, self.S); self.free_cnt = <int32_t*>a.data
        a = arr("uf_sb", self.n_lanes, np.int32, -1); self.uf_sb = <int32_t*>a.data
        a = arr("uf_wp", self.n_lanes, np.int32); self.uf_wp = <int32_t*>a.data
        a = arr("gc_open", self.n_lanes * GC_MAX, np.int32, -1); self.gc_open = <int32_t*>a.data
        a = arr("gc_len", self.n_lanes, np.int32); self.gc_len = <int32_t*>a.data
        a = arr("gc_pos", self.n_lanes * k, np.int32); self.gc_pos = <int32_t*>a.data
        a = arr("gc_off", self.n_lanes * k, np.int32); self.gc_off = <int32_t*>a.data
        a = arr("die_free", self.n_dies, np.int64); self.die_free = <int64_t*>a.data
        a = arr("die_prog_end", self.n_dies, np.int64); self.die_prog_end = <int64_t*>a.data
        a = arr("chan_free", self.n_chan, np.int64); self.chan_free = <int64_t*>a.data
        a = arr("slot_lpn", self.cache_cap, np.int32, -1); self.slot_lpn = <int32_t*>a.data
        a = arr("slot_dirty", self.cache_cap, np.int8); self.slot_dirty = <int8_t*>a.data
        a = arr("slot_prev", self.cache_cap, np.int32, -1); self.slot_prev = <int32_t*>a.data
        a = arr("slot_next", self.cache_cap, np.int32, -1); self.slot_next = <int32_t*>a.data
        self.c_head = -1
        self.c_tail = -1
        self.c_size = 0
        a = arr("version", self.logical if check else 0, np.int64); self.version = <int64_t*>a.data
        a = arr("ppn_version", self.n_pages if check else 0, np.int64); self.ppn_version = <int64_t*>a.data
        self._alloc_request_buffers(64)
        kn = k * self.N
        a = arr("m_comp", kn, np.int32); self.m_comp = <int32_t*>a.data
        a = arr("m_off", kn, np.int32); self.m_off = <int32_t*>a.data
        a = arr("m_lpn", kn, np.int32); self.m_lpn = <int32_t*>a.data
        a = arr("m_dest", kn, np.int32); self.m_dest = <int32_t*>a.data
        a = arr("m_newppn", kn, np.int64); self.m_newppn = <int64_t*>a.data
        a = arr("m_key", 2 * kn, np.int64); self.m_key = <int64_t*>a.data
        a = arr("counters", N_COUNTERS, np.int64); self.cnt = <int64_t*>a.data
        a = arr("hist", 3 * NBUCKETS, np.int64); self.hist = <int64_t*>a.data
        self.rr_events = []
        self.gc_events = []
        self.in_gc = False
        self.user_lane = 0
        self.error = None
        self.h_on_rr = hooks.on_read_reclaim if hooks is not None else None
        self.h_place = hooks.place_migration if hooks is not None else None
        self.h_choose = hooks.choose_gc_victim if hooks is not None else None
        kinds = hooks.place_kinds if hooks is not None else ()
        self.place_rr = self.h_place is not None and "rr" in kinds
        self.place_gc = self.h_place is not None and "gc" in kinds

    def _alloc_request_buffers(self, int32_t cap):
        cdef cnp.ndarray a
        A = self.arrays
        self.buf_cap = cap
        a = A["buf_lpn"] = np.zeros(cap, np.int32); self.buf_lpn = <int32_t*>a.data
        a = A["buf_ppn"] = np.zeros(cap, np.int32); self.buf_ppn = <int32_t*>a.data
        a = A["buf_evict"] = np.zeros(cap, np.int32); self.buf_evict = <int32_t*>a.data
        a = A["buf_pending"] = np.zeros(cap, np.int32); self.buf_pending = <int32_t*>a.data
        a = A["tx_die"] = np.zeros(cap, np.int32); self.tx_die = <int32_t*>a.data
        a = A["tx_off"] = np.zeros(cap, np.int32); self.tx_off = <int32_t*>a.data
        a = A["tx_mask"] = np.zeros(cap, np.uint64); self.tx_mask = <uint64_t*>a.data
        a = A["tx_chan"] = np.zeros(cap, np.int32); self.tx_chan = <int32_t*>a.data
        a = A["tx_n"] = np.zeros(cap, np.int32); self.tx_n = <int32_t*>a.data
        a = A["tx_extra"] = np.zeros(cap, np.int64); self.tx_extra = <int64_t*>a.data

    # ================================================================ allocation
    cdef int32_t _alloc(self, int32_t lane) except -1 nogil:
        cdef int32_t sb
        if self.free_cnt[lane] == 0:
            with gil:
                raise EngineError(
                    f"lane {lane} has no free superblock left: the device has too little spare space for this "
                    f"workload (raise gc.overprovisioning_ratio or shrink the footprint)")
        sb = self.free_ring[lane * self.S + self.free_head[lane]]
        self.free_head[lane] = (self.free_head[lane] + 1) % self.S
        self.free_cnt[lane] -= 1
        return sb

    cdef void _free_push(self, int32_t lane, int32_t sb) noexcept nogil:
        self.free_ring[lane * self.S + (self.free_head[lane] + self.free_cnt[lane]) % self.S] = sb
        self.free_cnt[lane] += 1

    cdef int64_t _user_slot(self, int64_t t) except -1 nogil:
        cdef int32_t k = self.k, N = self.N
        cdef int32_t lane = self.user_lane
        cdef int32_t sb, wp
        cdef int64_t ppn, q, r
        if self.uf_sb[lane] < 0:
            sb = self._alloc(lane)
            self.sb_state[sb] = S_OPEN_USER
            self.uf_sb[lane] = sb
            self.uf_wp[lane] = 0
            self._maybe_gc(lane, t)
        sb = self.uf_sb[lane]
        wp = self.uf_wp[lane]
        q = self._div_k(wp)
        r = wp - q * k
        ppn = (<int64_t>sb * k + r) * N + q
        wp += 1
        self.uf_wp[lane] = wp
        if wp == k * N:
            self.sb_state[sb] = S_CLOSED
            self.uf_sb[lane] = -1
        if wp == (q + 1) * k:  # the superpage is complete
            self.user_lane = (lane + 1) % self.n_lanes
        return ppn

    cdef int64_t _gc_slot(self, int32_t lane, int32_t c) except -1 nogil:
        cdef int32_t k = self.k, N = self.N
        cdef int32_t* pos = self.gc_pos + lane * k
        cdef int32_t* off = self.gc_off + lane * k
        cdef int32_t* opened = self.gc_open + lane * GC_MAX
        cdef int32_t sb, i, mn
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
                self._gc_close_front(lane)
            else:
                sb = self._alloc(lane)
                self.sb_state[sb] = S_OPEN_GC
                opened[self.gc_len[lane]] = sb
                self.gc_len[lane] += 1
        while self.gc_len[lane] > 0:
            mn = pos[0]
            for i in range(1, k):
                if pos[i] < mn:
                    mn = pos[i]
            if mn <= 0:
                break
            self._gc_close_front(lane)
        return ppn

    cdef void _gc_close_front(self, int32_t lane) noexcept nogil:
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

    cdef void _detach_frontier(self, int32_t sb) noexcept nogil:
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

    cdef inline int64_t _div_k(self, int64_t x) noexcept nogil:
        return x >> self.k_shift if self.k_shift >= 0 else x // self.k

    cdef inline int64_t _div_N(self, int64_t x) noexcept nogil:
        return x >> self.N_shift if self.N_shift >= 0 else x // self.N

    # ================================================================ timing
    cdef int64_t _sched_read(self, int32_t die, int32_t chan, int32_t n_xfer, int64_t t,
                                    int64_t extra) noexcept nogil:
        cdef int64_t end = _max(t, self.die_free[die]) + self.t_read + extra
        if n_xfer:
            end = _max(end, self.chan_free[chan]) + n_xfer * self.t_xfer
            self.chan_free[chan] = end
        self.die_free[die] = end
        return end

    cdef int64_t _sched_program(self, int32_t die, int32_t chan, int32_t n_xfer, int64_t t) noexcept nogil:
        cdef int64_t start = _max(t, self.die_free[die])
        if n_xfer:
            start = _max(start, self.chan_free[chan]) + n_xfer * self.t_xfer
            self.chan_free[chan] = start
        cdef int64_t end = start + self.t_prog
        self.die_free[die] = end
        self.die_prog_end[die] = end
        return end

    cdef int64_t _sched_erase(self, int32_t die, int64_t t) noexcept nogil:
        cdef int64_t end = _max(t, self.die_free[die]) + self.t_erase
        self.die_free[die] = end
        return end

    cdef int64_t _retries(self, int64_t blk) noexcept nogil:
        cdef int64_t r = <int64_t>self.block_reads[blk] * PPM_C
        cdef int64_t thr = self.rr_threshold[blk]
        cdef int64_t n = 0
        cdef int32_t i
        for i in range(self.n_steps):
            if r >= self.retry_steps[i] * thr:
                n += 1
        return n

    cdef int32_t _group(self, int32_t n, bint with_retry) noexcept nogil:
        """Greedy multi-plane grouping of buf_ppn[0:n] into tx_*; returns the count."""
        cdef int32_t k = self.k, N = self.N
        cdef int32_t ntx = 0, i, j, die, plane, off, idx
        cdef int64_t ppn, blk, extra, sbq
        for i in range(n):
            ppn = self.buf_ppn[i]
            blk = self._div_N(ppn)
            off = <int32_t>(ppn - blk * N)
            sbq = self._div_k(blk)
            idx = <int32_t>((sbq // self.S) * k + (blk - sbq * k))
            die = self.comp_die[idx]
            plane = self.comp_plane[idx]
            extra = self._retries(blk) * self.t_retry if with_retry and self.n_steps else 0
            for j in range(ntx):
                if self.tx_die[j] == die and self.tx_off[j] == off and not ((self.tx_mask[j] >> plane) & 1):
                    self.tx_mask[j] |= (<uint64_t>1) << plane
                    self.tx_n[j] += 1
                    if extra > self.tx_extra[j]:
                        self.tx_extra[j] = extra
                    break
            else:
                self.tx_die[ntx] = die
                self.tx_off[ntx] = off
                self.tx_mask[ntx] = (<uint64_t>1) << plane
                self.tx_chan[ntx] = self.comp_chan[idx]
                self.tx_n[ntx] = 1
                self.tx_extra[ntx] = extra
                ntx += 1
        return ntx

    # ================================================================ cache
    cdef void _c_unlink(self, int32_t s) noexcept nogil:
        cdef int32_t p = self.slot_prev[s], q = self.slot_next[s]
        if p >= 0:
            self.slot_next[p] = q
        else:
            self.c_head = q
        if q >= 0:
            self.slot_prev[q] = p
        else:
            self.c_tail = p

    cdef void _c_push_head(self, int32_t s) noexcept nogil:
        self.slot_prev[s] = -1
        self.slot_next[s] = self.c_head
        if self.c_head >= 0:
            self.slot_prev[self.c_head] = s
        self.c_head = s
        if self.c_tail < 0:
            self.c_tail = s

    cdef void _c_touch(self, int32_t s) noexcept nogil:
        if self.c_head != s:
            self._c_unlink(s)
            self._c_push_head(s)

    cdef int32_t _c_insert(self, int32_t lpn, int8_t dirty, int32_t* evicted, int32_t n_ev) noexcept nogil:
        """Insert lpn as most recent; a dirty LRU victim is appended to evicted. Returns new n_ev."""
        cdef int32_t s
        if self.c_size >= self.cache_cap:
            s = self.c_tail
            self._c_unlink(s)
            self.lmap[2 * self.slot_lpn[s] + 1] = -1
            if self.slot_dirty[s]:
                evicted[n_ev] = self.slot_lpn[s]
                n_ev += 1
        else:
            s = self.c_size
            self.c_size += 1
        self.slot_lpn[s] = lpn
        self.slot_dirty[s] = dirty
        self.lmap[2 * lpn + 1] = s
        self._c_push_head(s)
        return n_ev

    # ================================================================ flash writes
    cdef void _remap(self, int32_t lpn, int64_t ppn) noexcept nogil:
        cdef int64_t old = self.lmap[2 * lpn]
        cdef int64_t per_sb = <int64_t>self.N * self.k
        if old >= 0:
            self.p2l[old] = -1
            self.sb_valid[old // per_sb] -= 1
        self.lmap[2 * lpn] = <int32_t>ppn
        self.p2l[ppn] = lpn
        self.sb_valid[ppn // per_sb] += 1

    cdef int64_t _program_pages(self, int32_t* lpns, int32_t n, int64_t t) except -2 nogil:
        """Write lpns[0:n] through the user frontier at t; returns the last program end."""
        cdef int32_t i, ntx
        cdef int64_t ppn, end = t
        cdef int32_t* dst = self.buf_ppn
        for i in range(n):
            ppn = self._user_slot(t)
            self._remap(lpns[i], ppn)
            if self.check:
                self.ppn_version[ppn] = self.version[lpns[i]]
            dst[i] = <int32_t>ppn
        self.cnt[C_PROGRAMMED] += n
        ntx = self._group(n, False)
        for i in range(ntx):
            end = _max(end, self._sched_program(self.tx_die[i], self.tx_chan[i], self.tx_n[i], t))
            self.cnt[C_USER_TXNS] += 1
        return end

    # ================================================================ GC and RR
    cdef int _maybe_gc(self, int32_t lane, int64_t t) except -1 nogil:
        cdef int32_t victim
        cdef int32_t full = self.k * self.N
        cdef int32_t it
        if self.in_gc:
            return 0
        self.in_gc = True
        for it in range(self.S):  # at most one lane's worth of victims per trigger
            if self.free_cnt[lane] >= self.gc_thr:
                break
            victim = self._gc_victim(lane, t)
            if victim < 0 or self.sb_valid[victim] >= full:
                break
            self._migrate(victim, False, t)
        self.in_gc = False
        return 0

    cdef int32_t _gc_victim(self, int32_t lane, int64_t t) except -2 nogil:
        cdef int32_t S = self.S, r, sb, best = -1, best_valid = 0
        if self.h_choose is not None:
            with gil:
                states = self.arrays["sb_state"][lane * S:(lane + 1) * S]
                cand = np.flatnonzero(states == S_CLOSED) + lane * S
                if cand.size == 0:
                    return -1
                v = int(self.h_choose(self.state_view(t), lane, cand, self.arrays["sb_valid"][cand].copy()))
                if v not in set(cand.tolist()):
                    raise EngineError(f"policy choose_gc_victim returned {v}, not a closed superblock of lane {lane}")
                return v
        for r in range(S):
            sb = lane * S + r
            if self.sb_state[sb] == S_CLOSED and (best < 0 or self.sb_valid[sb] < best_valid):
                best = sb
                best_valid = self.sb_valid[sb]
        return best

    cdef int _call_place(self, bint is_rr, int32_t victim, int32_t n, int64_t t) except -1 with gil:
        A = self.arrays
        comps = A["m_comp"][:n].copy()
        dest = self.h_place(self.state_view(t), "rr" if is_rr else "gc", victim, comps,
                            A["m_off"][:n].copy(), A["m_lpn"][:n].copy())
        dest = np.asarray(dest)
        if dest.shape != comps.shape or (dest.size and (dest.min() < 0 or dest.max() >= self.k)):
            raise EngineError(f"policy place_migration must return {n} component indices in "
                              f"[0, {self.k}), got shape {dest.shape}")
        A["m_dest"][:n] = dest
        return 0

    cdef int _migrate(self, int32_t victim, bint is_rr, int64_t t) except -1 nogil:
        cdef int32_t k = self.k, N = self.N, S = self.S
        cdef int32_t lane = victim // S
        cdef int32_t base = lane * k
        cdef int32_t n = 0, off, c, lpn, i, j, q, d, chan, xfer, q0, q1, nd
        cdef int64_t extra, e, ppn, key
        cdef int32_t dies_seen[64]
        cdef KeyIdx* ki = <KeyIdx*>self.m_key
        self._detach_frontier(victim)
        self.sb_state[victim] = S_VICTIM
        with gil:
            self.cur_reads = self.arrays["block_reads"][victim * k:(victim + 1) * k].copy()
        for off in range(N):
            for c in range(k):
                lpn = self.p2l[(<int64_t>victim * k + c) * N + off]
                if lpn >= 0:
                    self.m_comp[n] = c
                    self.m_off[n] = off
                    self.m_lpn[n] = lpn
                    self.m_dest[n] = c
                    n += 1
        if n and ((is_rr and self.place_rr) or (not is_rr and self.place_gc)):
            self._call_place(is_rr, victim, n, t)
        # reads: one transaction per (source row, die)
        i = 0
        while i < n:
            j = i
            while j < n and self.m_off[j] == self.m_off[i]:
                j += 1
            nd = 0
            for q in range(i, j):
                nd = _add_unique(dies_seen, nd, self.comp_die[base + self.m_comp[q]])
            for c in range(nd):
                d = dies_seen[c]
                extra = 0
                xfer = 0
                chan = 0
                for q in range(i, j):
                    if self.comp_die[base + self.m_comp[q]] == d:
                        e = self._retries(<int64_t>victim * k + self.m_comp[q])
                        if e > extra:
                            extra = e
                        chan = self.comp_chan[base + self.m_comp[q]]
                        if self.comp_die[base + self.m_dest[q]] != d:
                            xfer += 1
                self._sched_read(d, chan, xfer, t, extra * self.t_retry)
            i = j
        # writes in source order, then one program per (dest superblock, offset, die)
        for q in range(n):
            ppn = self._gc_slot(lane, self.m_dest[q])
            if self.check:
                self.ppn_version[ppn] = self.ppn_version[self.lmap[2 * self.m_lpn[q]]]
            self._remap(self.m_lpn[q], ppn)
            self.m_newppn[q] = ppn
        for q in range(n):
            ppn = self.m_newppn[q]
            ki[q].key = ((ppn // N // k) * N + ppn % N) * self.n_dies + self.comp_die[base + self.m_dest[q]]
            ki[q].idx = q
        if n:
            qsort(ki, n, sizeof(KeyIdx), _cmp_keyidx)
        q0 = 0
        while q0 < n:
            q1 = q0
            xfer = 0
            key = ki[q0].key
            d = self.comp_die[base + self.m_dest[ki[q0].idx]]
            while q1 < n and ki[q1].key == key:
                q = <int32_t>ki[q1].idx
                if self.comp_die[base + self.m_comp[q]] != d:
                    xfer += 1
                q1 += 1
            self._sched_program(d, self.comp_chan[base + self.m_dest[ki[q0].idx]], xfer, t)
            q0 = q1
        self.cnt[C_PROGRAMMED] += n
        nd = 0
        for c in range(k):
            nd = _add_unique(dies_seen, nd, self.comp_die[base + c])
        for c in range(nd):
            self._sched_erase(dies_seen[c], t)
        for c in range(k):
            self.block_reads[victim * k + c] = 0
            self.rr_threshold[victim * k + c] = <int32_t>self.rr_thr0
        self.sb_state[victim] = S_FREE
        self._free_push(lane, victim)
        self.cnt[C_ERASES] += k
        if is_rr:
            self.cnt[C_RR_COUNT] += 1
            self.cnt[C_RR_MOVES] += n
        else:
            self.cnt[C_GC_COUNT] += 1
            self.cnt[C_GC_MOVES] += n
        with gil:
            if is_rr:
                self.rr_events.append((t, victim, lane, self.cur_reads, n, self.cur_routine))
            else:
                self.gc_events.append((t, victim, lane, self.cur_reads, n, "greedy"))
            if self.check:
                self.check_invariants()
        return 0

    cdef int _read_reclaim(self, int32_t sb, int64_t t) except -1 nogil:
        cdef int32_t k = self.k, c
        cdef bint due = False
        if self.sb_state[sb] == S_FREE or self.sb_state[sb] == S_VICTIM:
            return 0
        for c in range(k):
            if self.block_reads[sb * k + c] >= self.rr_threshold[sb * k + c]:
                due = True
        if not due:
            return 0
        with gil:
            self.cur_routine = "default"
            if self.h_on_rr is not None:
                self.cur_routine = str(self.h_on_rr(self.state_view(t), sb) or "default")
        self._migrate(sb, True, t)
        self._maybe_gc(sb // self.S, t)
        return 0

    # ================================================================ requests
    cdef void _record(self, int32_t h, int64_t lat) noexcept nogil:
        cdef int32_t b = _bucket(lat)
        self.hist[h * NBUCKETS + b] += 1
        self.hist[H_IO * NBUCKETS + b] += 1
        self.cnt[C_READ_LAT if h == H_READ else C_WRITE_LAT] += lat

    cdef int _read(self, int64_t t, int64_t lpn0, int64_t lpn1) except -1 nogil:
        cdef int32_t nm = 0, ntx, i, s, np_ = 0, n_ev = 0, g = self.counter_group
        cdef int64_t lpn, done = t + self.t_dram, blk, ppn
        cdef int32_t sb
        cdef bint blocked = False, seen
        cdef int64_t hits = 0
        self.cnt[C_READS] += 1
        self.cnt[C_READ_PAGES] += lpn1 - lpn0 + 1
        for lpn in range(lpn0, lpn1 + 1):
            s = self.lmap[2 * lpn + 1]
            if s >= 0:
                self._c_touch(s)
                hits += 1
            else:
                self.buf_lpn[nm] = <int32_t>lpn
                nm += 1
        self.cnt[C_CACHE_READ_HITS] += hits
        if nm:
            for i in range(nm):
                self.buf_ppn[i] = self.lmap[2 * self.buf_lpn[i]]
                if self.check and (self.buf_ppn[i] < 0 or
                                   self.ppn_version[self.buf_ppn[i]] != self.version[self.buf_lpn[i]]):
                    with gil:
                        raise EngineError(f"invariant: read of LPN {self.buf_lpn[i]} did not return its latest write")
            ntx = self._group(nm, True)
            for i in range(ntx):
                if self.die_prog_end[self.tx_die[i]] > t:
                    blocked = True
                done = _max(done, self._sched_read(self.tx_die[i], self.tx_chan[i], self.tx_n[i], t,
                                                   self.tx_extra[i]))
                self.cnt[C_RETRY_NS] += self.tx_extra[i]
                self.cnt[C_USER_TXNS] += 1
            if blocked:
                self.cnt[C_BLOCKED] += 1
            self.cnt[C_FLASH_READ_PAGES] += nm
            for i in range(nm):
                blk = self._div_N(self.buf_ppn[i])
                self.block_reads[blk] += 1
                if self.rr_enabled and self.block_reads[blk] >= self.rr_threshold[blk]:
                    sb = <int32_t>self._div_k(blk)
                    seen = False
                    for s in range(np_):
                        if self.buf_pending[s] == sb:
                            seen = True
                            break
                    if not seen:
                        self.buf_pending[np_] = sb
                        np_ += 1
            if g:
                for i in range(nm):
                    self.page_counters[self.buf_lpn[i] // g] += 1
            if self.cache_cap and self.read_allocate:
                for i in range(nm):
                    n_ev = self._c_insert(self.buf_lpn[i], 0, self.buf_evict, n_ev)
                if n_ev:
                    self._program_pages(self.buf_evict, n_ev, t)
            for i in range(np_):
                self._read_reclaim(self.buf_pending[i], done)
        self._record(H_READ, done - t)
        return 0

    cdef int _write(self, int64_t t, int64_t lpn0, int64_t lpn1) except -1 nogil:
        cdef int32_t n = <int32_t>(lpn1 - lpn0 + 1), n_fl = 0, s
        cdef int64_t lpn, done = t + self.t_dram
        self.cnt[C_WRITES] += 1
        if self.check:
            for lpn in range(lpn0, lpn1 + 1):
                self.version[lpn] += 1
        self.cnt[C_WRITE_PAGES] += n
        self.cnt[C_HOST_PAGES] += n
        if self.cache_cap:
            for lpn in range(lpn0, lpn1 + 1):
                s = self.lmap[2 * lpn + 1]
                if s >= 0:
                    self.slot_dirty[s] = 1
                    self._c_touch(s)
                    self.cnt[C_CACHE_WRITE_HITS] += 1
                else:
                    n_fl = self._c_insert(<int32_t>lpn, 1, self.buf_lpn, n_fl)
        else:
            for lpn in range(lpn0, lpn1 + 1):
                self.buf_lpn[n_fl] = <int32_t>lpn
                n_fl += 1
        if n_fl:
            done = _max(done, self._program_pages(self.buf_lpn, n_fl, t))
        self._record(H_WRITE, done - t)
        return 0

    cdef int _run_loop(self, const int64_t* tns, const int64_t* off, const int64_t* size, const uint8_t* wr,
                       int64_t n, int32_t repeat) except -1 nogil:
        cdef int64_t duration = tns[n - 1]
        cdef int64_t period = duration + _max(1, duration // _max(1, n - 1))
        cdef int64_t ps = self.layout_page_size
        cdef int64_t shift, t, lpn0, lpn1, i
        cdef int32_t r
        for r in range(repeat):
            shift = r * period
            for i in range(n):
                t = tns[i] + shift
                lpn0 = off[i] // ps
                lpn1 = (off[i] + size[i] - 1) // ps
                self.cnt[C_REQUESTS] += 1
                if wr[i]:
                    self._write(t, lpn0, lpn1)
                else:
                    self._read(t, lpn0, lpn1)
        return 0

    # ================================================================ public (Python)
    def precondition(self, int64_t fill_pages, warmup_lpns):
        cdef int64_t lpn
        cdef cnp.ndarray w = np.ascontiguousarray(warmup_lpns, dtype=np.int64)
        cdef int64_t* wp = <int64_t*>w.data
        cdef int64_t i, nw = len(w)
        self.n_filled = fill_pages
        with nogil:
            for lpn in range(fill_pages):
                self._remap(<int32_t>lpn, self._user_slot(0))
            for i in range(nw):
                self._remap(<int32_t>wp[i], self._user_slot(0))
        A = self.arrays
        A["counters"][:] = 0
        self.gc_events.clear()
        self.rr_events.clear()
        A["die_free"][:] = 0
        A["die_prog_end"][:] = 0
        A["chan_free"][:] = 0
        A["block_reads"][:] = 0

    def run(self, time_ns, offset, size, is_write, int repeat=1):
        cdef cnp.ndarray t = np.ascontiguousarray(time_ns, dtype=np.int64)
        cdef cnp.ndarray o = np.ascontiguousarray(offset, dtype=np.int64)
        cdef cnp.ndarray s = np.ascontiguousarray(size, dtype=np.int64)
        cdef cnp.ndarray w = np.ascontiguousarray(is_write, dtype=np.uint8)
        cdef int64_t n = len(t)
        if n == 0:
            return
        ps = self.layout.page_size_bytes
        max_pages = int(((o + s - 1) // ps - o // ps).max()) + 1
        if max_pages > self.buf_cap:
            self._alloc_request_buffers(max_pages)
        self.layout_page_size = ps
        with nogil:
            self._run_loop(<int64_t*>t.data, <int64_t*>o.data, <int64_t*>s.data, <uint8_t*>w.data, n, repeat)

    def state_view(self, t):
        from ..policy import EngineState
        A = self.arrays
        nl = self.logical
        return EngineState(
            layout=self.layout, now_ns=int(t), block_reads=A["block_reads"][:self.layout.n_blocks],
            rr_threshold=A["rr_threshold"][:self.layout.n_blocks], sb_valid=A["sb_valid"][:self.layout.n_superblocks],
            sb_state=A["sb_state"][:self.layout.n_superblocks], l2p=A["l2p"][:nl], p2l=A["p2l"][:self.n_pages],
            page_counters=A["page_counters"][:(nl + self.counter_group - 1) // self.counter_group
                                             if self.counter_group else 0],
            die_free_ns=A["die_free"][:self.n_dies])

    def results(self):
        A = self.arrays
        counters = {name: int(A["counters"][i]) for i, name in enumerate(COUNTERS)}
        h = A["hist"]
        hist = {"read": h[:NBUCKETS].copy(), "write": h[NBUCKETS:2 * NBUCKETS].copy(),
                "io": h[2 * NBUCKETS:].copy()}
        return {"counters": counters, "hist": hist, "rr_events": list(self.rr_events),
                "gc_events": list(self.gc_events)}

    def check_invariants(self):
        v = self.state_view(0)
        check_state(self.layout, v.l2p, v.p2l, v.sb_valid, v.sb_state, self.n_filled)
