# Counter-guided early read reclaim (RL-RR and Reallocation baselines of the
# PhasedRR paper): blocks past a soft threshold move their hottest pages (by the
# page counters) in idle time, as many per idle interval as a decision rule says.
# Twin: early_moves_py.py.  docs/phasedrr.md describes both rules.

from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint64_t
cimport cython

from ..roles cimport Mechanism
from .page_counters cimport PageCounters
from ..device.ftl cimport Ftl
from ..device.sched cimport Scheduler
from ..device.reclaim cimport Reclaim


@cython.final
cdef class EarlyMoves(Mechanism):
    # roles (roles.pxd): read observer (page_read), request observer (arrival, request_done), erase observer
    cdef int32_t mode                  # 1 = RL-RR (tabular Q-learning), 2 = Reallocation (benefit >= cost)
    cdef int32_t N, k, S, n_blocks, span, n_dies
    cdef int64_t t_read, t_mv          # page move time: one read + one program (ns)
    cdef int32_t* comp_die
    cdef Reclaim rc                    # the reclaim layer: a block's retry steps and their time
    cdef int32_t* block_reads          # [n_blocks] borrowed from the reclaim layer
    cdef int32_t* rr_threshold         # [n_blocks] borrowed from the reclaim layer
    cdef Ftl ftl
    cdef Scheduler sched
    cdef PageCounters pc
    cdef int64_t* cnt
    cdef object _keep
    # ---- candidates: a FIFO ring of blocks past the soft threshold
    cdef uint8_t* cand                 # [n_blocks] a candidate since its last erase
    cdef uint8_t* in_ring              # [n_blocks] listed in the ring (maybe stale)
    cdef int32_t* ring
    cdef int32_t r_head, r_len
    cdef uint8_t* queued               # [n_pages] queued for an early move since the block's erase
    # ---- decision state
    cdef int64_t last_done             # completion of the latest request (ns)
    cdef int64_t gap1, gap2            # the last two idle gaps (ns)
    cdef int64_t g_ewma                # Reallocation: EWMA of idle gaps (ns), weight 1/8
    cdef double* q                     # RL: [64 * 7] Q-values
    cdef double alpha, gamma
    cdef int32_t eps_per_mille
    cdef uint64_t rng
    cdef int32_t last_state, last_action
    cdef int64_t moves_before          # idle_moves when the last decision was taken
    cdef bint decided

    cdef int64_t next_page(self, int64_t* w_out, int64_t* wsum_out, int32_t* blk_out) noexcept nogil
    cdef int queue_page(self, int64_t ppn, int64_t t) except -1 nogil
