# Cache layer: the DRAM data cache, LRU over pages, write-back.
# Twin: reference/cache.py.  The slot of each LPN lives in the FTL's
# interleaved lmap (lmap[2*lpn+1]), so a lookup costs one memory access.

from libc.stdint cimport int8_t, int32_t
cimport cython


@cython.final
cdef class Cache:
    cdef int32_t cap                   # pages
    cdef int32_t* lmap                 # the FTL's lmap (borrowed): lmap[2*lpn+1] = slot or -1
    cdef int32_t* slot_lpn             # [cap]
    cdef int8_t* slot_dirty            # [cap]
    cdef int32_t* slot_prev            # [cap] towards the head (most recent)
    cdef int32_t* slot_next            # [cap] towards the tail (least recent)
    cdef int32_t head, tail, size
    cdef object _keep                  # NumPy arrays that own the memory above

    cdef void unlink(self, int32_t s) noexcept nogil
    cdef void push_head(self, int32_t s) noexcept nogil
    cdef void touch(self, int32_t s) noexcept nogil                          # a hit: slot becomes most recent
    cdef int32_t insert(self, int32_t lpn, int8_t dirty, int32_t* evicted, int32_t n_ev) noexcept nogil
