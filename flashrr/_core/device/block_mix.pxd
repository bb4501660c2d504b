# Pages programmed into each block since its erase, by kind: the composition of
# RR and GC victims every scheme reports.  Twin: block_mix_py.py.

from libc.stdint cimport int32_t
cimport cython


@cython.final
cdef class BlockMix:
    # Pages programmed into each block since its erase, by kind (all schemes; k = any).
    cdef int32_t* user                 # [n_blocks] host (and destage) pages
    cdef int32_t* rr                   # [n_blocks] pages written by read reclaim
    cdef int32_t* gc                   # [n_blocks] pages written by GC
    cdef object _keep
