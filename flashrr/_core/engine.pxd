# The compiled engine: a map of its state.  The model is documented in
# docs/model.md; _reference.py is its pure-Python twin, line for line in intent.
# All times are int64 ns; ids follow flashrr/_core/layout.py
# (sb = lane * S + row, blk = sb * k + c, ppn = blk * N + off).

from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint64_t
cimport cython


# final: cdef methods are called directly (no vtable), so the C compiler can inline them.
@cython.final
cdef class CompiledEngine:
    # ---- geometry and timing (copied from Layout)
    cdef int32_t k, n_lanes, S, N, n_dies, n_chan, logical, cache_cap, gc_thr, n_steps
    cdef int64_t n_pages, t_read, t_prog, t_erase, t_xfer, t_dram, t_retry, rr_thr0
    cdef bint rr_enabled, check, read_allocate  # read_allocate: cache read misses
    cdef int32_t k_shift, N_shift     # log2 of k / N when a power of two, else -1 (divide instead)
    cdef int32_t* comp_die            # [n_lanes*k] die of component c of lane l
    cdef int32_t* comp_chan           # [n_lanes*k] channel of component c of lane l
    cdef int32_t* comp_plane          # [n_lanes*k] plane index within its die
    cdef int64_t* retry_steps         # [n_steps] retry thresholds, ppm of the RR threshold

    # ---- FTL state
    cdef int32_t* lmap                # [logical*2] per LPN: ppn (-1 unmapped), cache slot (-1 absent);
                                      # interleaved so a lookup touches one cache line
    cdef int32_t* p2l                 # [n_pages] LPN in each ppn, -1 invalid/free
    cdef int32_t* sb_valid            # [n_sb] valid pages per superblock
    cdef int8_t* sb_state             # [n_sb] SB_FREE / OPEN_USER / OPEN_GC / CLOSED / VICTIM
    cdef int32_t* block_reads         # [n_blocks] flash reads since erase
    cdef int32_t* rr_threshold        # [n_blocks] per-block RR threshold (policies may write)
    cdef int32_t* page_counters       # [groups] flash reads per LPN group (feature)
    cdef int32_t counter_group        # pages per counter, 0 = feature off
    cdef int32_t* free_ring           # [n_lanes*S] FIFO of free superblocks per lane
    cdef int32_t* free_head           # [n_lanes]
    cdef int32_t* free_cnt            # [n_lanes]
    cdef int32_t* uf_sb               # [n_lanes] user frontier superblock, -1 none
    cdef int32_t* uf_wp               # [n_lanes] next page index in it
    cdef int32_t user_lane            # lane that takes the next user superpage
    cdef int32_t* gc_open             # [n_lanes*GC_OPEN_MAX] open GC/RR frontier superblocks, oldest first
    cdef int32_t* gc_len              # [n_lanes]
    cdef int32_t* gc_pos              # [n_lanes*k] per component: index into gc_open
    cdef int32_t* gc_off              # [n_lanes*k] per component: next page offset
    cdef bint in_gc

    # ---- timing resources
    cdef int64_t* die_free            # [n_dies] busy-until
    cdef int64_t* die_prog_end        # [n_dies] end of the latest program
    cdef int64_t* chan_free           # [n_chan] busy-until

    # ---- DRAM cache: LRU doubly linked list over slots; head = most recent
    cdef int32_t* slot_lpn            # [cache_cap]
    cdef int8_t* slot_dirty           # [cache_cap]
    cdef int32_t* slot_prev           # [cache_cap] towards the head
    cdef int32_t* slot_next           # [cache_cap] towards the tail
    cdef int32_t c_head, c_tail, c_size

    # ---- invariant mode: version stamps
    cdef int64_t* version             # [logical] host writes per LPN
    cdef int64_t* ppn_version         # [n_pages] version stored in each ppn

    # ---- per-request scratch (sized by the largest request)
    cdef int32_t* buf_lpn             # misses / flush list
    cdef int32_t* buf_ppn
    cdef int32_t* buf_evict           # dirty pages evicted by this request
    cdef int32_t* buf_pending         # superblocks due for RR
    cdef int32_t* tx_die
    cdef int32_t* tx_off
    cdef uint64_t* tx_mask
    cdef int32_t* tx_chan
    cdef int32_t* tx_n
    cdef int64_t* tx_extra
    cdef int32_t buf_cap

    # ---- migration scratch (sized k*N)
    cdef int32_t* m_comp
    cdef int32_t* m_off
    cdef int32_t* m_lpn
    cdef int32_t* m_dest
    cdef int64_t* m_newppn
    cdef int64_t* m_key

    # ---- outputs
    cdef int64_t* cnt                 # counters, indices C_* in engine.pyx
    cdef int64_t* hist                # [3*HIST_BUCKETS] read, write, io

    # ---- Python side (kept alive here; touched only with the GIL)
    cdef object arrays, hooks, layout, rr_events, gc_events
    cdef object h_on_rr, h_place, h_choose
    cdef bint place_rr, place_gc
    cdef object error
    cdef object cur_routine            # label of the RR routine under way
    cdef object cur_reads              # block read counts of the victim at the trigger
    cdef int64_t layout_page_size      # bytes per page (set by run)
    cdef int64_t n_filled              # LPNs written by the precondition fill (must stay mapped)

    # ---- allocation (FTL)
    cdef int32_t _alloc(self, int32_t lane) except -1 nogil                  # pop a free superblock, or raise
    cdef void _free_push(self, int32_t lane, int32_t sb) noexcept nogil       # erased superblock to the back
    cdef int64_t _user_slot(self, int64_t t) except -1 nogil                 # next user-frontier ppn
    cdef int64_t _gc_slot(self, int32_t lane, int32_t c) except -1 nogil     # next GC/RR-frontier ppn of comp c
    cdef void _gc_close_front(self, int32_t lane) noexcept nogil              # close the oldest open GC superblock
    cdef void _detach_frontier(self, int32_t sb) noexcept nogil               # a victim stops being a frontier
    # ---- timing (busy-until resources)
    cdef int64_t _sched_read(self, int32_t die, int32_t chan, int32_t n_xfer, int64_t t, int64_t extra) noexcept nogil
    cdef int64_t _sched_program(self, int32_t die, int32_t chan, int32_t n_xfer, int64_t t) noexcept nogil
    cdef int64_t _sched_erase(self, int32_t die, int64_t t) noexcept nogil
    cdef int64_t _retries(self, int64_t blk) noexcept nogil                  # read retries at the block's count
    cdef int32_t _group(self, int32_t n, bint with_retry) noexcept nogil      # buf_ppn -> multi-plane tx_*
    cdef int64_t _div_k(self, int64_t x) noexcept nogil                       # x // k (a shift when k = 2**j)
    cdef int64_t _div_N(self, int64_t x) noexcept nogil                       # x // N (a shift when N = 2**j)
    # ---- cache (LRU list)
    cdef void _c_unlink(self, int32_t s) noexcept nogil
    cdef void _c_push_head(self, int32_t s) noexcept nogil
    cdef void _c_touch(self, int32_t s) noexcept nogil
    cdef int32_t _c_insert(self, int32_t lpn, int8_t dirty, int32_t* evicted, int32_t n_ev) noexcept nogil
    # ---- writes, GC, RR
    cdef void _remap(self, int32_t lpn, int64_t ppn) noexcept nogil            # point lpn at ppn, fix valid counts
    cdef int64_t _program_pages(self, int32_t* lpns, int32_t n, int64_t t) except -2 nogil
    cdef int _maybe_gc(self, int32_t lane, int64_t t) except -1 nogil         # greedy GC below the threshold
    cdef int32_t _gc_victim(self, int32_t lane, int64_t t) except -2 nogil
    cdef int _call_place(self, bint is_rr, int32_t victim, int32_t n, int64_t t) except -1 with gil
    cdef int _migrate(self, int32_t victim, bint is_rr, int64_t t) except -1 nogil
    cdef int _read_reclaim(self, int32_t sb, int64_t t) except -1 nogil
    # ---- requests
    cdef void _record(self, int32_t h, int64_t lat) noexcept nogil           # latency into the histograms
    cdef int _read(self, int64_t t, int64_t lpn0, int64_t lpn1) except -1 nogil
    cdef int _write(self, int64_t t, int64_t lpn0, int64_t lpn1) except -1 nogil
    cdef int _run_loop(self, const int64_t* tns, const int64_t* off, const int64_t* size, const uint8_t* wr, int64_t n, int32_t repeat) except -1 nogil
