# FTL layer: page mapping, free superblocks and the write frontiers.
# Twin: ftl_py.py.  Ids follow layout.py: sb = lane * S + row,
# blk = sb * k + c, ppn = blk * N + off.

from libc.stdint cimport int8_t, int32_t, int64_t
cimport cython

from .common cimport *

from ..options.pv_timing cimport PVTiming
from .sched cimport Scheduler


@cython.final
cdef class Ftl:
    cdef int32_t k, n_lanes, S, N, logical, gc_thr
    cdef int64_t n_pages
    cdef int32_t k_shift, N_shift      # log2 of k / N when a power of two, else -1 (divide instead)
    cdef int32_t per_sb, sb_shift      # pages per superblock (N*k), and its log2 or -1
    cdef Scheduler sched               # told when a superblock whose erase is not booked is reused
    cdef PVTiming pv                   # process variation (None when off): reassembles allocated superblocks
    cdef object _keep                  # NumPy arrays that own the memory below

    cdef int32_t* lmap                 # [logical*2] per LPN: ppn (-1 unmapped), cache slot (-1 absent);
                                       # interleaved so a lookup touches one cache line
    cdef int32_t* p2l                  # [n_pages] LPN in each ppn, -1 invalid/free
    cdef int32_t* sb_valid             # [n_sb] valid pages per superblock
    cdef int8_t* sb_state              # [n_sb] S_FREE / S_OPEN_USER / S_OPEN_GC / S_CLOSED / S_VICTIM
    cdef int32_t* free_ring            # [n_lanes*S] FIFO of free superblocks per lane
    cdef int32_t* free_head            # [n_lanes]
    cdef int32_t* free_cnt             # [n_lanes]
    cdef int32_t* uf_sb                # [n_lanes] user frontier superblock, -1 none
    cdef int32_t* uf_wp                # [n_lanes] next page index in it
    cdef int32_t user_lane             # lane that takes the next user superpage
    cdef int32_t* gc_open              # [n_lanes*GC_MAX] open GC/RR frontier superblocks, oldest first
    cdef int32_t* gc_len               # [n_lanes]
    cdef int32_t* gc_pos               # [n_lanes*k] per component: index into gc_open
    cdef int32_t* gc_off               # [n_lanes*k] per component: next page offset
    cdef int32_t* gc_due               # [n_lanes] GC victims owed: allocations made below the GC threshold
    cdef int32_t kick                  # lane whose user frontier just took a superblock, -1 none
    # gc.free_pool = "erased" (all zero otherwise): free superblocks whose erase has not ended
    cdef int32_t* unerased             # [n_lanes] such superblocks on the lane's free list
    cdef int64_t* sb_tag               # [n_sb] the erase event (Scheduler.EraseEv.tag) it waits for, 0 none
    cdef int32_t max_in_flight         # gc.max_victims_in_flight
    # invariant mode (NULL otherwise): version stamps
    cdef bint check
    cdef int64_t* version              # [logical] host writes per LPN
    cdef int64_t* ppn_version          # [n_pages] version stored in each ppn

    cdef int32_t alloc(self, int32_t lane, bint gc) except -1 nogil         # pop a free superblock, or raise
    cdef inline int32_t pool_size(self, int32_t lane) noexcept nogil:
        """Free superblocks the GC thresholds count (gc.free_pool = "erased": erased ones only)."""
        return self.free_cnt[lane] - self.unerased[lane]
    cdef inline bint below_gc(self, int32_t lane) noexcept nogil:
        return self.pool_size(lane) < self.gc_thr
    cdef inline bint writes_held(self, int32_t lane) noexcept nogil:
        """gc.write_stall: the lane is below the GC threshold with a victim whose erase has not ended."""
        return self.below_gc(lane) and self.unerased[lane] > 0
    cdef inline int32_t lane_of(self, int64_t ppn) noexcept nogil:
        return <int32_t>(div_pow2(ppn, self.sb_shift, self.per_sb) // self.S)
    cdef void free_push(self, int32_t lane, int32_t sb) noexcept nogil       # erased superblock to the back
    cdef inline int64_t user_slot(self) except -1 nogil:
        cdef int32_t k = self.k, N = self.N
        cdef int32_t lane = self.user_lane
        cdef int32_t sb, wp
        cdef int64_t ppn, q, r
        if self.uf_sb[lane] < 0:
            sb = self.alloc(lane, False)
            self.sb_state[sb] = S_OPEN_USER
            self.uf_sb[lane] = sb
            self.uf_wp[lane] = 0
            self.kick = lane
        sb = self.uf_sb[lane]
        wp = self.uf_wp[lane]
        q = self.div_k(wp)
        r = wp - q * k
        ppn = (<int64_t>sb * k + r) * N + q
        wp += 1
        self.uf_wp[lane] = wp
        if wp == k * N:
            self.sb_state[sb] = S_CLOSED
            self.uf_sb[lane] = -1
        if wp == (q + 1) * k:  # the superpage is complete
            self.user_lane = 0 if lane + 1 == self.n_lanes else lane + 1
        return ppn
    cdef inline int64_t gc_slot(self, int32_t lane, int32_t c) except -1 nogil:
        """Next GC/RR-frontier ppn of component c (of another column when c is full in
        every open superblock and no more may open: spill_column).  Inline: the common
        case, where c still writes its lane's oldest open superblock (so none can be
        closed) and it has room; the rest is gc_slot_full."""
        cdef int32_t i = lane * self.k + c
        cdef int32_t o = self.gc_off[i]
        if self.gc_pos[i] == 0 and self.gc_len[lane] > 0 and o < self.N:
            self.gc_off[i] = o + 1
            return (<int64_t>self.gc_open[lane * GC_MAX] * self.k + c) * self.N + o
        return self.gc_slot_full(lane, c)
    cdef int64_t gc_slot_full(self, int32_t lane, int32_t c) except -1 nogil
    cdef int gc_row(self, int32_t lane, int32_t* cols, int32_t j, bint fixed) noexcept nogil  # gc.aligned_moves, RR
    cdef void gc_plan(self, int32_t lane, const int32_t* offs, int32_t* cols, int32_t* order, int32_t n,
                      int32_t* rows) noexcept nogil                           # gc.aligned_moves, GC
    cdef void gc_keys(self, int32_t lane, int64_t* keys) noexcept nogil      # each column's next page, pos*N+off
    cdef int open_gc(self, int32_t lane) except -1 nogil                     # open a new GC superblock
    cdef int32_t spill_column(self, int32_t lane) noexcept nogil             # a column of the oldest open GC superblock with room
    cdef void gc_close_front(self, int32_t lane) noexcept nogil              # close the oldest open GC superblock
    cdef void detach_frontier(self, int32_t sb) noexcept nogil               # a victim stops being a frontier
    cdef inline void remap(self, int32_t lpn, int64_t ppn) noexcept nogil:
        cdef int64_t old = self.lmap[2 * lpn]
        if old >= 0:
            self.sb_valid[div_pow2(old, self.sb_shift, self.per_sb)] -= 1
        self.move_mapped(lpn, old, ppn)
    cdef inline void move_mapped(self, int32_t lpn, int64_t old, int64_t ppn) noexcept nogil:
        """remap() of a page known to be at ``old`` (lmap[2*lpn] == old, -1 unmapped), with
        old's superblock count left to the caller: a migration moves a victim's pages, and
        this spares each one the load of its mapping entry (a cache miss) that remap() waits on."""
        if old >= 0:
            self.p2l[old] = -1
        self.lmap[2 * lpn] = <int32_t>ppn
        self.p2l[ppn] = lpn
        self.sb_valid[div_pow2(ppn, self.sb_shift, self.per_sb)] += 1
    cdef inline int64_t div_k(self, int64_t x) noexcept nogil:
        return div_pow2(x, self.k_shift, self.k)
    cdef inline int64_t div_N(self, int64_t x) noexcept nogil:
        return div_pow2(x, self.N_shift, self.N)
    cdef inline int32_t comp_of_block(self, int64_t b) noexcept nogil:
        """The component-block index (0..k-1) of block ``b`` in its superblock."""
        return <int32_t>(b - self.div_k(b) * self.k)
    cdef inline int32_t comp_of(self, int64_t ppn) noexcept nogil:
        """The component-block index (0..k-1) of page ``ppn`` in its superblock."""
        return self.comp_of_block(self.div_N(ppn))
