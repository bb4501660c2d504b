# cython: language_level=3
"""Features layer of the compiled engine: mechanisms policies switch on.
Twin: ``page_counters_py.py``."""
from libc.stdint cimport int32_t, int64_t

import numpy as np
cimport numpy as cnp

cnp.import_array()


cdef class PageCounters:
    def __init__(self, int32_t group, int64_t logical):
        cdef cnp.ndarray a
        self.group = group
        n = (logical + group - 1) // group if group else 0
        a = self._keep = np.zeros(max(n, 1), np.int32)
        self.counts = <int32_t*>a.data
        self._n = n

    def view(self):
        """The counters as a NumPy array (empty when the feature is off)."""
        return self._keep[:self._n]

