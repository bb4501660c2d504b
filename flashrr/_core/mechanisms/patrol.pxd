# Patrol scan: a background scan that visits one superblock per scan interval of
# simulated time and, when a block of it has used a set share of its RR threshold,
# queues every valid page of the superblock on the idle queue PhasedRR uses, so the
# superblock is emptied in idle time ahead of its trigger.  Twin: patrol_py.py.

from libc.stdint cimport int32_t, int64_t, uint8_t
cimport cython

from ..roles cimport Mechanism
from ..device.ftl cimport Ftl
from ..device.sched cimport Scheduler


@cython.final
cdef class PatrolScan(Mechanism):
    # roles (roles.pxd): request observer (request_done), erase observer (block_erased)
    cdef int32_t N, k, S, n_sb
    cdef int64_t interval_ns           # simulated time between two superblock visits (ns)
    cdef int64_t ahead_ppm             # a block is due at this share of its RR threshold (ppm)
    cdef int64_t next_scan             # when the next visit is due (ns)
    cdef int32_t cursor                # the superblock the next visit looks at
    cdef Ftl ftl
    cdef Scheduler sched
    cdef int32_t* comp_die             # [n_lanes * k] borrowed from the engine
    cdef int32_t* block_reads          # [n_blocks] borrowed from the reclaim layer
    cdef int32_t* rr_threshold         # [n_blocks] borrowed from the reclaim layer
    cdef uint8_t* queued               # [n_sb] its pages were queued since its last erase
    cdef object _keep
    cdef int64_t ctr[3]                # visits, superblocks queued, pages queued

    cdef int visit(self, int32_t sb, int64_t t) except -1 nogil
