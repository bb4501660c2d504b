# Cocktail's write pool (TCAD 2023): per lane (k = 1: one plane) a short list of
# partly written blocks, prefilled with user data (flag WR) or with internal
# (RR, and GC when gc_internal) data (flag RR), completed with the other kind.
# Twin: write_pool_py.py.  docs/cocktail.md describes the model.

from libc.stdint cimport int8_t, int32_t, int64_t
cimport cython

from ..roles cimport Mechanism, counts_list
from ..device.ftl cimport Ftl

cdef enum:
    # block state of a pool entry (layout.SB_POOL; not a GC candidate)
    S_POOL = 5
    # pool entry flags
    F_WR = 0
    F_RR = 1

cdef enum:
    # own counters (ctr), in the order of the registry line's names (mechanisms/__init__.py)
    WP_PUSH_USER = 0
    WP_PUSH_RR
    WP_EXCH
    WP_CAP_INC
    WP_CAP_RESET
    WP_USER_PAGES
    WP_RR_PAGES
    WP_WFR_PAGES
    WP_AGG_PAGES
    WP_WASTED
    WP_N_COUNTERS


@cython.final
cdef class WritePool(Mechanism):
    # roles (roles.pxd): user-page placer (user_page: Algorithm 1), migration placer (victim_chosen,
    # places_migration, migration_page: Algorithm 2, migration_done)
    # ---- configuration (policy.write_pool_spec())
    cdef bint gc_internal              # GC pages take the internal (Algorithm 2) path (ambiguity A1)
    cdef bint reset_per_page           # capacity reset check after every internal page (A8), else per migration
    cdef bint key_reads                # pick pool blocks by raw read count instead of Eq. 2 (A5 option)
    cdef int32_t N, n_lanes, S, cap_min, cap_max, n_fixed
    cdef int64_t ratio_ppm             # Eq. 2 weight of the read term, parts per million
    cdef Ftl ftl
    cdef int32_t* block_reads          # borrowed from the reclaim layer
    cdef int32_t* rr_threshold
    cdef int64_t ctr[WP_N_COUNTERS]    # own counters, WP_*
    cdef object _keep
    # ---- state per lane
    cdef int32_t* blk                  # [n_lanes*cap_max] pool entries in insertion order
    cdef int32_t* idx                  # [n_lanes*cap_max] next page offset of each entry
    cdef int8_t* flag                  # [n_lanes*cap_max] F_WR / F_RR
    cdef int32_t* plen                 # [n_lanes] entries in the pool
    cdef int32_t* n_wr                 # [n_lanes] entries flagged WR
    cdef int32_t* cap                  # [n_lanes] current capacity
    cdef int32_t* wfr_blk              # [n_lanes] internal (RR) write frontier, -1 none
    cdef int32_t* wfr_idx              # [n_lanes] next page offset in it

    cdef int64_t user_slot(self) except -1 nogil                     # Algorithm 1: ppn of the next user page
    cdef int64_t internal_slot(self, int32_t lane) except -1 nogil   # Algorithm 2: ppn of the next internal page
    cdef void after_migration(self, int32_t lane) noexcept nogil     # capacity reset check per migration (A8)
    cdef void on_victim(self, int32_t blk) noexcept nogil            # an RR victim leaves the pool / frontiers
    cdef int32_t pick(self, int32_t lane, int32_t want, bint largest) noexcept nogil
    cdef bint above(self, int32_t a, int32_t b) noexcept nogil       # factor(a) > factor(b), Eq. 2
    cdef void push(self, int32_t lane, int32_t b, int32_t i, int8_t f) noexcept nogil
    cdef void remove(self, int32_t lane, int32_t j) noexcept nogil
    cdef int64_t write_entry(self, int32_t lane, int32_t j) noexcept nogil
    cdef int32_t share(self, int32_t lane) noexcept nogil          # n: the pool capacity, or n_fixed
