# RR destination streams (redFTL, IPR): per lane, extra frontiers for read-reclaimed
# pages, each with an RR-threshold multiplier, a usable block capacity, a number of
# open blocks and a cap on its live blocks.  Stream 0 is the ordinary GC/RR frontier.
# Twin: streams_py.py.  docs/cocktail.md describes the model.

from libc.stdint cimport int8_t, int32_t, int64_t
cimport cython

from ..roles cimport Mechanism, counts_list
from ..device.ftl cimport Ftl

cdef enum:
    MAX_STREAMS = 4                    # stream 0 (ordinary) + up to 3
    MAX_OPEN = 8                       # open blocks per stream and lane
    MODE_REDFTL = 1                    # RR pages go one level up (x2, then x5), hottest first, balanced
    MODE_IPR = 2                       # RR pages read more than the victim's mean go to the IPR stream
    MODE_BUDGET = 3                    # Reallocation: hot pages to the open block with the most read budget left

cdef enum:
    # own counters (ctr), in the order of the registry line's names (mechanisms/__init__.py)
    ST_BLOCKS = 0
    ST_PAGES
    ST_FALLBACK
    ST_N_COUNTERS


@cython.final
cdef class Streams(Mechanism):
    # roles (roles.pxd): user-page placer (user_page), migration placer (plan_migration, migration_order,
    # migration_page, migration_moved, move_page_slot), erase observer (block_erased)
    cdef int32_t mode, n_streams, N, n_lanes, S, count_max
    cdef int64_t thr0                  # the configured RR threshold (reads)
    cdef int32_t mult[MAX_STREAMS]     # threshold multiplier of each stream
    cdef int32_t cap_pages[MAX_STREAMS]  # usable pages of a block of each stream
    cdef int32_t n_open[MAX_STREAMS]   # open blocks per lane
    cdef int32_t max_live[MAX_STREAMS] # live blocks per lane (-1 = no cap); at the cap, pages go to stream 0
    cdef Ftl ftl
    cdef int32_t* block_reads          # borrowed from the reclaim layer
    cdef int32_t* rr_threshold
    cdef int32_t* counts               # borrowed page counters (one per LPN)
    cdef int64_t ctr[ST_N_COUNTERS]    # own counters, ST_*
    cdef object _keep
    # ---- state
    cdef int8_t* blk_stream            # [n_blocks] stream a block was opened in (0 = ordinary), reset at erase
    cdef int32_t* open_blk             # [n_lanes*MAX_STREAMS*MAX_OPEN] open block of each slot, -1 none
    cdef int32_t* open_wp              # next page offset in it
    cdef int32_t* live                 # [n_lanes*MAX_STREAMS] live (not erased) blocks of each stream
    cdef int64_t* given                # budget mode: page weight placed in each open slot since it opened
    cdef int32_t* cold_next            # [n_lanes] budget mode: the slot the next cold page goes to
    # ---- the current migration's plan
    cdef int32_t* code                 # [N] per page (source order): stream*MAX_OPEN + slot, -1 = stream 0
    cdef int32_t* perm                 # [N] order in which the pages are programmed
    cdef int64_t* key                  # [2N] sort scratch

    cdef int plan(self, int32_t victim, bint is_rr, const int32_t* lpns, int32_t n) except -1 nogil
    cdef int64_t slot_ppn(self, int32_t lane, int32_t code, int32_t lpn) except -1 nogil
    cdef void budgets(self, int32_t lane, int64_t* budget, int32_t* room) noexcept nogil
    cdef int32_t pick(self, int32_t lane, int64_t w, const int64_t* budget) noexcept nogil
    cdef int64_t place_one(self, int32_t lane, int32_t lpn, int32_t src_blk) except -1 nogil
    cdef void moved(self, const int32_t* lpns, int32_t n) noexcept nogil
    cdef int32_t count(self, int32_t lpn) noexcept nogil
