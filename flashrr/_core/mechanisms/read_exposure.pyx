# cython: language_level=3
"""Read exposure (compiled; twin ``read_exposure_py.py``).

A read observer: for every flash read of a page, the count of its block after
the read (``reads``, block reads since the erase) against the block's RR
threshold puts it in quarter ``q = min(3, 4 * (reads - 1) // threshold)``.
The four counts say how much of the flash read traffic meets blocks late in
their read-disturb budget, which is where a scheme that moves hot pages early
(PhasedRR, RL-RR) should differ from Baseline.
"""
from libc.stdint cimport int32_t, int64_t


cdef class ReadExposure:
    def __init__(self, ctx, spec):
        """``spec``: ``True`` (the mechanism takes no parameter)."""
        self.reset_counters()

    cdef int page_read(self, int64_t ppn, int64_t blk, int32_t reads, int32_t threshold,
                       int64_t done) except -1 nogil:
        cdef int64_t q = (4 * <int64_t>(reads - 1)) // threshold if threshold > 0 else 3
        self.counts[q if q < 3 else 3] += 1
        return 0

    def counter_values(self):
        return [self.counts[i] for i in range(4)]

    def reset_counters(self):
        cdef int i
        for i in range(4):
            self.counts[i] = 0
