# Page read counters (policy.page_counter_group): one per group of LPNs, kept by the
# engine for every policy that asks (RL-RR, Reallocation, the Page schemes, redFTL, IPR).
# Twin: page_counters_py.py.

from libc.stdint cimport int32_t
cimport cython

from ..device.common cimport *


@cython.final
cdef class PageCounters:
    # One read counter per group of `group` consecutive LPNs, incremented on every
    # flash read of a page (policy.page_counter_group; 0 = off).
    cdef int32_t group                 # pages per counter, 0 = feature off
    cdef int32_t* counts               # [ceil(logical / group)]
    cdef object _keep
    cdef Py_ssize_t _n                 # counters in use

    cdef inline void on_flash_reads(self, const int32_t* lpns, int32_t n) noexcept nogil:
        cdef int32_t i
        if self.group:
            for i in range(n):
                self.counts[lpns[i] // self.group] += 1
