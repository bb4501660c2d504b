# cython: language_level=3
"""Cache layer of the compiled engine: an LRU list over page slots.
Twin: ``reference/cache.py``; docs/model.md section 3 gives the rules."""
from libc.stdint cimport int8_t, int32_t

import numpy as np
cimport numpy as cnp

cnp.import_array()


cdef class Cache:
    def __init__(self, int32_t cap, cnp.ndarray lmap):
        """``cap`` pages; ``lmap``: the FTL's interleaved int32 (ppn, slot) array."""
        cdef cnp.ndarray a
        self.cap = cap
        self._keep = keep = {"lmap": lmap}
        self.lmap = <int32_t*>lmap.data
        a = keep["slot_lpn"] = np.full(max(cap, 1), -1, np.int32); self.slot_lpn = <int32_t*>a.data
        a = keep["slot_dirty"] = np.zeros(max(cap, 1), np.int8); self.slot_dirty = <int8_t*>a.data
        a = keep["slot_prev"] = np.full(max(cap, 1), -1, np.int32); self.slot_prev = <int32_t*>a.data
        a = keep["slot_next"] = np.full(max(cap, 1), -1, np.int32); self.slot_next = <int32_t*>a.data
        self.head = -1
        self.tail = -1
        self.size = 0

