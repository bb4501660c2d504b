# cython: language_level=3
"""Cache layer of the compiled engine: an LRU list over page slots.
Twin: ``cache_py.py``; docs/model.md section 3 gives the rules."""
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
        # (prev, next, lpn, dirty) per slot, as int32 columns of one (cap, 4) array
        a = keep["slots"] = np.full((max(cap, 1), 4), -1, np.int32)
        a[:, 3] = 0
        self.slot = <Slot*>a.data
        self.head = -1
        self.tail = -1
        self.size = 0

