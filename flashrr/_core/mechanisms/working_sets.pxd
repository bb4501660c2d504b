# PhasedRR working sets: per candidate block, three 1-bit-per-page working sets
# filled on every flash read between the soft threshold and the hard threshold,
# the page classes of Eqs. 1-3 and the phase logic of Algorithm 1.
# Twin: working_sets_py.py.  docs/phasedrr.md describes the model.

from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t
cimport cython

from ..roles cimport Mechanism, counts_list
from ..device.ftl cimport Ftl
from ..device.reclaim cimport Reclaim
from ..device.sched cimport Scheduler

cdef enum:
    # own counters (ctr), in the order of the registry line's names (mechanisms/__init__.py)
    WS_PEAK_BYTES = 0
    WS_POOL_FULL
    WS_SCANS
    WS_HTT                             # identified / truly hot pairs per class: HTT, HTR, TPD
    WS_HTT_HOT
    WS_HTR
    WS_HTR_HOT
    WS_TPD
    WS_TPD_HOT
    WS_N_COUNTERS


@cython.final
cdef class WorkingSets(Mechanism):
    # roles (roles.pxd): read observer (page_read; reads_done books the forced moves), erase observer (block_erased)
    # ---- configuration (policy.working_sets_spec())
    cdef int32_t N, k, S, delta, max_slots
    cdef int32_t mult[5]               # window / phase lengths in units of delta: WS I, WS II, WS III, PhII, PhIII
    cdef int32_t span                  # delta * sum(mult): hard threshold minus soft threshold (block reads)
    cdef int64_t bytes_per_block       # modelled DRAM of one block's three bitmaps (3 * ceil(N / 8) bytes)
    cdef int32_t* comp_die             # [n_lanes*k] (borrowed from the engine's arrays)
    cdef Ftl ftl
    cdef Scheduler sched
    cdef Reclaim rc                    # books the forced moves
    cdef int64_t* cnt                  # engine counters (borrowed): forced moves
    cdef int64_t ctr[WS_N_COUNTERS]    # own counters, WS_*
    cdef object _keep
    # ---- state
    cdef int32_t* slot_of              # [n_blocks] slot of a candidate block, -1 none, -2 pool was full
    cdef int32_t* free_slots           # [max_slots] stack of free slots
    cdef int32_t n_free, in_use
    cdef uint8_t* bits                 # [max_slots*N] per page: 1 WS I, 2 WS II, 4 WS III, 8 queued for a move
    cdef int8_t* stage                 # [max_slots] 0 collecting, 1 classified (HTT forced), 2 HTR forced
    cdef int32_t* page_reads           # [n_pages] diagnostic flash reads per ppn since its erase (never charged)
    # ---- forced moves owed by the current request: (block, class) pairs, and one block's pages
    cdef int32_t* due_blk
    cdef int8_t* due_want              # pages in this many sets are forced (3 = HTT, 2 = HTR)
    cdef int32_t n_due
    cdef int32_t* f_lpn                # [N] pages collected by collect()
    cdef int32_t* f_src

    cdef int32_t collect(self, int32_t j) noexcept nogil            # pages of due entry j into f_lpn/f_src
    cdef int queue(self, int64_t ppn, int64_t blk, uint8_t* bp, int32_t o, int64_t t) except -1 nogil
    cdef void classify(self, int32_t slot, int64_t blk, int32_t only) noexcept nogil
