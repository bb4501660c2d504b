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

    def lru_order(self):
        """Cached LPNs from most to least recent, with their dirty flags (for tests)."""
        out = []
        s = self.head
        while s >= 0:
            out.append((int(self.slot_lpn[s]), bool(self.slot_dirty[s])))
            s = self.slot_next[s]
        return out

    cdef void unlink(self, int32_t s) noexcept nogil:
        cdef int32_t p = self.slot_prev[s], q = self.slot_next[s]
        if p >= 0:
            self.slot_next[p] = q
        else:
            self.head = q
        if q >= 0:
            self.slot_prev[q] = p
        else:
            self.tail = p

    cdef void push_head(self, int32_t s) noexcept nogil:
        self.slot_prev[s] = -1
        self.slot_next[s] = self.head
        if self.head >= 0:
            self.slot_prev[self.head] = s
        self.head = s
        if self.tail < 0:
            self.tail = s

    cdef void touch(self, int32_t s) noexcept nogil:
        if self.head != s:
            self.unlink(s)
            self.push_head(s)

    cdef int32_t insert(self, int32_t lpn, int8_t dirty, int32_t* evicted, int32_t n_ev) noexcept nogil:
        """Insert lpn as most recent; a dirty LRU victim is appended to evicted.  Returns the new n_ev."""
        cdef int32_t s
        if self.size >= self.cap:
            s = self.tail
            self.unlink(s)
            self.lmap[2 * self.slot_lpn[s] + 1] = -1
            if self.slot_dirty[s]:
                evicted[n_ev] = self.slot_lpn[s]
                n_ev += 1
        else:
            s = self.size
            self.size += 1
        self.slot_lpn[s] = lpn
        self.slot_dirty[s] = dirty
        self.lmap[2 * lpn + 1] = s
        self.push_head(s)
        return n_ev
